package io.rivulet.tck;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Await}: it returns once the condition holds, and fails with the description once the timeout passes.
 */
class AwaitTest
{
    private static final Duration SHORT = Duration.ofMillis(50);
    private static final Duration LONG = TestTime.seconds(10);

    @Test
    void shouldReturnOnceAnotherThreadMakesTheConditionTrue() throws Exception
    {
        final AtomicBoolean flag = new AtomicBoolean();
        final AtomicInteger polls = new AtomicInteger();
        // The other thread sets the flag only after Await has seen it false three times: no sleep, no race.
        final Thread setter = new Thread(() ->
        {
            while (polls.get() < 3)
            {
                Thread.onSpinWait();
            }
            flag.set(true);
        });
        setter.start();
        try
        {
            Await.until(LONG, () ->
            {
                polls.incrementAndGet();
                return flag.get();
            }, () -> "the flag set");
        }
        finally
        {
            setter.join();
        }
        assertThat(flag).isTrue();
        assertThat(polls.get()).as("polled while false, then once more").isGreaterThanOrEqualTo(4);
    }

    @Test
    void shouldFailWithTheDescriptionWhenTheConditionNeverHolds()
    {
        final AtomicInteger polls = new AtomicInteger();
        final long startNs = System.nanoTime();

        assertThatThrownBy(() -> Await.until(SHORT, () -> polls.incrementAndGet() < 0, () -> "never, polls " + polls))
            .isInstanceOf(AssertionError.class)
            .hasMessageStartingWith("timed out after 50 ms waiting until never, polls ");

        assertThat(System.nanoTime() - startNs).isGreaterThanOrEqualTo(SHORT.toNanos());
        assertThat(polls.get()).isGreaterThan(1);
    }

    @Test
    void shouldFailWithWhatWasAwaitedForTheDefaultTimeoutForm()
    {
        assertThat(Await.DEFAULT_TIMEOUT_NS).isEqualTo(TestTime.nanos(30, TimeUnit.SECONDS));
        final AtomicInteger polls = new AtomicInteger();
        Await.until("three polls", () -> polls.incrementAndGet() == 3);
        assertThat(polls).hasValue(3);
    }

    @Test
    void shouldReturnTheFirstValueTheProbeGives()
    {
        final AtomicInteger polls = new AtomicInteger();

        final String value = Await.value(LONG, () -> polls.incrementAndGet() == 5 ? "five" : null, () -> "five");

        assertThat(value).isEqualTo("five");
        assertThat(polls).hasValue(5);
    }

    @Test
    void shouldFailWhenTheProbeNeverGivesAValue()
    {
        assertThatThrownBy(() -> Await.value(SHORT, () -> null, () -> "a value that never comes"))
            .isInstanceOf(AssertionError.class)
            .hasMessage("timed out after 50 ms waiting until a value that never comes");
    }

    @Test
    void shouldStepBeforeEachPollUntilTheConditionHolds()
    {
        final AtomicInteger steps = new AtomicInteger();

        Await.until(LONG, steps::incrementAndGet, () -> steps.get() >= 4, () -> "four steps");

        assertThat(steps).hasValue(4);
    }

    @Test
    void shouldFailAfterSteppingWhenTheConditionNeverHolds()
    {
        final AtomicInteger steps = new AtomicInteger();

        assertThatThrownBy(() -> Await.until(SHORT, () -> steps.incrementAndGet() & 0, () -> false,
            () -> "a stepped condition after " + (steps.get() > 1 ? "several" : "one") + " steps"))
            .isInstanceOf(AssertionError.class)
            .hasMessage("timed out after 50 ms waiting until a stepped condition after several steps");
    }

    @Test
    void shouldPassOnWhatTheConditionThrows()
    {
        final IOException failure = new IOException("link down");

        assertThatThrownBy(() -> Await.until(LONG, () ->
        {
            throw failure;
        }, () -> "never reached")).isSameAs(failure);
    }
}
