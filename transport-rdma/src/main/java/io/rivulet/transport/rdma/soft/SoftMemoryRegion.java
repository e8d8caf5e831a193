package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.MemoryRegion;

import java.nio.ByteBuffer;

/**
 * A registered direct buffer. The region holds the buffer so its memory stays reachable while the
 * soft NIC may touch it. Immutable but for {@link #close()}; thread-safe.
 */
final class SoftMemoryRegion implements MemoryRegion
{
    private final SoftProtectionDomain pd;
    private final ByteBuffer buffer;
    private final long address;
    private final int length;
    private final int lkey;
    private final int rkey;
    private final int access;
    private volatile boolean closed;

    SoftMemoryRegion(
        final SoftProtectionDomain pd,
        final ByteBuffer buffer,
        final long address,
        final int length,
        final int lkey,
        final int rkey,
        final int access)
    {
        this.pd = pd;
        this.buffer = buffer;
        this.address = address;
        this.length = length;
        this.lkey = lkey;
        this.rkey = rkey;
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
        return address;
    }

    @Override
    public int length()
    {
        return length;
    }

    @Override
    public int lkey()
    {
        return lkey;
    }

    @Override
    public int rkey()
    {
        return rkey;
    }

    @Override
    public int access()
    {
        return access;
    }

    boolean allows(final int required)
    {
        return Access.allows(access, required);
    }

    /**
     * @return true when {@code [start, start + count)} lies inside the region; safe for any values,
     * including ones taken from the network.
     */
    boolean contains(final long start, final long count)
    {
        return count >= 0 && count <= length && start - address >= 0 && start - address <= length - count &&
            start >= address;
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            pd.deregister(this);
        }
    }

    @Override
    public String toString()
    {
        return "SoftMemoryRegion{address=0x" + Long.toHexString(address) + ", length=" + length + ", lkey=0x" +
            Integer.toHexString(lkey) + ", rkey=0x" + Integer.toHexString(rkey) + ", access=" + access + "}";
    }
}
