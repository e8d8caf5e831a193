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
}
