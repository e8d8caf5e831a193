package io.rivulet.micrometer.observation;

import io.micrometer.observation.Observation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Ends a request's observation when its publisher ends: a Mono's value or completion, a Flux's completion, an
 * error or a cancel, whichever comes first, and before the subscriber sees it (so what the subscriber does next,
 * even at once, finds the timer and span finished). The observation is in the subscriber context under
 * {@link #OBSERVATION_KEY} for what runs upstream.
 */
final class ObservedSignals
{
    /** Where Reactor's context holds the current observation ({@code ObservationThreadLocalAccessor.KEY}). */
    static final String OBSERVATION_KEY = "micrometer.observation";

    private ObservedSignals()
    {
    }

    static <T> Mono<T> observe(final Mono<T> source, final Observation observation, final Consumer<Outcome> outcome)
    {
        final End end = new End(observation, outcome);
        return source
            .doOnSuccess(value -> end.stop(Outcome.SUCCESS, null))
            .doOnError(error -> end.stop(Outcome.ERROR, error))
            .doOnCancel(() -> end.stop(Outcome.CANCELLED, null))
            .contextWrite(context -> context.put(OBSERVATION_KEY, observation));
    }

    static <T> Flux<T> observe(final Flux<T> source, final Observation observation, final Consumer<Outcome> outcome)
    {
        final End end = new End(observation, outcome);
        return source
            .doOnComplete(() -> end.stop(Outcome.SUCCESS, null))
            .doOnError(error -> end.stop(Outcome.ERROR, error))
            .doOnCancel(() -> end.stop(Outcome.CANCELLED, null))
            .contextWrite(context -> context.put(OBSERVATION_KEY, observation));
    }

    /** Stops an observation once, with the first outcome. */
    private static final class End
    {
        private final AtomicBoolean stopped = new AtomicBoolean();
        private final Observation observation;
        private final Consumer<Outcome> outcome;

        End(final Observation observation, final Consumer<Outcome> outcome)
        {
            this.observation = observation;
            this.outcome = outcome;
        }

        void stop(final Outcome how, final Throwable error)
        {
            if (stopped.compareAndSet(false, true))
            {
                if (error != null)
                {
                    observation.error(error);
                }
                outcome.accept(how);
                observation.stop();
            }
        }
    }
}
