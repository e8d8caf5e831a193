package io.rivulet.actors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The asking side of asks, stepped on virtual time: nothing here sleeps. */
class AsksTest
{
    private static final String PATH = "rivulet://local/pricing";
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final ActorCounters counters = new ActorCounters();
    private final Asks asks = new Asks(counters, DEFAULT_TIMEOUT, time);

    @AfterEach
    void dispose()
    {
        time.dispose();
    }

    @Test
    void shouldHandOutUniqueCorrelationIds()
    {
        final long first = asks.nextCorrelationId();
        assertThat(asks.nextCorrelationId()).isEqualTo(first + 1);
        assertThat(asks.nextCorrelationId()).isEqualTo(first + 2);
    }

    @Test
    void shouldTypeAReply()
    {
        StepVerifier.create(asks.reply(Mono.just("filled"), String.class, Duration.ofSeconds(1), PATH))
            .expectNext("filled")
            .verifyComplete();
    }

    @Test
    void shouldTimeOutAnUnansweredAskAfterExactlyItsTimeout()
    {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        asks.reply(Mono.never(), String.class, Duration.ofMillis(250), PATH).subscribe(reply -> { }, failure::set);

        time.advanceTimeBy(Duration.ofMillis(249));
        assertThat(failure.get()).isNull();
        assertThat(counters.askTimeouts.get()).isZero();

        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(failure.get())
            .isInstanceOf(AskTimeoutException.class)
            .hasMessage("no reply from " + PATH + " within 250 ms");
        assertThat(counters.askTimeouts.get()).isEqualTo(1);
    }

    @Test
    void shouldNotCountAReplyInTimeAsATimeout()
    {
        final AtomicReference<Object> reply = new AtomicReference<>();
        asks.reply(Mono.<Object>just("late enough").delayElement(Duration.ofMillis(100), time), String.class,
            Duration.ofMillis(250), PATH).subscribe(reply::set);

        time.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(reply.get()).isEqualTo("late enough");
        assertThat(counters.askTimeouts.get()).isZero();
    }

    @Test
    void shouldFailAReplyOfTheWrongType()
    {
        StepVerifier.create(asks.reply(Mono.just(42L), String.class, Duration.ofSeconds(1), PATH))
            .expectErrorSatisfies(error -> assertThat(error)
                .isInstanceOf(ClassCastException.class)
                .hasMessage("the reply from " + PATH + " is a java.lang.Long, not a java.lang.String"))
            .verify();
    }

    @Test
    void shouldAnswerAnAskWithTheFirstElementOfAStreamReply()
    {
        final Mono<Object> raw = Mono.just(new AbstractReplier.StreamReply(Flux.just(1L, 2L, 3L)));
        StepVerifier.create(asks.reply(raw, Long.class, Duration.ofSeconds(1), PATH))
            .expectNext(1L)
            .verifyComplete();
    }

    @Test
    void shouldStreamEveryElementOfAStreamReply()
    {
        final Mono<Object> raw = Mono.just(new AbstractReplier.StreamReply(Flux.just(1L, 2L, 3L)));
        StepVerifier.create(asks.streamReply(raw, Long.class, PATH))
            .expectNext(1L, 2L, 3L)
            .verifyComplete();
        StepVerifier.create(asks.streamReply(Mono.just(7L), Long.class, PATH))
            .expectNext(7L)
            .verifyComplete();
    }

    @Test
    void shouldTimeOutTheAnswerOfAStreamAskAfterTheDefaultTimeout()
    {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        asks.streamReply(Mono.never(), Long.class, PATH).subscribe(element -> { }, failure::set);

        time.advanceTimeBy(DEFAULT_TIMEOUT.minusNanos(1));
        assertThat(failure.get()).isNull();

        time.advanceTimeBy(Duration.ofNanos(1));
        assertThat(failure.get()).isInstanceOf(AskTimeoutException.class);
        assertThat(counters.askTimeouts.get()).isEqualTo(1);
    }

    @Test
    void shouldNotTimeOutTheStreamItselfOnceAnswered()
    {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Mono<Object> raw = Mono.just(new AbstractReplier.StreamReply(Flux.never()));
        asks.streamReply(raw, Long.class, PATH).subscribe(element -> { }, failure::set);

        time.advanceTimeBy(DEFAULT_TIMEOUT.multipliedBy(10));
        assertThat(failure.get()).isNull();
        assertThat(counters.askTimeouts.get()).isZero();
    }
}
