package io.rivulet.transport.rdma.soft;

import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * One end of an in-memory wire: two single-producer single-consumer rings, one per direction, each
 * written only by its end's NIC thread. Bounded: a full ring is back-pressure.
 */
final class MemoryWire implements Wire, MessageHandler
{
    static final int RING_CAPACITY = 512 * 1024;
    private static final int FRAME_TYPE = 1;
    private static final int POLL_LIMIT = 256;

    private final OneToOneRingBuffer outbound;
    private final OneToOneRingBuffer inbound;
    private MemoryWire peer;
    private volatile SoftNic nic;
    private volatile boolean closed;
    private boolean endOfStream;
    private boolean committed;
    private FrameHandler handler;

    private MemoryWire(final OneToOneRingBuffer outbound, final OneToOneRingBuffer inbound)
    {
        this.outbound = outbound;
        this.inbound = inbound;
    }

    /** @return two connected ends. */
    static MemoryWire[] pair()
    {
        final OneToOneRingBuffer aToB = newRing();
        final OneToOneRingBuffer bToA = newRing();
        final MemoryWire a = new MemoryWire(aToB, bToA);
        final MemoryWire b = new MemoryWire(bToA, aToB);
        a.peer = b;
        b.peer = a;
        return new MemoryWire[]{ a, b };
    }

    private static OneToOneRingBuffer newRing()
    {
        final int length = RING_CAPACITY + RingBufferDescriptor.TRAILER_LENGTH;
        return new OneToOneRingBuffer(new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, 64)));
    }

    /** The NIC that polls this end; woken when the peer writes. */
    void attach(final SoftNic nic)
    {
        this.nic = nic;
    }

    @Override
    public MutableDirectBuffer buffer()
    {
        return outbound.buffer();
    }

    @Override
    public int claim(final int length)
    {
        if (closed)
        {
            return -1;
        }
        final int index = outbound.tryClaim(FRAME_TYPE, length);
        return index < 0 ? -1 : index;
    }

    @Override
    public void commit(final int offset)
    {
        outbound.commit(offset);
        committed = true;
    }

    @Override
    public int poll(final FrameHandler handler)
    {
        if (closed || endOfStream)
        {
            return 0;
        }
        // Read the peer's closed flag first: every frame it wrote before closing is then visible below.
        final boolean peerClosed = peer.closed;
        this.handler = handler;
        final int frames = inbound.read(this, POLL_LIMIT);
        this.handler = null;
        if (frames == 0 && peerClosed)
        {
            endOfStream = true;
        }
        return frames;
    }

    @Override
    public void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (!closed)
        {
            handler.onFrame(buffer, index, length);
        }
    }

    @Override
    public boolean isEndOfStream()
    {
        return endOfStream;
    }

    @Override
    public boolean flush()
    {
        if (committed)
        {
            committed = false;
            wakePeer();
        }
        return true;
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            wakePeer();
        }
    }

    @Override
    public boolean isClosed()
    {
        return closed;
    }

    private void wakePeer()
    {
        final SoftNic peerNic = peer.nic;
        if (peerNic != null)
        {
            peerNic.wake();
        }
    }

    @Override
    public String toString()
    {
        return "MemoryWire{closed=" + closed + ", endOfStream=" + endOfStream + "}";
    }
}
