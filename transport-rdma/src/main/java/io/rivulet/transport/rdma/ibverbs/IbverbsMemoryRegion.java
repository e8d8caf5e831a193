package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.verbs.MemoryRegion;

import java.nio.ByteBuffer;

/**
 * {@code ibv_mr}: a registered buffer and its keys. Local work requests name it by {@link #lkey()}; a peer must be
 * given the {@link #rkey()} (on ConnectX the two differ). A region registered without remote access may have rkey
 * 0 (Soft-RoCE gives it), which is fine: no peer can use it.
 *
 * <p>Not thread-safe.
 */
final class IbverbsMemoryRegion implements MemoryRegion
{
    private final IbverbsProtectionDomain pd;
    private final ByteBuffer buffer;
    private final long address;
    private final int length;
    private final int lkey;
    private final int rkey;
    private final int access;
    private final long mr;
    private boolean closed;

    IbverbsMemoryRegion(
        final IbverbsProtectionDomain pd,
        final ByteBuffer buffer,
        final long address,
        final int length,
        final int lkey,
        final int rkey,
        final int access,
        final long mr)
    {
        this.pd = pd;
        this.buffer = buffer;
        this.address = address;
        this.length = length;
        this.lkey = lkey;
        this.rkey = rkey;
        this.access = access;
        this.mr = mr;
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

    /** {@code ibv_dereg_mr}: the keys stop working. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        IbverbsContext.warnOnFailure("ibv_dereg_mr", Verbs.deregMr(mr));
        pd.forget(this);
    }

    @Override
    public String toString()
    {
        return "IbverbsMemoryRegion{address=0x" + Long.toHexString(address) + ", length=" + length + ", lkey=0x" +
            Integer.toHexString(lkey) + ", rkey=0x" + Integer.toHexString(rkey) + (closed ? ", closed}" : "}");
    }
}
