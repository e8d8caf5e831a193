package io.rivulet.bench.harness;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The warm-up to a steady rate, stepped on a clock that the fake workload advances. */
class WarmUpTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private long nowNs;

    @Test
    void shouldStopAsSoonAsTheLastWindowsAgreeWithinTheTolerance() throws Exception
    {
        // Chunks of 100 operations taking 100 ms, 104 ms, 102 ms...: within 5% of each other.
        final long[] chunkMs = {100, 104, 102, 100, 100, 100};
        final int[] chunks = {0};
        final WarmUp warmUp = new WarmUp(0, 0, 100, 100 * MS, 3, 0.05, TimeUnit.SECONDS.toNanos(60), () -> nowNs);

        final WarmUp.Outcome outcome = warmUp.run(operations -> nowNs += chunkMs[chunks[0]++] * MS, new Progress());

        assertThat(outcome.steady()).isTrue();
        assertThat(outcome.operations()).isEqualTo(300);
        assertThat(outcome.elapsedNs()).isEqualTo(306 * MS);
        assertThat(outcome.ratesText()).isEqualTo("1000,962,980");
    }

    @Test
    void shouldFollowARisingRateUntilItLevels() throws Exception
    {
        // 1,000/s for the first 120 ms, 2,000/s for the next, and so on up to 8,000/s from 840 ms on: any three
        // windows of 100 ms before that span more than two steps, so they disagree by more than 5%.
        final WarmUp warmUp = new WarmUp(500, 0, 100, 100 * MS, 3, 0.05, TimeUnit.SECONDS.toNanos(60), () -> nowNs);

        final WarmUp.Outcome outcome = warmUp.run(operations ->
        {
            final long level = Math.min(8, 1 + nowNs / (120 * MS));
            nowNs += operations * TimeUnit.SECONDS.toNanos(1) / (1_000 * level);
        }, new Progress());

        assertThat(outcome.steady()).isTrue();
        assertThat(outcome.elapsedNs()).isGreaterThan(840 * MS);
        final double[] rates = outcome.windowRates();
        assertThat(rates[0]).isEqualTo(1_000.0);
        assertThat(rates[rates.length - 1]).isEqualTo(8_000.0);
        assertThat(rates[rates.length - 3]).isGreaterThanOrEqualTo(8_000.0 * 0.95);
    }

    @Test
    void shouldWarmAtLeastTheShortestTimeThoughAnEarlierPlateauAgrees() throws Exception
    {
        // 1,000/s for the first second (a plateau: its windows agree), 2,000/s from then on.
        final WarmUp warmUp = new WarmUp(0, TimeUnit.SECONDS.toNanos(2), 100, 100 * MS, 3, 0.05,
            TimeUnit.SECONDS.toNanos(60), () -> nowNs);

        final WarmUp.Outcome outcome = warmUp.run(operations -> nowNs += nowNs < TimeUnit.SECONDS.toNanos(1) ?
            100 * MS : 50 * MS, new Progress());

        assertThat(outcome.steady()).isTrue();
        assertThat(outcome.elapsedNs()).isEqualTo(TimeUnit.SECONDS.toNanos(2));
        assertThat(outcome.windowRates()).startsWith(1_000.0, 1_000.0, 1_000.0).endsWith(2_000.0, 2_000.0, 2_000.0);
    }

    @Test
    void shouldNotCallACollapsedRateSteady() throws Exception
    {
        // 10,000/s for 0.5 s, then a steady 1,000/s: past the shortest time of 1 s the windows agree, but far below
        // the best one.
        final WarmUp warmUp = new WarmUp(0, TimeUnit.SECONDS.toNanos(1), 100, 100 * MS, 3, 0.05,
            TimeUnit.SECONDS.toNanos(2), () -> nowNs);

        final WarmUp.Outcome outcome = warmUp.run(operations -> nowNs += nowNs < 500 * MS ? 10 * MS : 100 * MS,
            new Progress());

        assertThat(outcome.steady()).isFalse();
        assertThat(outcome.windowRates()).startsWith(10_000.0).endsWith(1_000.0, 1_000.0, 1_000.0);
    }

    @Test
    void shouldStopAtTheTimeBoundAndSayItIsNotSteady() throws Exception
    {
        // Windows alternate between 1,000/s and 500/s: never within 5%.
        final long[] chunks = {0};
        final WarmUp warmUp = new WarmUp(0, 0, 100, 100 * MS, 3, 0.05, TimeUnit.SECONDS.toNanos(2), () -> nowNs);

        final WarmUp.Outcome outcome = warmUp.run(operations -> nowNs += ++chunks[0] % 2 == 0 ? 200 * MS : 100 * MS,
            new Progress());

        assertThat(outcome.steady()).isFalse();
        assertThat(outcome.elapsedNs()).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(2))
            .isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(2) + 200 * MS);
        assertThat(outcome.windowRates()).containsOnly(1_000.0, 500.0);
    }

    @Test
    void shouldRunTheMinimumEvenPastTheTimeBound() throws Exception
    {
        final WarmUp warmUp = new WarmUp(5_000, 0, 100, 100 * MS, 3, 0.05, 100 * MS, () -> nowNs);

        final WarmUp.Outcome outcome = warmUp.run(operations -> nowNs += 100 * MS, new Progress());

        // Every window agreed from the third, but the minimum comes first; past the bound, it ends at the minimum.
        assertThat(outcome.operations()).isEqualTo(5_000);
        assertThat(outcome.windowRates()).hasSize(50);
    }

    @Test
    void shouldReportProgressAndPropagateAFailure()
    {
        final Progress progress = new Progress();
        final WarmUp warmUp = new WarmUp(0, 0, 10, MS, 2, 0.05, TimeUnit.SECONDS.toNanos(1), () -> nowNs);
        final long[] chunks = {0};

        // Chunks of 1 ms, then 2 ms (windows that disagree), then a failure.
        assertThatThrownBy(() -> warmUp.run(operations ->
        {
            nowNs += ++chunks[0] * MS;
            if (chunks[0] == 3)
            {
                throw new IllegalStateException("no echo");
            }
        }, progress)).hasMessage("no echo");
        assertThat(progress.done()).isEqualTo(20);
    }

    @Test
    void shouldRefuseAWindowCountThatCannotCompare()
    {
        assertThatThrownBy(() -> new WarmUp(0, 0, 10, MS, 1, 0.05, MS, System::nanoTime))
            .isInstanceOf(IllegalArgumentException.class);
    }
}
