package io.rivulet.protocol;

import io.rivulet.counters.NodeCounters;
import io.rivulet.spi.EngineWake;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbound ring's memory: small before SETUP and full after, parked bytes counted against the node's budget,
 * and the ring freed explicitly only once no producer is inside it.
 */
class OutboundTest
{
    private static final int RING = 256 * 1024;
    private static final int FRAME = 16 * 1024;

    private final NodeCounters counters = new NodeCounters();

    @Test
    void shouldStartSmallBeforeSetupAndTakeTheFullRingOnlyWhenEmpty()
    {
        final Outbound outbound = new Outbound(Outbound.PRE_SETUP_RING_LENGTH, RING, FRAME,
            counters.backPressureEvents, MemoryBudget.unlimited(), RingPool.none(), EngineWake.NONE);

        assertThat(outbound.ring().capacity()).isEqualTo(Outbound.PRE_SETUP_RING_LENGTH);
        assertThat(outbound.claim(4 * 1024)).as("a frame the small ring cannot take is refused, not thrown")
            .isLessThanOrEqualTo(0);
        assertThat(outbound.maxFrameLength()).as("the connection's frame length is unchanged").isEqualTo(FRAME);

        final int index = outbound.claim(64);
        assertThat(index).isPositive();
        outbound.commit(index);
        assertThat(outbound.expand()).as("a frame waits in the small ring: swapping would lose it").isFalse();
        outbound.ring().read((type, buffer, offset, length) -> { });
        assertThat(outbound.expand()).isTrue();
        assertThat(outbound.ring().capacity()).isEqualTo(RING);
        assertThat(outbound.expand()).as("once full, nothing to do").isTrue();

        final int big = outbound.claim(FRAME);
        assertThat(big).isPositive();
        outbound.commit(big);
        assertThat(outbound.free()).isTrue();
    }

    @Test
    void shouldRefuseProducersOnceFreedAndNotFreeUnderOneThatIsWriting() throws InterruptedException
    {
        final Outbound outbound = new Outbound(RING, FRAME, counters.backPressureEvents);
        final int index = outbound.claim(128); // a producer between claim and commit

        assertThat(outbound.free()).as("a producer is inside: not yet").isFalse();
        assertThat(outbound.claim(128)).as("a producer arriving now backs out").isLessThanOrEqualTo(0);
        outbound.ring().buffer().putLong(index, 42L); // the one inside still writes into live memory
        outbound.commit(index);
        assertThat(outbound.free()).as("the last producer left").isTrue();
        assertThat(outbound.offerFireAndForget(new org.agrona.concurrent.UnsafeBuffer(new byte[8]), 0, 8))
            .as("the zero-copy offer backs out too").isFalse();

        // Producers racing the free on other threads: none writes into freed memory (that would crash the JVM),
        // each either commits before the free or backs out. (Nothing reads: the sender has let go before a free.)
        for (int round = 0; round < 20; round++)
        {
            final Outbound raced = new Outbound(RING, FRAME, counters.backPressureEvents);
            final CountDownLatch start = new CountDownLatch(1);
            final AtomicInteger written = new AtomicInteger();
            final Thread[] producers = new Thread[2];
            for (int p = 0; p < producers.length; p++)
            {
                producers[p] = new Thread(() ->
                {
                    awaitQuietly(start);
                    for (int i = 0; i < 2_000; i++)
                    {
                        final int claimed = raced.claim(64);
                        if (claimed > 0)
                        {
                            raced.ring().buffer().putLong(claimed, i);
                            raced.commit(claimed);
                            written.incrementAndGet();
                        }
                    }
                });
                producers[p].start();
            }
            start.countDown();
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!raced.free() && System.nanoTime() - deadlineNs < 0)
            {
                Thread.onSpinWait();
            }
            for (final Thread producer : producers)
            {
                producer.join(TimeUnit.SECONDS.toMillis(10));
            }
            assertThat(raced.free()).isTrue();
            assertThat(written.get()).isLessThanOrEqualTo(4_000);
        }
    }

    @Test
    void shouldCountParkedBytesAgainstTheNodesBudget()
    {
        final MemoryBudget budget = new MemoryBudget(1000, 1000);
        final Outbound outbound = new Outbound(RING, RING, FRAME, counters.backPressureEvents, budget, RingPool.none(),
            EngineWake.NONE);

        outbound.addParkedBytes(600);
        assertThat(budget.used()).isEqualTo(600);
        assertThat(outbound.wouldExceedNodeMemory(400)).isFalse();
        assertThat(outbound.wouldExceedNodeMemory(401)).isTrue();
        outbound.addParkedBytes(-600);
        assertThat(budget.used()).isZero();
    }

    @Test
    void shouldGiveFreedRingsToThePoolAndReuseThemZeroedUpToItsBound()
    {
        final long[] nowNs = {0};
        final RingPool pool = new RingPool(RING, 1, () -> nowNs[0]);
        final Outbound first = new Outbound(RING, RING, FRAME, counters.backPressureEvents, MemoryBudget.unlimited(),
            pool, EngineWake.NONE);
        final Outbound second = new Outbound(RING, RING, FRAME, counters.backPressureEvents, MemoryBudget.unlimited(),
            pool, EngineWake.NONE);
        final java.nio.ByteBuffer memory = first.ring().buffer().byteBuffer();
        final int index = first.claim(64);
        first.ring().buffer().putLong(index, -1L);
        first.commit(index);

        assertThat(first.free()).isTrue();
        assertThat(second.free()).isTrue();
        assertThat(pool.idle()).as("one spare kept, the other freed").isEqualTo(1);

        final Outbound reused = new Outbound(RING, RING, FRAME, counters.backPressureEvents, MemoryBudget.unlimited(),
            pool, EngineWake.NONE);
        assertThat(reused.ring().buffer().byteBuffer()).isSameAs(memory);
        assertThat(reused.ring().size()).as("a reused ring starts empty").isZero();
        assertThat(reused.ring().buffer().getLong(index)).as("and zeroed").isZero();
        final int again = reused.claim(64);
        assertThat(again).isPositive();
        reused.commit(again);
        assertThat(reused.ring().read((type, buffer, offset, length) -> { })).isEqualTo(1);
        assertThat(pool.idle()).isZero();

        // A node that stopped churning frees its spares after a second.
        assertThat(reused.free()).isTrue();
        assertThat(pool.idle()).isEqualTo(1);
        nowNs[0] += TimeUnit.MILLISECONDS.toNanos(900);
        pool.trim(nowNs[0]);
        assertThat(pool.idle()).as("taken less than a second ago").isEqualTo(1);
        nowNs[0] += TimeUnit.MILLISECONDS.toNanos(200);
        pool.trim(nowNs[0]);
        assertThat(pool.idle()).isZero();
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
