package io.rivulet.transport.rdma;

import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link MemoryPool} over a counting protection domain: what is registered when, stripes lent and
 * reused, the user region's allocator.
 */
class MemoryPoolTest
{
    private static final LinkLayout LAYOUT = new LinkLayout(1024, 16 * 1024, 8 * 1088);

    private final CountingProtectionDomain pd = new CountingProtectionDomain();

    @Test
    void shouldRegisterFirstSlabAndUserRegionAtStart() throws IOException
    {
        try (MemoryPool pool = new MemoryPool(pd, LAYOUT, 8, 4, 64 * 1024))
        {
            assertThat(pool.registrations()).isEqualTo(2);
            assertThat(pool.liveRegistrations()).isEqualTo(2);
            assertThat(pd.registered).hasSize(2);
            assertThat(pool.slabCount()).isEqualTo(1);
            assertThat(pool.registeredBytes()).isEqualTo(4L * LAYOUT.stripeLength() + 64 * 1024);
            assertThat(pool.maxLinks()).isEqualTo(8);
        }
        assertThat(pd.live()).isZero();
    }

    @Test
    void shouldReuseReturnedStripesWithoutRegistering() throws IOException
    {
        try (MemoryPool pool = new MemoryPool(pd, LAYOUT, 8, 4, 0))
        {
            assertThat(pool.registrations()).isEqualTo(1);
            for (int i = 0; i < 10_000; i++)
            {
                final MemoryPool.Stripe stripe = pool.borrow();
                pool.release(stripe);
            }
            assertThat(pool.registrations()).isEqualTo(1);
            assertThat(pool.linksInUse()).isZero();
        }
    }

    @Test
    void shouldGrowBySlabUpToTheMaximumThenRefuse() throws IOException
    {
        try (MemoryPool pool = new MemoryPool(pd, LAYOUT, 8, 4, 0))
        {
            final List<MemoryPool.Stripe> stripes = new ArrayList<>();
            for (int i = 0; i < 8; i++)
            {
                stripes.add(pool.borrow());
            }
            assertThat(pool.registrations()).isEqualTo(2);
            assertThat(pool.linksInUse()).isEqualTo(8);
            assertThatThrownBy(pool::borrow).isInstanceOf(IOException.class).hasMessageContaining("rivulet.rdma.maxLinks");

            final Set<Long> addresses = new HashSet<>();
            for (final MemoryPool.Stripe stripe : stripes)
            {
                assertThat(addresses.add(stripe.sendRingAddress())).isTrue();
                assertThat(stripe.receiveAreaAddress() - stripe.sendRingAddress()).isEqualTo(LAYOUT.sendRingLength());
                assertThat(stripe.sendRing().capacity()).isEqualTo(LAYOUT.sendRingLength());
                assertThat(stripe.receiveArea().capacity()).isEqualTo(LAYOUT.receiveAreaLength());
                assertThat(stripe.sendRingAddress() % LinkLayout.ALIGNMENT).isZero();
            }

            pool.release(stripes.get(3));
            pool.release(stripes.get(3));
            assertThat(pool.linksInUse()).isEqualTo(7);
            assertThat(pool.borrow()).isSameAs(stripes.get(3));
            assertThat(pool.registrations()).isEqualTo(2);
        }
        assertThat(pd.live()).isZero();
    }

    @Test
    void shouldCarveAlignedUserBuffersAndCoalesceOnRelease() throws IOException
    {
        try (MemoryPool pool = new MemoryPool(pd, LAYOUT, 4, 4, 4096))
        {
            final RegisteredBuffer a = pool.allocate(100);
            final RegisteredBuffer b = pool.allocate(1000);
            final RegisteredBuffer c = pool.allocate(64);
            assertThat(a.length()).isEqualTo(100);
            assertThat(a.address() % MemoryPool.USER_BUFFER_ALIGNMENT).isZero();
            assertThat(b.address() - a.address()).isEqualTo(128);
            assertThat(c.address() - b.address()).isEqualTo(1024);
            assertThat(pool.userBytesAllocated()).isEqualTo(128 + 1024 + 64);

            a.buffer().putLong(0, 42L);
            assertThat(a.buffer().getLong(0)).isEqualTo(42L);
            assertThatThrownBy(() -> pool.allocate(4096)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("rivulet.rdma.userRegionLength");

            b.close();
            a.close();
            a.close();
            // a and b coalesced: 1152 contiguous bytes at the start again.
            final RegisteredBuffer d = pool.allocate(1152);
            assertThat(d.address()).isEqualTo(a.address());
            c.close();
            d.close();
            assertThat(pool.userBytesAllocated()).isZero();
            assertThat(pool.allocate(4096).length()).isEqualTo(4096);
            assertThat(pool.registrations()).isEqualTo(2);
        }
    }

    @Test
    void shouldRefuseAllocateWithoutUserRegion() throws IOException
    {
        try (MemoryPool pool = new MemoryPool(pd, LAYOUT, 4, 4, 0))
        {
            assertThatThrownBy(() -> pool.allocate(8)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> pool.allocate(0)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void shouldDeriveLayoutFromSettings()
    {
        assertThat(LAYOUT.receiveSlotLength()).isEqualTo(1088);
        assertThat(LAYOUT.receiveCount()).isEqualTo(8);
        assertThat(LAYOUT.creditReturnThreshold()).isEqualTo(4);
        assertThat(LAYOUT.sendRingLength()).isEqualTo(16 * 1024);
        assertThat(LAYOUT.maxSendWorkRequests()).isEqualTo(16);

        final LinkLayout tiny = new LinkLayout(1024, 1032, 1032);
        assertThat(tiny.receiveCount()).isEqualTo(LinkLayout.MIN_RECEIVE_COUNT);
        assertThat(tiny.sendRingLength()).isEqualTo(2 * 1088);
    }

    /** Registers nothing on a device; counts and hands out fake addresses. */
    static final class CountingProtectionDomain implements ProtectionDomain
    {
        final List<FakeRegion> registered = new ArrayList<>();

        @Override
        public MemoryRegion register(final ByteBuffer buffer, final int access)
        {
            final FakeRegion region = new FakeRegion(buffer, access);
            registered.add(region);
            return region;
        }

        int live()
        {
            int live = 0;
            for (final FakeRegion region : registered)
            {
                live += region.closed ? 0 : 1;
            }
            return live;
        }

        @Override
        public void close()
        {
        }
    }

    static final class FakeRegion implements MemoryRegion
    {
        private final ByteBuffer buffer;
        private final int access;
        boolean closed;

        FakeRegion(final ByteBuffer buffer, final int access)
        {
            this.buffer = buffer;
            this.access = access;
        }

        @Override
        public ByteBuffer buffer()
        {
            return buffer;
        }

        @Override
        public long address()
        {
            return BufferUtil.address(buffer);
        }

        @Override
        public int length()
        {
            return buffer.capacity();
        }

        @Override
        public int lkey()
        {
            return 1;
        }

        @Override
        public int rkey()
        {
            return 2;
        }

        @Override
        public int access()
        {
            return access;
        }

        @Override
        public void close()
        {
            closed = true;
        }
    }
}
