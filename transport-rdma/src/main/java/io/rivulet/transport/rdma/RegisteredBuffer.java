package io.rivulet.transport.rdma;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * A piece of a {@link MemoryPool}'s registered user region: memory the device can read directly, so
 * bytes written here once need no copy to be sent. Allocate once and reuse; {@link #close()} gives it
 * back to the pool.
 *
 * <p>Thread-safety: the buffer is the caller's to synchronise; {@link #close()} may be called from any
 * thread and is idempotent.
 */
public final class RegisteredBuffer implements AutoCloseable
{
    private final MemoryPool pool;
    private final UnsafeBuffer buffer;
    private final long address;
    private final int regionOffset;
    private final int reservedLength;
    private final int lkey;
    private final int rkey;
    private volatile boolean closed;

    RegisteredBuffer(
        final MemoryPool pool,
        final UnsafeBuffer buffer,
        final long address,
        final int regionOffset,
        final int reservedLength,
        final int lkey,
        final int rkey)
    {
        this.pool = pool;
        this.buffer = buffer;
        this.address = address;
        this.regionOffset = regionOffset;
        this.reservedLength = reservedLength;
        this.lkey = lkey;
        this.rkey = rkey;
    }

    /** @return a view of exactly the requested bytes. */
    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    /** @return bytes requested. */
    public int length()
    {
        return buffer.capacity();
    }

    /** @return the device address of the first byte, for a scatter-gather entry. */
    public long address()
    {
        return address;
    }

    /** @return the local key of the user region. */
    public int lkey()
    {
        return lkey;
    }

    /** @return the remote key of the user region. */
    public int rkey()
    {
        return rkey;
    }

    /** @return true once given back. */
    public boolean isClosed()
    {
        return closed;
    }

    /** Gives the memory back to the pool; do not touch the buffer afterwards. */
    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        pool.releaseUser(this);
    }

    int regionOffset()
    {
        return regionOffset;
    }

    int reservedLength()
    {
        return reservedLength;
    }

    @Override
    public String toString()
    {
        return "RegisteredBuffer{length=" + length() + ", address=0x" + Long.toHexString(address) +
            (closed ? ", closed}" : "}");
    }
}
