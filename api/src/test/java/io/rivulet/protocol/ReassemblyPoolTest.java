package io.rivulet.protocol;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

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

        final byte[] last = pool.take(10_000);
        pool.give(last, 0);
        assertThat(pool.take(10_000)).as("the last class is kept like the others").isSameAs(last);

        final ReassemblyPool tiny = pool(100, 1 << 20);
        assertThat(tiny.capacityFor(1)).as("a maximum below the smallest class is the only class").isEqualTo(100);
        final byte[] only = tiny.take(100);
        tiny.give(only, 0);
        assertThat(tiny.take(100)).isSameAs(only);
    }

    @Test
    void shouldReuseAGivenArrayForItsOwnClassOnly()
    {
        final ReassemblyPool pool = pool(MAX_LENGTH, 1 << 20);
        final byte[] small = pool.take(256);
        final byte[] large = pool.take(4096);
        pool.give(small, 0);
        pool.give(large, 0);
        assertThat(pool.idle()).isEqualTo(2);
        assertThat(pool.idleBytes()).isEqualTo(256 + 4096);

        final byte[] middle = pool.take(1024);
        assertThat(middle).as("an empty class allocates").isNotSameAs(small).isNotSameAs(large).hasSize(1024);
        assertThat(pool.take(4096)).isSameAs(large);
        assertThat(pool.take(256)).isSameAs(small);
        assertThat(pool.idle()).isZero();
        assertThat(pool.idleBytes()).isZero();
    }

    @Test
    void shouldLeaveToGcWhatIsBeyondTheCapOrOfNoClass()
    {
        final ReassemblyPool pool = pool(MAX_LENGTH, 8192);
        final byte[] first = pool.take(4096);
        final byte[] second = pool.take(4096);
        final byte[] third = pool.take(4096);
        pool.give(first, 0);
        pool.give(second, 0);
        pool.give(third, 0);
        assertThat(pool.idleBytes()).as("two fill the cap, the third is dropped").isEqualTo(8192);

        final ReassemblyPool roomy = pool(MAX_LENGTH, 1 << 20);
        roomy.give(new byte[1000], 0);
        roomy.give(new byte[128], 0);
        roomy.give(new byte[2 * MAX_LENGTH], 0);
        roomy.give(new byte[0], 0);
        assertThat(roomy.idle()).as("lengths that are no class").isZero();

        final ReassemblyPool none = pool(MAX_LENGTH, 0);
        none.give(none.take(256), 0);
        assertThat(none.idle()).as("a cap of zero keeps nothing").isZero();
    }

    @Test
    void shouldHandOutOnlyZeroedArrays()
    {
        final ReassemblyPool pool = pool(MAX_LENGTH, 1 << 20);
        final byte[] used = pool.take(1024);
        Arrays.fill(used, 0, 700, (byte)0x5A);
        pool.give(used, 700);

        final byte[] reused = pool.take(1024);

        assertThat(reused).isSameAs(used);
        assertThat(reused).as("the previous holder's bytes are cleared").containsOnly((byte)0);
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

        final byte[] taken = pool.take(512);
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
            small.give(new byte[4096], 0);
            large.give(new byte[4096], 0);
        }

        assertThat(small.idleBytes()).isEqualTo(4096);
        assertThat(large.idleBytes()).isEqualTo(ReassemblyPool.MAX_IDLE_BYTES);
    }
}
