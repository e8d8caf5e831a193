package io.rivulet.protocol;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ReassemblyPoolTest
{
    private static final int MAX_LENGTH = 64 * 1024;

    private long nowNs = TimeUnit.SECONDS.toNanos(1000);

    private ReassemblyPool pool(final int maxLength, final long maxIdleBytes)
    {
        return new ReassemblyPool(maxLength, maxIdleBytes, () -> nowNs);
    }

    @Test
    void shouldSizeBuffersInPowersOfTwoFromTheSmallestUpToTheMaximumLength()
    {
        final ReassemblyPool pool = pool(MAX_LENGTH, 1 << 20);

        assertThat(pool.capacityFor(1)).isEqualTo(256);
        assertThat(pool.capacityFor(256)).isEqualTo(256);
        assertThat(pool.capacityFor(257)).isEqualTo(512);
        assertThat(pool.capacityFor(5000)).isEqualTo(8192);
        assertThat(pool.capacityFor(32 * 1024 + 1)).isEqualTo(MAX_LENGTH);
        assertThat(pool.capacityFor(MAX_LENGTH)).isEqualTo(MAX_LENGTH);
        assertThat(pool.capacityFor(MAX_LENGTH + 1)).as("beyond the maximum: exactly what is asked")
            .isEqualTo(MAX_LENGTH + 1);
    }

    @Test
    void shouldEndWithTheMaximumLengthWhenItIsNotAPowerOfTwo()
    {
        final ReassemblyPool pool = pool(10_000, 1 << 20);
        assertThat(pool.capacityFor(5000)).isEqualTo(8192);
        assertThat(pool.capacityFor(8193)).isEqualTo(10_000);

        final ByteBuffer last = pool.take(10_000);
        pool.give(last, 0);
        assertThat(pool.take(10_000)).as("the last class is kept like the others").isSameAs(last);

        final ReassemblyPool tiny = pool(100, 1 << 20);
        assertThat(tiny.capacityFor(1)).as("a maximum below the smallest class is the only class").isEqualTo(100);
        final ByteBuffer only = tiny.take(100);
        tiny.give(only, 0);
        assertThat(tiny.take(100)).isSameAs(only);
    }

    @Test
    void shouldReuseAGivenArrayForItsOwnClassOnly()
    {
        final ReassemblyPool pool = pool(MAX_LENGTH, 1 << 20);
        final ByteBuffer small = pool.take(256);
        final ByteBuffer large = pool.take(4096);
        pool.give(small, 0);
        pool.give(large, 0);
        assertThat(pool.idle()).isEqualTo(2);
        assertThat(pool.idleBytes()).isEqualTo(256 + 4096);

        final ByteBuffer middle = pool.take(1024);
        assertThat(middle).as("an empty class allocates").isNotSameAs(small).isNotSameAs(large);
        assertThat(middle.capacity()).isEqualTo(1024);
        assertThat(middle.isDirect()).as("outside the heap").isTrue();
        assertThat(pool.take(4096)).isSameAs(large);
        assertThat(pool.take(256)).isSameAs(small);
        assertThat(pool.idle()).isZero();
        assertThat(pool.idleBytes()).isZero();
    }

    @Test
    void shouldLeaveToGcWhatIsBeyondTheCapOrOfNoClass()
    {
        final ReassemblyPool pool = pool(MAX_LENGTH, 8192);
        final ByteBuffer first = pool.take(4096);
        final ByteBuffer second = pool.take(4096);
        final ByteBuffer third = pool.take(4096);
        pool.give(first, 0);
        pool.give(second, 0);
        pool.give(third, 0);
        assertThat(pool.idleBytes()).as("two fill the cap, the third is dropped").isEqualTo(8192);

        final ReassemblyPool roomy = pool(MAX_LENGTH, 1 << 20);
        roomy.give(ByteBuffer.allocateDirect(1000), 0);
        roomy.give(ByteBuffer.allocateDirect(128), 0);
        roomy.give(ByteBuffer.allocateDirect(2 * MAX_LENGTH), 0);
        roomy.give(ByteBuffer.allocateDirect(0), 0);
        assertThat(roomy.idle()).as("lengths that are no class").isZero();

        final ReassemblyPool none = pool(MAX_LENGTH, 0);
        none.give(none.take(256), 0);
        assertThat(none.idle()).as("a cap of zero keeps nothing").isZero();
    }

    @Test
    void shouldHandOutOnlyZeroedArrays()
    {
        final ReassemblyPool pool = pool(MAX_LENGTH, 1 << 20);
        final ByteBuffer used = pool.take(1024);
        new UnsafeBuffer(used).setMemory(0, 700, (byte)0x5A);
        pool.give(used, 700);

        final ByteBuffer reused = pool.take(1024);

        assertThat(reused).isSameAs(used);
        final byte[] contents = new byte[reused.capacity()];
        new UnsafeBuffer(reused).getBytes(0, contents);
        assertThat(contents).as("the previous holder's bytes are cleared").containsOnly((byte)0);
    }

    @Test
    void shouldFreeWhatItDoesNotKeep()
    {
        final int length = 16 << 20; // large enough that nothing else in the JVM hides the difference
        final ReassemblyPool pool = pool(length, length);
        final ByteBuffer kept = pool.take(length);
        final ByteBuffer beyondTheCap = pool.take(length);
        final ByteBuffer ofNoClass = ByteBuffer.allocateDirect(length - 1);
        final long before = directMemoryUsed();

        pool.give(kept, 0);
        pool.give(beyondTheCap, 0);
        pool.give(ofNoClass, 0);
        final long afterGiving = directMemoryUsed();
        pool.freeSpares();
        final long afterClosing = directMemoryUsed();

        assertThat(before - afterGiving).as("beyond the cap and of no class: freed at once, not left to the collector")
            .isEqualTo(2L * length - 1);
        assertThat(before - afterClosing).as("the node closing frees the spare too").isEqualTo(3L * length - 1);
        assertThat(pool.idle()).isZero();
        assertThat(pool.idleBytes()).isZero();
    }

    @Test
    void shouldAnswerNullWhenTheJvmHasNoDirectMemoryLeft() throws ReflectiveOperationException
    {
        // The limit, as the JDK applies it (the build's argLine opens jdk.internal.misc); a take of more than half of
        // it cannot succeed twice. The test really exhausts direct memory, so it runs only where the limit is small,
        // as in the build (-XX:MaxDirectMemorySize=2g): on a large machine without the flag it would touch gigabytes.
        final long limit = (long)Class.forName("jdk.internal.misc.VM").getMethod("maxDirectMemory").invoke(null);
        assumeTrue(limit <= 2L << 30, "direct memory limit " + limit + " > 2 GiB: run with -XX:MaxDirectMemorySize=2g");
        final int chunk = (int)(limit / 2 + (1 << 20));
        final ReassemblyPool pool = pool(Integer.MAX_VALUE - 8, 0);
        final ByteBuffer[] held = new ByteBuffer[2];
        ByteBuffer taken = null;
        int count = 0;
        try
        {
            // An OutOfMemoryError the pool turns into null, after the JDK's own collection and retries; Reassembly
            // refuses the growth with it.
            while (count < held.length && (taken = pool.take(chunk)) != null)
            {
                held[count++] = taken;
            }
            assertThat(taken).as("a take past the JVM's direct memory limit").isNull();
            assertThat(count).isLessThanOrEqualTo(1);
        }
        finally
        {
            for (int i = 0; i < count; i++)
            {
                BufferUtil.free(held[i]);
            }
        }
    }

    /** @return the JVM's direct memory in use: what freeing a direct buffer gives back. */
    private static long directMemoryUsed()
    {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(pool -> "direct".equals(pool.getName())).findFirst().orElseThrow().getMemoryUsed();
    }

    @Test
    void shouldDropTheSparesOnceNoneWasTakenForASecond()
    {
        final ReassemblyPool pool = pool(MAX_LENGTH, 1 << 20);
        pool.give(pool.take(512), 0);
        pool.give(pool.take(8192), 0);

        nowNs += TimeUnit.MILLISECONDS.toNanos(900);
        pool.trim(nowNs);
        assertThat(pool.idle()).as("taken within the second: kept").isEqualTo(2);

        final ByteBuffer taken = pool.take(512);
        pool.give(taken, 0);
        nowNs += TimeUnit.MILLISECONDS.toNanos(900);
        pool.trim(nowNs);
        assertThat(pool.idle()).as("a take restarts the second").isEqualTo(2);

        nowNs += TimeUnit.MILLISECONDS.toNanos(200);
        pool.trim(nowNs);
        assertThat(pool.idle()).isZero();
        assertThat(pool.idleBytes()).isZero();
        assertThat(pool.take(512)).as("dropped spares are not handed out again").isNotSameAs(taken);
    }

    @Test
    void shouldKeepASmallShareOfTheNodesBudgetAtMostFourMebibytes()
    {
        final ReassemblyPool small = ReassemblyPool.forNode(MAX_LENGTH, 64 * 4096, () -> nowNs);
        final ReassemblyPool large = ReassemblyPool.forNode(MAX_LENGTH, 1L << 40, () -> nowNs);
        for (int i = 0; i < 2048; i++)
        {
            small.give(ByteBuffer.allocateDirect(4096), 0);
            large.give(ByteBuffer.allocateDirect(4096), 0);
        }

        assertThat(small.idleBytes()).isEqualTo(4096);
        assertThat(large.idleBytes()).isEqualTo(ReassemblyPool.MAX_IDLE_BYTES);
    }
}
