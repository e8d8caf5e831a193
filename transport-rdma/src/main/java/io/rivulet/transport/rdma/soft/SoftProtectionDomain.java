package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.agrona.BufferUtil;
import org.agrona.collections.Int2ObjectHashMap;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A protection domain: the registrations its queue pairs may name by lkey (local) and rkey (remote).
 *
 * <p>Thread-safe. Registration is rare and copies the key tables (copy on write), so the soft NIC looks
 * keys up without locks or allocation.
 */
final class SoftProtectionDomain implements ProtectionDomain
{
    private static final int KNOWN_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ |
        Access.REMOTE_ATOMIC;

    private final SoftVerbsContext context;
    private volatile Int2ObjectHashMap<SoftMemoryRegion> byLkey = new Int2ObjectHashMap<>();
    private volatile Int2ObjectHashMap<SoftMemoryRegion> byRkey = new Int2ObjectHashMap<>();
    private volatile SoftMemoryRegion[] regions = new SoftMemoryRegion[0];
    private boolean closed;

    SoftProtectionDomain(final SoftVerbsContext context)
    {
        this.context = context;
    }

    SoftVerbsContext context()
    {
        return context;
    }

    @Override
    public synchronized MemoryRegion register(final ByteBuffer buffer, final int access) throws IOException
    {
        if (closed)
        {
            throw new VerbsException("protection domain closed");
        }
        if (buffer == null || !buffer.isDirect())
        {
            throw new VerbsException("only direct buffers can be registered");
        }
        if (buffer.capacity() == 0)
        {
            throw new VerbsException("cannot register an empty buffer");
        }
        if ((access & ~KNOWN_ACCESS) != 0)
        {
            throw new VerbsException("unknown access bits: 0x" + Integer.toHexString(access));
        }
        if ((access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 && !Access.allows(access, Access.LOCAL_WRITE))
        {
            // ibv_reg_mr fails with EINVAL here too.
            throw new VerbsException("REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE (as ibv_reg_mr requires)");
        }
        if (buffer.isReadOnly() && (access & (Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0)
        {
            throw new VerbsException("a read-only buffer cannot be registered for writing");
        }

        final int lkey = context.nextKey();
        final int rkey = remoteKeyOf(lkey);
        final SoftMemoryRegion region = new SoftMemoryRegion(
            this, buffer, BufferUtil.address(buffer), buffer.capacity(), lkey, rkey, access);

        final Int2ObjectHashMap<SoftMemoryRegion> newByLkey = new Int2ObjectHashMap<>(byLkey);
        final Int2ObjectHashMap<SoftMemoryRegion> newByRkey = new Int2ObjectHashMap<>(byRkey);
        newByLkey.put(lkey, region);
        newByRkey.put(rkey, region);
        final SoftMemoryRegion[] newRegions = Arrays.copyOf(regions, regions.length + 1);
        newRegions[regions.length] = region;
        byLkey = newByLkey;
        byRkey = newByRkey;
        regions = newRegions;
        context.onRegistered();

        return region;
    }

    synchronized void deregister(final SoftMemoryRegion region)
    {
        if (byLkey.get(region.lkey()) != region)
        {
            return;
        }
        final Int2ObjectHashMap<SoftMemoryRegion> newByLkey = new Int2ObjectHashMap<>(byLkey);
        final Int2ObjectHashMap<SoftMemoryRegion> newByRkey = new Int2ObjectHashMap<>(byRkey);
        newByLkey.remove(region.lkey());
        newByRkey.remove(region.rkey());
        final SoftMemoryRegion[] newRegions = new SoftMemoryRegion[regions.length - 1];
        int i = 0;
        for (final SoftMemoryRegion r : regions)
        {
            if (r != region)
            {
                newRegions[i++] = r;
            }
        }
        byLkey = newByLkey;
        byRkey = newByRkey;
        regions = newRegions;
        context.onDeregistered();
    }

    /** @return the live region with this lkey, or null. */
    SoftMemoryRegion local(final int lkey)
    {
        return byLkey.get(lkey);
    }

    /** @return the live region with this rkey, or null. */
    SoftMemoryRegion remote(final int rkey)
    {
        return byRkey.get(rkey);
    }

    /** @return true when {@code [address, address + length)} lies in one live region of this domain. */
    boolean isRegistered(final long address, final long length)
    {
        for (final SoftMemoryRegion region : regions)
        {
            if (region.contains(address, length))
            {
                return true;
            }
        }
        return false;
    }

    /** @return live registrations in this domain. */
    int registrations()
    {
        return regions.length;
    }

    /**
     * A bijection, so rkeys are as unique as lkeys but differ from them: code that sends its lkey where
     * the rkey belongs fails here as it would on most hardware.
     */
    static int remoteKeyOf(final int lkey)
    {
        return (lkey * 0x9E3779B1) ^ 0x5BD1E995;
    }

    @Override
    public void close()
    {
        final SoftMemoryRegion[] remaining;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            remaining = regions;
        }
        for (final SoftMemoryRegion region : remaining)
        {
            region.close();
        }
        context.onProtectionDomainClosed(this);
    }
}
