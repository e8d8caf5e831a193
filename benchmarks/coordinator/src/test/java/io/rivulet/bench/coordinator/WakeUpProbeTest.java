package io.rivulet.bench.coordinator;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WakeUpProbeTest
{
    @Test
    void shouldMeasureARoundTripOfTwoWakeUpsAndLeaveNoThreadBehind() throws InterruptedException
    {
        final double medianNs = WakeUpProbe.medianRoundTripNs();

        // Two wake-ups take some time, and less than the trial's bound.
        assertThat(medianNs).isPositive().isLessThan(WakeUpProbe.TRIAL_LIMIT_NS);
        for (final Thread thread : Thread.getAllStackTraces().keySet())
        {
            if (thread.getName().equals("rivulet-bench-wake-up-probe"))
            {
                thread.join(5_000);
                assertThat(thread.isAlive()).as("the trial's partner thread ends with the trial").isFalse();
            }
        }
    }

    @Test
    void shouldDescribeEveryTrialInMicroseconds()
    {
        assertThat(WakeUpProbe.describe()).matches("\\d+\\.\\d( / \\d+\\.\\d){" + (WakeUpProbe.TRIALS - 1) + "} µs");
    }

    @Test
    void shouldStopATrialWhenItsThreadIsInterrupted()
    {
        Thread.currentThread().interrupt();
        try
        {
            // Interrupted before the first pass: the trial measures nothing and says so instead of hanging.
            assertThat(WakeUpProbe.medianRoundTripNs()).isNaN();
        }
        finally
        {
            Thread.interrupted();
        }
    }
}
