package io.rivulet.protocol;

import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.AtomicCounter;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection's outbound side: a many-to-one ring of encoded frames that producers on any thread
 * write into and the sender agent drains to the link, plus the queue of stream writers whose frames
 * did not fit and wait for the conductor to retry them.
 *
 * <p>Thread-safe for writers; {@link #flushParked()} belongs to the conductor, reading to the sender.
 */
public final class Outbound
{
    private final ManyToOneRingBuffer ring;
    private volatile int maxFrameLength;
    private final ManyToOneConcurrentLinkedQueue<StreamWriter> parkedWriters = new ManyToOneConcurrentLinkedQueue<>();
    private final AtomicCounter backPressureEvents;
    private volatile boolean closed;
    /** Message bytes parked by stream writers waiting for ring space (bounded for fire-and-forget). */
    private final AtomicLong parkedBytes = new AtomicLong();

    /**
     * @param ringLength         capacity of the ring in bytes, a power of two at least 8 frames long.
     * @param maxFrameLength     longest frame.
     * @param backPressureEvents counts writes that found the ring full.
     */
    public Outbound(final int ringLength, final int maxFrameLength, final AtomicCounter backPressureEvents)
    {
        final AtomicBuffer buffer = new UnsafeBuffer(
            ByteBuffer.allocateDirect(ringLength + RingBufferDescriptor.TRAILER_LENGTH));
        this.ring = new ManyToOneRingBuffer(buffer);
        if (ring.maxMsgLength() < maxFrameLength)
        {
            throw new IllegalArgumentException("outbound ring of " + ringLength +
                " bytes cannot hold frames of " + maxFrameLength + " bytes (needs 8x)");
        }
        this.maxFrameLength = maxFrameLength;
        this.backPressureEvents = backPressureEvents;
    }

    /** @return the ring the sender agent drains. */
    public ManyToOneRingBuffer ring()
    {
        return ring;
    }

    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    /**
     * Lowers the frame length to what the peer accepts (learnt from SETUP, before any stream).
     *
     * @param peerMaxFrameLength the peer's maximum.
     */
    public void limitFrameLength(final int peerMaxFrameLength)
    {
        maxFrameLength = Math.min(maxFrameLength, peerMaxFrameLength);
    }

    public boolean isClosed()
    {
        return closed;
    }

    /** Refuses further writes; parked frames are dropped by their streams' termination. */
    public void close()
    {
        closed = true;
    }

    /**
     * The zero-copy offer path: one REQUEST_FNF frame on stream 0, encoded in place.
     *
     * @return true when written, false when the ring is full.
     */
    boolean offerFireAndForget(final DirectBuffer buffer, final int offset, final int length)
    {
        final int frameLength = FrameWriter.payloadFrameLength(FrameType.REQUEST_FNF, 0, length);
        final int index = ring.tryClaim(Frames.FRAME_RECORD, frameLength);
        if (index <= 0)
        {
            backPressureEvents.increment();
            return false;
        }
        Frames.writer().writePayloadFrame(ring.buffer(), index, FrameType.REQUEST_FNF, 0, 0, FrameFlags.NEXT,
            null, 0, 0, buffer, offset, length);
        ring.commit(index);
        return true;
    }

    /**
     * Claims ring space for one frame.
     *
     * @return the index to encode at, or a value &lt;= 0 when the ring is full.
     */
    int claim(final int frameLength)
    {
        final int index = ring.tryClaim(Frames.FRAME_RECORD, frameLength);
        if (index <= 0)
        {
            backPressureEvents.increment();
        }
        return index;
    }

    void commit(final int index)
    {
        ring.commit(index);
    }

    /** @return message bytes parked by this connection's writers, waiting for ring space. */
    public long parkedBytes()
    {
        return parkedBytes.get();
    }

    void addParkedBytes(final long delta)
    {
        parkedBytes.getAndAdd(delta);
    }

    void park(final StreamWriter writer)
    {
        parkedWriters.offer(writer);
    }

    /**
     * Conductor: retries parked frames in order.
     *
     * @return frames' worth of work done.
     */
    public int flushParked()
    {
        int work = 0;
        StreamWriter writer;
        final int count = parkedWriters.size();
        for (int i = 0; i < count && (writer = parkedWriters.poll()) != null; i++)
        {
            work += writer.flushParked();
        }
        return work;
    }
}
