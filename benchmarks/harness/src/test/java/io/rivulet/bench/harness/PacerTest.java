package io.rivulet.bench.harness;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class PacerTest
{
    @Test
    void shouldSpacePacedMessagesAtLeastOneIntervalApart()
    {
        final long rate = 2_000;
        final int messages = 40;
        final long startNs = System.nanoTime();
        final Pacer pacer = new Pacer(rate);

        for (int i = 0; i < messages; i++)
        {
            pacer.awaitSlot(i);
        }

        // Message 39 is due 39 intervals of 0.5 ms after the start: never earlier, however loaded the machine.
        assertThat(System.nanoTime() - startNs).isGreaterThanOrEqualTo(TimeUnit.MICROSECONDS.toNanos(500) * (messages - 1));
    }

    @Test
    void shouldReleaseMessagesInTicksNeverBeforeTheirTick()
    {
        // 2,000/s in ticks of 5 ms: bursts of 10, message 10 due at 5 ms, messages 30-39 at 15 ms.
        final long startNs = System.nanoTime();
        final Pacer pacer = Pacer.inTicks(2_000, TimeUnit.MILLISECONDS.toNanos(5));

        for (int i = 0; i <= 10; i++)
        {
            pacer.awaitSlot(i);
        }
        final long tenthNs = System.nanoTime() - startNs;
        for (int i = 11; i < 40; i++)
        {
            pacer.awaitSlot(i);
        }

        assertThat(tenthNs).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(5));
        assertThat(System.nanoTime() - startNs).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(15));
    }
}
