package io.rivulet.transport.rdma;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Registered memory of one driver: a few large regions, registered once, carved into per-link stripes
 * (a send ring and the receive slots) and a user region for applications' zero-copy buffers.
 *
 * <p>Layout. Link memory comes in slabs, each one registered region holding {@code linksPerSlab}
 * stripes of {@link LinkLayout#stripeLength()} bytes:
 * <pre>
 *   slab:   | stripe 0 | stripe 1 | ... | stripe linksPerSlab-1 |
 *   stripe: | send ring (sendRingLength) | slot 0 | slot 1 | ... | slot R-1 |   (slots of receiveSlotLength)
 * </pre>
 * The first slab and the user region are registered when the pool is created, at driver start. A
 * further slab is registered only when every stripe is borrowed and a new link is being set up (control
 * plane), up to a fixed maximum of {@code maxLinks} stripes decided at start; a returned stripe is reused
 * and slabs stay registered until {@link #close()}. Nothing is registered while messages flow, which
 * {@link #registrations()} lets tests prove.
 *
 * <p>Threading: {@link #borrow()} and {@link #release(Stripe)} are called by the driver's conductor
 * thread only; {@link #allocate(int)} and {@link RegisteredBuffer#close()} by any thread (they
 * synchronise on the user region); the counters may be read by any thread.
 */
public final class MemoryPool implements AutoCloseable
{
    /** Alignment of each registered region: a page, as NICs translate memory by page. */
    public static final int REGION_ALIGNMENT = 4096;
    /** Alignment of buffers {@link #allocate(int)} returns. */
    public static final int USER_BUFFER_ALIGNMENT = 64;

    private final ProtectionDomain pd;
    private final LinkLayout layout;
    private final int linksPerSlab;
    private final int maxSlabs;
    private final ArrayList<MemoryRegion> slabs = new ArrayList<>();
    private final ArrayDeque<Stripe> freeStripes = new ArrayDeque<>();
    private final AtomicLong registrations = new AtomicLong();
    /** Node-file levels (regions and bytes registered now), or null when nobody reads them. */
    private final AtomicCounter liveRegionsCounter;
    private final AtomicCounter registeredBytesCounter;
    private final AtomicLong deregistrations = new AtomicLong();
    private final AtomicLong registeredBytes = new AtomicLong();
    private volatile int stripesInUse;
    private volatile boolean closed;

    private final MemoryRegion userRegion;
    private final UnsafeBuffer userBuffer;
    // Free extents of the user region, offset -> length, coalesced on release. Guarded by itself.
    private final TreeMap<Integer, Integer> userFree = new TreeMap<>();
    private long userBytesAllocated;

    /**
     * Registers the first slab and the user region.
     *
     * @param pd               the protection domain of the driver's queue pairs.
     * @param layout           the per-link sizes.
     * @param maxLinks         the most links that may hold memory at once; fixes the most slabs.
     * @param linksPerSlab     stripes per registered slab.
     * @param userRegionLength bytes of the user region, 0 for none.
     * @throws IOException when a registration fails.
     */
    public MemoryPool(
        final ProtectionDomain pd,
        final LinkLayout layout,
        final int maxLinks,
        final int linksPerSlab,
        final int userRegionLength) throws IOException
    {
        this(pd, layout, maxLinks, linksPerSlab, userRegionLength, null, null);
    }

    /**
     * Registers the first slab and the user region, and keeps two node-file counters current as regions are
     * registered and deregistered.
     *
     * @param liveRegionsCounter level of regions registered now ({@code CounterTypes.RDMA_REGISTRATIONS}), or null.
     * @param registeredBytesCounter level of bytes registered now ({@code CounterTypes.RDMA_REGISTERED_BYTES}), or null.
     * @see #MemoryPool(ProtectionDomain, LinkLayout, int, int, int)
     */
    public MemoryPool(
        final ProtectionDomain pd,
        final LinkLayout layout,
        final int maxLinks,
        final int linksPerSlab,
        final int userRegionLength,
        final AtomicCounter liveRegionsCounter,
        final AtomicCounter registeredBytesCounter) throws IOException
    {
        this.liveRegionsCounter = liveRegionsCounter;
        this.registeredBytesCounter = registeredBytesCounter;
        if (maxLinks < 1 || linksPerSlab < 1)
        {
            throw new IllegalArgumentException("maxLinks and linksPerSlab must be positive: " + maxLinks + ", " +
                linksPerSlab);
        }
        if (userRegionLength < 0)
        {
            throw new IllegalArgumentException("userRegionLength must not be negative: " + userRegionLength);
        }
        if ((long)linksPerSlab * layout.stripeLength() > Integer.MAX_VALUE - REGION_ALIGNMENT)
        {
            throw new IllegalArgumentException("a slab of " + linksPerSlab + " links of " + layout.stripeLength() +
                " bytes exceeds 2 GiB");
        }

        this.pd = pd;
        this.layout = layout;
        this.linksPerSlab = Math.min(linksPerSlab, maxLinks);
        this.maxSlabs = (maxLinks + this.linksPerSlab - 1) / this.linksPerSlab;

        try
        {
            registerSlab();
            if (userRegionLength > 0)
            {
                final int length = BitUtil.align(userRegionLength, USER_BUFFER_ALIGNMENT);
                userRegion = register(length, Access.LOCAL_WRITE);
                userBuffer = new UnsafeBuffer(userRegion.buffer(), 0, length);
                userFree.put(0, length);
            }
            else
            {
                userRegion = null;
                userBuffer = null;
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    /**
     * Lends a stripe to a new link, registering a further slab if all are lent and the maximum allows.
     * Conductor thread only; control plane.
     *
     * @return the stripe, exclusively the caller's until {@link #release(Stripe)}.
     * @throws IOException when all {@code maxLinks} stripes are lent or a registration fails.
     */
    public Stripe borrow() throws IOException
    {
        if (closed)
        {
            throw new IOException("memory pool is closed");
        }
        if (freeStripes.isEmpty())
        {
            if (slabs.size() >= maxSlabs)
            {
                throw new IOException("registered memory for links exhausted: all " + maxLinks() +
                    " links in use (raise rivulet.rdma.maxLinks)");
            }
            registerSlab();
        }

        final Stripe stripe = freeStripes.pollFirst();
        stripe.inUse = true;
        stripesInUse++;

        return stripe;
    }

    /**
     * Takes back a stripe once its link's queue pair is destroyed (the device no longer touches it).
     * Conductor thread only. Releasing twice is ignored.
     *
     * @param stripe from {@link #borrow()}.
     */
    public void release(final Stripe stripe)
    {
        if (stripe.pool != this)
        {
            throw new IllegalArgumentException("stripe from another pool");
        }
        if (stripe.inUse)
        {
            stripe.inUse = false;
            stripesInUse--;
            // Most recently used first: its pages are the warmest.
            freeStripes.addFirst(stripe);
        }
    }

    /**
     * Carves a buffer out of the registered user region for zero-copy sends; the device may read it
     * with {@link RegisteredBuffer#lkey()}. Any thread; not for the per-message path (allocate once,
     * reuse the buffer).
     *
     * @param length bytes wanted, at least 1.
     * @return the buffer, {@link #USER_BUFFER_ALIGNMENT}-aligned, to {@link RegisteredBuffer#close()}
     * when done.
     * @throws IllegalStateException when the pool has no user region room left for it, or is closed.
     */
    public RegisteredBuffer allocate(final int length)
    {
        if (length < 1)
        {
            throw new IllegalArgumentException("length must be positive: " + length);
        }
        if (null == userRegion)
        {
            throw new IllegalStateException("no user region (rivulet.rdma.userRegionLength is 0)");
        }
        if (length > Integer.MAX_VALUE - USER_BUFFER_ALIGNMENT)
        {
            throw new IllegalStateException("cannot allocate " + length + " bytes");
        }

        final int aligned = BitUtil.align(length, USER_BUFFER_ALIGNMENT);
        synchronized (userFree)
        {
            if (closed)
            {
                throw new IllegalStateException("memory pool is closed");
            }
            for (final Map.Entry<Integer, Integer> extent : userFree.entrySet())
            {
                final int offset = extent.getKey();
                final int extentLength = extent.getValue();
                if (extentLength >= aligned)
                {
                    userFree.remove(offset);
                    if (extentLength > aligned)
                    {
                        userFree.put(offset + aligned, extentLength - aligned);
                    }
                    userBytesAllocated += aligned;

                    return new RegisteredBuffer(this, new UnsafeBuffer(userBuffer, offset, length),
                        userRegion.address() + offset, offset, aligned, userRegion.lkey(), userRegion.rkey());
                }
            }
        }

        throw new IllegalStateException("user region of " + userRegion.length() + " bytes has no free " + aligned +
            " bytes (raise rivulet.rdma.userRegionLength)");
    }

    /** @return registrations made since the pool was created (slabs and user region). */
    public long registrations()
    {
        return registrations.get();
    }

    /** @return registrations made and not yet released. */
    public long liveRegistrations()
    {
        return registrations.get() - deregistrations.get();
    }

    /** @return bytes registered and not yet released. */
    public long registeredBytes()
    {
        return registeredBytes.get();
    }

    /** @return stripes lent to links now. */
    public int linksInUse()
    {
        return stripesInUse;
    }

    /** @return the most links that can hold memory at once. */
    public int maxLinks()
    {
        return maxSlabs * linksPerSlab;
    }

    /** @return slabs registered so far. */
    public int slabCount()
    {
        synchronized (slabs)
        {
            return slabs.size();
        }
    }

    /** @return bytes of the user region handed out by {@link #allocate(int)} and not yet returned. */
    public long userBytesAllocated()
    {
        synchronized (userFree)
        {
            return userBytesAllocated;
        }
    }

    /** @return the per-link sizes. */
    public LinkLayout layout()
    {
        return layout;
    }

    /**
     * Deregisters every region. Call after every queue pair using them is destroyed. Idempotent.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }

        synchronized (userFree)
        {
            closed = true;
        }
        freeStripes.clear();
        synchronized (slabs)
        {
            for (final MemoryRegion slab : slabs)
            {
                deregister(slab);
            }
            slabs.clear();
        }
        if (null != userRegion)
        {
            deregister(userRegion);
        }
    }

    @Override
    public String toString()
    {
        return "MemoryPool{slabs=" + slabCount() + "/" + maxSlabs + ", linksInUse=" + stripesInUse +
            ", registrations=" + registrations() + ", live=" + liveRegistrations() + "}";
    }

    void releaseUser(final RegisteredBuffer buffer)
    {
        synchronized (userFree)
        {
            if (closed)
            {
                return;
            }
            int offset = buffer.regionOffset();
            int length = buffer.reservedLength();
            userBytesAllocated -= length;

            final Map.Entry<Integer, Integer> before = userFree.floorEntry(offset);
            if (null != before && before.getKey() + before.getValue() == offset)
            {
                userFree.remove(before.getKey());
                offset = before.getKey();
                length += before.getValue();
            }
            final Integer afterLength = userFree.get(offset + length);
            if (null != afterLength)
            {
                userFree.remove(offset + length);
                length += afterLength;
            }
            userFree.put(offset, length);
        }
    }

    private void registerSlab() throws IOException
    {
        final int stripeLength = layout.stripeLength();
        final MemoryRegion region = register(linksPerSlab * stripeLength, Access.LOCAL_WRITE);
        synchronized (slabs)
        {
            slabs.add(region);
        }

        final ByteBuffer buffer = region.buffer();
        for (int i = 0; i < linksPerSlab; i++)
        {
            final int offset = i * stripeLength;
            freeStripes.addLast(new Stripe(this, region, buffer, offset, layout));
        }
    }

    private MemoryRegion register(final int length, final int access) throws IOException
    {
        final ByteBuffer buffer = BufferUtil.allocateDirectAligned(length, REGION_ALIGNMENT);
        final MemoryRegion region = pd.register(buffer, access);
        registrations.incrementAndGet();
        registeredBytes.addAndGet(length);
        if (liveRegionsCounter != null)
        {
            liveRegionsCounter.increment();
            registeredBytesCounter.getAndAdd(length);
        }

        return region;
    }

    private void deregister(final MemoryRegion region)
    {
        try
        {
            region.close();
        }
        catch (final RuntimeException ignore)
        {
            // The keys are useless either way; nothing the caller could do.
        }
        deregistrations.incrementAndGet();
        registeredBytes.addAndGet(-region.length());
        if (liveRegionsCounter != null)
        {
            liveRegionsCounter.getAndAdd(-1);
            registeredBytesCounter.getAndAdd(-region.length());
        }
    }

    /**
     * One link's share of a slab: its send ring and its receive slots, with the addresses and key work
     * requests name them by. Owned by one link between {@link #borrow()} and {@link #release(Stripe)}.
     */
    public static final class Stripe
    {
        private final MemoryPool pool;
        private final MemoryRegion region;
        private final int regionOffset;
        private final UnsafeBuffer sendRing;
        private final long sendRingAddress;
        private final UnsafeBuffer receiveArea;
        private final long receiveAreaAddress;
        private boolean inUse;

        Stripe(
            final MemoryPool pool,
            final MemoryRegion region,
            final ByteBuffer buffer,
            final int regionOffset,
            final LinkLayout layout)
        {
            this.pool = pool;
            this.region = region;
            this.regionOffset = regionOffset;
            sendRing = new UnsafeBuffer(buffer, regionOffset, layout.sendRingLength());
            sendRingAddress = region.address() + regionOffset;
            final int receiveOffset = regionOffset + layout.sendRingLength();
            receiveArea = new UnsafeBuffer(buffer, receiveOffset, layout.receiveAreaLength());
            receiveAreaAddress = region.address() + receiveOffset;
        }

        /** @return a view of the send ring. */
        public UnsafeBuffer sendRing()
        {
            return sendRing;
        }

        /** @return the device address of the send ring's first byte. */
        public long sendRingAddress()
        {
            return sendRingAddress;
        }

        /** @return a view of the receive slots, back to back. */
        public UnsafeBuffer receiveArea()
        {
            return receiveArea;
        }

        /** @return the device address of the first receive slot. */
        public long receiveAreaAddress()
        {
            return receiveAreaAddress;
        }

        /** @return the local key of the slab. */
        public int lkey()
        {
            return region.lkey();
        }

        /** @return where the stripe starts in its slab. */
        public int regionOffset()
        {
            return regionOffset;
        }
    }
}
