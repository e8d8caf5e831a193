package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.verbs.MemoryRegion;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * A registered region: the values {@code ibv_reg_mr} returned, and how to deregister.
 *
 * <p>Local work requests name the region by {@link #lkey()}; a peer must be given the {@link #rkey()}
 * (DiSNI's own ReadServer example sends the lkey to its client, which works on some devices only by
 * accident — on ConnectX the keys differ and the peer gets REMOTE_ACCESS_ERROR).
 *
 * <p>Not thread-safe.
 */
final class DisniMemoryRegion implements MemoryRegion
{
    /** {@code ibv_dereg_mr}. */
    @FunctionalInterface
    interface Deregistration
    {
        void deregister() throws IOException;
    }

    private final ByteBuffer buffer;
    private final long address;
    private final int length;
    private final int lkey;
    private final int rkey;
    private final int access;
    private final Deregistration deregistration;
    private final Consumer<DisniMemoryRegion> onClose;
    private boolean closed;

    DisniMemoryRegion(
        final ByteBuffer buffer,
        final long address,
        final int length,
        final int lkey,
        final int rkey,
        final int access,
        final Deregistration deregistration,
        final Consumer<DisniMemoryRegion> onClose)
    {
        this.buffer = buffer;
        this.address = address;
        this.length = length;
        this.lkey = lkey;
        this.rkey = rkey;
        this.access = access;
        this.deregistration = deregistration;
        this.onClose = onClose;
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

    /** @return the key local work requests put in their scatter-gather entries. */
    @Override
    public int lkey()
    {
        return lkey;
    }

    /** @return the key to give peers for RDMA READ/WRITE into this region. */
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

    boolean isOpen()
    {
        return !closed;
    }

    /** {@code ibv_dereg_mr}. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            deregistration.deregister();
        }
        catch (final IOException | RuntimeException ex)
        {
            DisniVerbsContext.warn("ibv_dereg_mr", ex);
        }
        onClose.accept(this);
    }

    @Override
    public String toString()
    {
        return "DisniMemoryRegion{address=0x" + Long.toHexString(address) + ", length=" + length + ", lkey=0x" +
            Integer.toHexString(lkey) + ", rkey=0x" + Integer.toHexString(rkey) + ", access=" + access + "}";
    }
}
