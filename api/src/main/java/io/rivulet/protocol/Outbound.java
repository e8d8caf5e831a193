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
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection's outbound side: a many-to-one ring of encoded frames that producers on any thread
 * write into and the sender agent drains to the link, plus the queue of stream writers whose frames
 * did not fit and wait for the conductor to retry them.
 *
 * <p>Memory: a server's connection starts with a small ring, enough for the control frames it may send before
 * SETUP (an ERROR, a KEEPALIVE), and gets the full ring only once SETUP is accepted ({@link #expand()}), so a crowd
 * of sockets that never send SETUP costs little. The rings are direct memory and are freed explicitly when the
 * connection is done ({@link #free()}), not left to GC, back to the node's {@link RingPool}: a writer announces
 * itself around each claim and commit, so the ring is given back only when no writer is inside it, and a writer
 * that comes later finds it gone.
 *
 * <p>Thread-safe for writers; {@link #flushParked()}, {@link #expand()} and {@link #free()} belong to the
 * conductor, reading to the sender.
 */
public final class Outbound
{
    /**
     * Capacity of a server connection's ring before SETUP: room for frames of up to 2 KiB, which holds every frame a
     * server sends before it accepts SETUP (an ERROR's text is at most 1 KiB).
     */
    public static final int PRE_SETUP_RING_LENGTH = 16 * 1024;

    private volatile ManyToOneRingBuffer ring;
    private final int ringLength;
    private volatile int maxFrameLength;
    private final ManyToOneConcurrentLinkedQueue<StreamWriter> parkedWriters = new ManyToOneConcurrentLinkedQueue<>();
    private final AtomicCounter backPressureEvents;
    private final MemoryBudget budget;
    private final RingPool pool;
    private volatile boolean closed;
    /** Message bytes parked by stream writers waiting for ring space (bounded for fire-and-forget). */
    private final AtomicLong parkedBytes = new AtomicLong();
    /** Writers between their claim and their commit: the ring is not freed under them. */
    private final AtomicInteger activeWriters = new AtomicInteger();
    private volatile boolean freed;
    /** Conductor: rings replaced by {@link #expand()}, freed with the current one. */
    private final ArrayList<ManyToOneRingBuffer> retired = new ArrayList<>(1);

    /**
     * An outbound side with its full ring at once (a client, tests) and no memory budget.
     *
     * @param ringLength         capacity of the ring in bytes, a power of two at least 8 frames long.
     * @param maxFrameLength     longest frame.
     * @param backPressureEvents counts writes that found the ring full.
     */
    public Outbound(final int ringLength, final int maxFrameLength, final AtomicCounter backPressureEvents)
    {
        this(ringLength, ringLength, maxFrameLength, backPressureEvents, MemoryBudget.unlimited(), RingPool.none());
    }

    /**
     * @param initialRingLength  capacity of the ring until {@link #expand()}: {@code ringLength} for a client,
     *                           {@link #PRE_SETUP_RING_LENGTH} for a server before SETUP.
     * @param ringLength         capacity of the full ring in bytes, a power of two at least 8 frames long.
     * @param maxFrameLength     longest frame.
     * @param backPressureEvents counts writes that found the ring full.
     * @param budget             the node's memory budget, which parked bytes count against.
     * @param pool               the node's spare rings, which this one is taken from and given back to.
     */
    public Outbound(
        final int initialRingLength,
        final int ringLength,
        final int maxFrameLength,
        final AtomicCounter backPressureEvents,
        final MemoryBudget budget,
        final RingPool pool)
    {
        if (ringLength / 8 < maxFrameLength)
        {
            throw new IllegalArgumentException("outbound ring of " + ringLength +
                " bytes cannot hold frames of " + maxFrameLength + " bytes (needs 8x)");
        }
        this.ringLength = ringLength;
        this.pool = pool;
        this.ring = newRing(Math.min(initialRingLength, ringLength));
        this.maxFrameLength = maxFrameLength;
        this.backPressureEvents = backPressureEvents;
        this.budget = budget;
    }

    private ManyToOneRingBuffer newRing(final int length)
    {
        return new ManyToOneRingBuffer(new UnsafeBuffer(pool.take(length + RingBufferDescriptor.TRAILER_LENGTH)));
    }

    /** @return the ring the sender agent drains. */
    public ManyToOneRingBuffer ring()
    {
        return ring;
    }

    /** @return the connection's longest frame (before SETUP a server's ring takes only its small frames). */
    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    /**
     * Conductor: SETUP was accepted; the connection gets its full ring. Safe because nothing writes to a server's
     * connection before it accepts SETUP (not even a KEEPALIVE), so the small ring is empty and no producer can be
     * inside it; the sender finds the new ring on its next read, and the small one is freed with the connection in
     * case the sender is reading it now.
     *
     * @return false when the small ring still holds frames: the swap would lose them.
     */
    public boolean expand()
    {
        final ManyToOneRingBuffer current = ring;
        if (current.capacity() >= ringLength)
        {
            return true;
        }
        if (current.size() != 0 || closed)
        {
            return false;
        }
        retired.add(current);
        ring = newRing(ringLength);
        return true;
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
     * Conductor, once the connection is closed and the sender let go of it: frees the rings' direct memory, unless a
     * writer is still between claim and commit (then call again later).
     *
     * @return true once freed.
     */
    public boolean free()
    {
        closed = true;
        freed = true; // a writer that announces itself after this sees it and backs out
        if (activeWriters.get() != 0)
        {
            return false;
        }
        final ManyToOneRingBuffer current = ring;
        final ByteBuffer memory = current.buffer().byteBuffer();
        if (memory != null)
        {
            current.buffer().wrap(EMPTY, 0, 0); // nothing reaches the memory through this ring any more
            pool.give(memory);
        }
        for (int i = 0; i < retired.size(); i++)
        {
            pool.give(retired.get(i).buffer().byteBuffer());
        }
        retired.clear();
        return true;
    }

    /**
     * The zero-copy offer path: one REQUEST_FNF frame on stream 0, encoded in place.
     *
     * @return true when written, false when the ring is full.
     */
    boolean offerFireAndForget(final DirectBuffer buffer, final int offset, final int length)
    {
        final int frameLength = FrameWriter.payloadFrameLength(FrameType.REQUEST_FNF, 0, length);
        final int index = claim(frameLength);
        if (index <= 0)
        {
            return false;
        }
        Frames.writer().writePayloadFrame(ring.buffer(), index, FrameType.REQUEST_FNF, 0, 0, FrameFlags.NEXT,
            null, 0, 0, buffer, offset, length);
        commit(index);
        return true;
    }

    /**
     * Claims ring space for one frame; a claim that succeeds must be followed by {@link #commit}.
     *
     * @return the index to encode at, or a value &lt;= 0 when the ring is full (or gone).
     */
    int claim(final int frameLength)
    {
        activeWriters.getAndIncrement();
        final ManyToOneRingBuffer current = ring;
        if (freed || frameLength > current.maxMsgLength())
        {
            activeWriters.getAndDecrement();
            return 0;
        }
        final int index = current.tryClaim(Frames.FRAME_RECORD, frameLength);
        if (index <= 0)
        {
            activeWriters.getAndDecrement();
            backPressureEvents.increment();
        }
        return index;
    }

    void commit(final int index)
    {
        ring.commit(index);
        activeWriters.getAndDecrement();
    }

    /** @return message bytes parked by this connection's writers, waiting for ring space. */
    public long parkedBytes()
    {
        return parkedBytes.get();
    }

    /** Any thread: whether parking this many more bytes would take the node past its memory budget. */
    boolean wouldExceedNodeMemory(final long bytes)
    {
        return budget.used() + bytes > budget.nodeLimit();
    }

    void addParkedBytes(final long delta)
    {
        parkedBytes.getAndAdd(delta);
        budget.add(delta);
    }

    void park(final StreamWriter writer)
    {
        parkedWriters.offer(writer);
    }

    /**
     * Conductor: retries parked frames in order; once closed, drops them and gives their bytes back.
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

    private static final byte[] EMPTY = new byte[0];
}
