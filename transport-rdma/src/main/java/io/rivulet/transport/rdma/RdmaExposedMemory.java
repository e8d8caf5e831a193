package io.rivulet.transport.rdma;

import io.rivulet.spi.ExposedMemory;
import io.rivulet.spi.OneSidedTransport;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import org.agrona.BufferUtil;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The memory of one exposed region: page-aligned, registered on its own with exactly the remote access asked for,
 * so that the NIC refuses everything else and deregistering kills exactly this region's rkey. Closing deregisters;
 * the buffer stays readable locally.
 */
final class RdmaExposedMemory implements ExposedMemory
{
    /** Page alignment, so a region shares no page with other registrations. */
    static final int ALIGNMENT = 4096;

    private final RdmaOneSided owner;
    private final ByteBuffer buffer;
    private final MemoryRegion region;
    private boolean closed;

    private RdmaExposedMemory(final RdmaOneSided owner, final ByteBuffer buffer, final MemoryRegion region)
    {
        this.owner = owner;
        this.buffer = buffer;
        this.region = region;
    }

    static RdmaExposedMemory register(final RdmaOneSided owner, final ProtectionDomain pd, final int length,
        final int access) throws IOException
    {
        final ByteBuffer buffer = BufferUtil.allocateDirectAligned(length, ALIGNMENT);
        return new RdmaExposedMemory(owner, buffer, pd.register(buffer, verbsAccess(access)));
    }

    /** Remote write and atomics need local write as well (ibverbs); a read-only region gets remote read alone. */
    static int verbsAccess(final int access)
    {
        int flags = 0;
        if ((access & OneSidedTransport.READ) != 0)
        {
            flags |= Access.REMOTE_READ;
        }
        if ((access & OneSidedTransport.WRITE) != 0)
        {
            flags |= Access.REMOTE_WRITE | Access.LOCAL_WRITE;
        }
        if ((access & OneSidedTransport.ATOMIC) != 0)
        {
            flags |= Access.REMOTE_ATOMIC | Access.LOCAL_WRITE;
        }
        return flags;
    }

    @Override
    public ByteBuffer buffer()
    {
        return buffer;
    }

    @Override
    public long address()
    {
        return region.address();
    }

    @Override
    public int rkey()
    {
        return region.rkey();
    }

    /** @return the access flags the memory is registered with. */
    int registeredAccess()
    {
        return region.access();
    }

    @Override
    public void close()
    {
        synchronized (owner)
        {
            if (!closed)
            {
                closed = true;
                owner.onClosed(this);
                region.close();
            }
        }
    }
}
