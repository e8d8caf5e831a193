package io.rivulet.region;

import io.rivulet.spi.OneSidedOperation;
import org.agrona.DirectBuffer;

/**
 * One operation on a remote region, at most one path's or frame's length: a READ chunk copies its bytes into the
 * destination of the whole read, an atomic reports the previous value. It travels from the application thread to
 * the conductor, which posts it one-sided or sends it as a REGION_OP, and completes it there.
 */
final class RegionOperation implements OneSidedOperation
{
    /** Told when the operation ends, on the conductor. */
    interface Completion
    {
        void onDone(RegionOperation operation, Throwable error);
    }

    final RemoteRegionHandle region;
    final int op;
    final long offset;
    final int length;
    final long compareAdd;
    final long swap;
    final DirectBuffer source;
    final int sourceOffset;
    final byte[] destination;
    final int destinationOffset;
    final Completion completion;
    long requestId;
    long previous;
    private boolean done;

    RegionOperation(
        final RemoteRegionHandle region,
        final int op,
        final long offset,
        final int length,
        final long compareAdd,
        final long swap,
        final DirectBuffer source,
        final int sourceOffset,
        final byte[] destination,
        final int destinationOffset,
        final Completion completion)
    {
        this.region = region;
        this.op = op;
        this.offset = offset;
        this.length = length;
        this.compareAdd = compareAdd;
        this.swap = swap;
        this.source = source;
        this.sourceOffset = sourceOffset;
        this.destination = destination;
        this.destinationOffset = destinationOffset;
        this.completion = completion;
    }

    @Override
    public int op()
    {
        return op;
    }

    @Override
    public long remoteAddress()
    {
        return region.descriptor().address() + offset;
    }

    @Override
    public int rkey()
    {
        return region.descriptor().rkey();
    }

    @Override
    public int length()
    {
        return length;
    }

    @Override
    public long compareAdd()
    {
        return compareAdd;
    }

    @Override
    public long swap()
    {
        return swap;
    }

    @Override
    public DirectBuffer source()
    {
        return source;
    }

    @Override
    public int sourceOffset()
    {
        return sourceOffset;
    }

    @Override
    public void onRead(final DirectBuffer buffer, final int offset, final int length)
    {
        buffer.getBytes(offset, destination, destinationOffset, length);
        complete(null);
    }

    @Override
    public void onAtomic(final long previous)
    {
        this.previous = previous;
        complete(null);
    }

    @Override
    public void onWritten()
    {
        complete(null);
    }

    @Override
    public void onFailed(final boolean remoteAccess, final String reason)
    {
        complete(new RegionAccessException(remoteAccess ? RegionAccessException.Reason.REMOTE_ACCESS :
            RegionAccessException.Reason.UNSUPPORTED, opName(op) + " at offset " + offset + " of region '" +
            region.name() + "' on " + region.remoteAddress() + " failed: " + reason));
    }

    @Override
    public void onFlushed()
    {
        region.endpoint().retry(this);
    }

    void complete(final Throwable error)
    {
        if (!done)
        {
            done = true;
            completion.onDone(this, error);
        }
    }

    static String opName(final int op)
    {
        switch (op)
        {
            case READ: return "read";
            case WRITE: return "write";
            case COMPARE_AND_SWAP: return "compare-and-swap";
            default: return "fetch-and-add";
        }
    }
}
