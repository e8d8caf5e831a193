package io.rivulet.protocol;

import io.rivulet.MessageClaim;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.spi.EngineWake;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.AtomicCounter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
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
 * <p>Claims ({@code tryClaimFireAndForget}): an application's {@link MessageClaim} holds its ring record between
 * {@code tryClaim} and its commit or abort, in records of their own type ({@code CLAIM_RECORD}). Committing,
 * aborting and taking back are each one compare-and-set of the record's 8-byte header (length and type), so exactly
 * one of them settles a claim. The conductor takes back a claim that has blocked the head of the ring for
 * {@link #CLAIM_TIMEOUT_NS} (turns it into padding the sender skips), as Agrona's {@code unblock} and Aeron's
 * publication unblock do for a producer that claimed and never committed. A held claim does not keep the ring from
 * being freed: a ring freed under one is not reused but left to GC, so a late write through the claim cannot reach
 * another connection's frames.
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
    /** How long an application's claim may block the head of the ring before the conductor takes it back. */
    public static final long CLAIM_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(1);
    /** Type id of ring records held by an application's {@link MessageClaim}: the only ones taken back. */
    static final int CLAIM_RECORD = 2;
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

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
    /** Claims between {@code tryClaim} and their commit, abort or take-back. */
    private final AtomicInteger heldClaims = new AtomicInteger();
    private final MessageClaim.Owner claimOwner = new ClaimOwner();
    /** Conductor: the ring position where a held claim blocks the sender, -1 when none, and since when. */
    private long blockedPosition = -1;
    private long blockedSinceNs;
    /** Conductor: claims taken back (tests and diagnostics). */
    private long claimsTakenBack;
    /** Application threads parked until the ring has room ({@code offer} and {@code tryClaim} with a timeout). */
    private final RoomWaiters roomWaiters = new RoomWaiters();
    private final EngineWake wake;
    /**
     * 1 while the sender visits this connection or it waits in the sender's {@link SendReadiness}, 0 while it rests;
     * 1 from the start, since the sender visits a new connection first.
     */
    @SuppressWarnings("unused") // through SEND_SCHEDULED
    private volatile int sendScheduled = 1;
    /** Set by the sender before the first time it lets the connection rest (published by that volatile write). */
    private SendReadiness readiness;
    private ConnectionOutput output;
    /** Sender only: whether the sender's list of connections to visit holds this one, and whether it let go of it. */
    private boolean visited;
    private boolean releasedBySender;

    private static final VarHandle SEND_SCHEDULED;

    static
    {
        try
        {
            SEND_SCHEDULED = MethodHandles.lookup().findVarHandle(Outbound.class, "sendScheduled", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /**
     * An outbound side with its full ring at once (a client, tests) and no memory budget.
     *
     * @param ringLength         capacity of the ring in bytes, a power of two at least 8 frames long.
     * @param maxFrameLength     longest frame.
     * @param backPressureEvents counts writes that found the ring full.
     */
    public Outbound(final int ringLength, final int maxFrameLength, final AtomicCounter backPressureEvents)
    {
        this(ringLength, ringLength, maxFrameLength, backPressureEvents, MemoryBudget.unlimited(), RingPool.none(),
            EngineWake.NONE);
    }

    /**
     * @param initialRingLength  capacity of the ring until {@link #expand()}: {@code ringLength} for a client,
     *                           {@link #PRE_SETUP_RING_LENGTH} for a server before SETUP.
     * @param ringLength         capacity of the full ring in bytes, a power of two at least 8 frames long.
     * @param maxFrameLength     longest frame.
     * @param backPressureEvents counts writes that found the ring full.
     * @param budget             the node's memory budget, which parked bytes count against.
     * @param pool               the node's spare rings, which this one is taken from and given back to.
     * @param wake               told after each frame committed to the ring and each stream signalled.
     */
    public Outbound(
        final int initialRingLength,
        final int ringLength,
        final int maxFrameLength,
        final AtomicCounter backPressureEvents,
        final MemoryBudget budget,
        final RingPool pool,
        final EngineWake wake)
    {
        this.wake = wake;
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
        roomWaiters.wake(); // a thread waiting for room sees the close
    }

    /**
     * Sender, after it took frames out of the ring and left a quarter of it free: wakes the application threads
     * waiting for room, if any (a fence and a volatile read when none waits).
     */
    public void onRoomMade()
    {
        roomWaiters.wake();
    }

    RoomWaiters roomWaiters()
    {
        return roomWaiters;
    }

    /** Any thread, after handing this connection's engine work outside the ring (a stream's signal). */
    void afterHandOff()
    {
        wake.afterHandOff();
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
            if (heldClaims.get() == 0)
            {
                pool.give(memory);
            }
            // else an application's claim still points into it: its late writes must not reach a reused ring, so
            // the memory goes when the claim lets go of it (GC), not to the pool
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
        final int index = claimFireAndForget(length, Frames.FRAME_RECORD);
        if (index <= 0)
        {
            return false;
        }
        ring.buffer().putBytes(index + FrameWriter.FIRE_AND_FORGET_DATA_OFFSET, buffer, offset, length);
        commit(index);
        return true;
    }

    /**
     * The zero-copy request and reply paths: one frame without metadata (REQUEST_RESPONSE, or PAYLOAD), encoded in
     * place from the caller's buffer.
     *
     * @return true when written, false when the ring is full (or gone) or the frame longer than a frame may be.
     */
    boolean offerPayloadFrame(
        final int frameType, final int streamId, final byte flags, final DirectBuffer buffer, final int offset,
        final int length)
    {
        final int index = claim(FrameWriter.payloadFrameLength(frameType, 0, length));
        if (index <= 0)
        {
            return false;
        }
        Frames.writer().writePayloadFrame(ring.buffer(), index, frameType, streamId, 0, flags, null, 0, 0, buffer,
            offset, length);
        commit(index);
        return true;
    }

    /**
     * The claim path: one REQUEST_FNF frame on stream 0 with its header encoded, its data left to the caller, who
     * settles it through the claim ({@link MessageClaim#commit()} or {@link MessageClaim#abort()}).
     *
     * @return true when claimed, false when the ring is full (or gone).
     * @throws IllegalStateException when the claim still holds a message.
     */
    boolean tryClaimFireAndForget(final int length, final MessageClaim claim)
    {
        if (claim.isClaimed())
        {
            throw new IllegalStateException("claim still holds a message: commit or abort it first");
        }
        final int index = claimFireAndForget(length, CLAIM_RECORD);
        if (index <= 0)
        {
            return false;
        }
        heldClaims.getAndIncrement(); // before leaving the ring: free() sees the claim once it sees no writer
        final int recordLength = RecordDescriptor.HEADER_LENGTH +
            FrameWriter.payloadFrameLength(FrameType.REQUEST_FNF, 0, length);
        claim.wrap(claimOwner, ((long)recordLength << 32) | index, ring.buffer(),
            index + FrameWriter.FIRE_AND_FORGET_DATA_OFFSET, length);
        activeWriters.getAndDecrement(); // a held claim does not keep the ring from being freed (see free)
        return true;
    }

    /** Claims and encodes all of a fire-and-forget frame but its data; the offer's and the claim's one path. */
    private int claimFireAndForget(final int length, final int recordType)
    {
        final int index = claim(FrameWriter.payloadFrameLength(FrameType.REQUEST_FNF, 0, length), recordType);
        if (index > 0)
        {
            Frames.writer().writeFireAndForgetHeader(ring.buffer(), index, 0, FrameFlags.NEXT, length);
        }
        return index;
    }

    /**
     * Claims ring space for one frame; a claim that succeeds must be followed by {@link #commit}.
     *
     * @return the index to encode at, or a value &lt;= 0 when the ring is full (or gone).
     */
    int claim(final int frameLength)
    {
        return claim(frameLength, Frames.FRAME_RECORD);
    }

    private int claim(final int frameLength, final int recordType)
    {
        activeWriters.getAndIncrement();
        final ManyToOneRingBuffer current = ring;
        if (freed || frameLength > current.maxMsgLength())
        {
            activeWriters.getAndDecrement();
            return 0;
        }
        final int index = current.tryClaim(recordType, frameLength);
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
        afterOutput();
        activeWriters.getAndDecrement();
    }

    /**
     * Any thread, after a frame committed or a claim settled: one fence, then the sender's readiness and the engine's
     * sleep are both read. A connection queued for the sender is a hand-off of its own, so that path fences again.
     */
    private void afterOutput()
    {
        if (scheduleSend())
        {
            wake.afterHandOff();
        }
        else
        {
            wake.afterFencedHandOff();
        }
    }

    /**
     * Sender, when it first takes the connection: where a resting connection is brought back from.
     *
     * @param readiness the sender's queue of connections with output.
     * @param output    the connection this is the outbound side of.
     */
    public void attachSender(final SendReadiness readiness, final ConnectionOutput output)
    {
        this.readiness = readiness;
        this.output = output;
    }

    /**
     * Any thread, once there is output the sender must see (a frame committed to the ring, a claim settled, a frame
     * offered to the link, a new send mode): brings the connection back to the sender if it rests. The fence orders
     * that output before the load of the flag; {@link #rest()} orders its store of the flag before its look at the
     * output, so either the producer sees the connection resting and queues it, or the sender sees the output.
     *
     * @return true when the connection rested and is now queued for the sender.
     */
    public boolean scheduleSend()
    {
        VarHandle.fullFence();
        return scheduleFlush();
    }

    /**
     * Sender thread: a frame was offered straight to the link (a topic's data), which the sender must flush; brings
     * the connection back if it rests. No fence: the sender itself is the one that lets connections rest (other
     * threads come through {@link #scheduleSend()}, which fences first).
     *
     * @return true when the connection rested and is now queued for the sender.
     */
    public boolean scheduleFlush()
    {
        if ((int)SEND_SCHEDULED.getVolatile(this) == 0 && SEND_SCHEDULED.compareAndSet(this, 0, 1))
        {
            readiness.offer(output);
            return true;
        }
        return false;
    }

    /**
     * Sender: the connection looked idle (its ring empty, its link flushed, its send mode ACTIVE); it rests, so that
     * the sender stops visiting it, unless output arrived meanwhile. The last look covers the link as well: a poll on
     * the conductor's thread (DEDICATED) may have left it owing its peer credits since the sender's pass, and the
     * {@link #scheduleSend()} after that poll found the flag still up.
     *
     * @return true when it rests now ({@link #scheduleSend()} brings it back), false when it has output after all.
     */
    public boolean rest()
    {
        SEND_SCHEDULED.setVolatile(this, 0);
        VarHandle.fullFence();
        final ManyToOneRingBuffer current = ring;
        if (current.producerPosition() == current.consumerPosition() && output.sendMode() == SendMode.ACTIVE &&
            output.link().isFlushed())
        {
            return true;
        }
        // Output came in between: keep visiting. A producer that saw the flag down may have queued the connection as
        // well; the sender ignores that one (visited).
        SEND_SCHEDULED.setVolatile(this, 1);
        return false;
    }

    /** Sender: the connection is visited again, after the readiness queue brought it back or overflowed. */
    public void resume()
    {
        SEND_SCHEDULED.setVolatile(this, 1);
    }

    /** @return whether the sender's list of connections to visit holds this one (sender only). */
    public boolean isVisited()
    {
        return visited;
    }

    /** Sender only: records whether its list of connections to visit holds this one. */
    public void visited(final boolean visited)
    {
        this.visited = visited;
    }

    /** Sender only: it let go of the connection; a late entry of it in the readiness queue is ignored. */
    public void releasedBySender()
    {
        releasedBySender = true;
    }

    /** @return whether the sender let go of the connection (sender only). */
    public boolean isReleasedBySender()
    {
        return releasedBySender;
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
     * Conductor, each cycle: retries parked frames in order (once closed, drops them and gives their bytes back),
     * and takes back an application's claim that has blocked the ring for {@link #CLAIM_TIMEOUT_NS}.
     *
     * @return frames' worth of work done.
     */
    public int flushParked()
    {
        int work = takeBackBlockingClaim();
        StreamWriter writer;
        final int count = parkedWriters.size();
        for (int i = 0; i < count && (writer = parkedWriters.poll()) != null; i++)
        {
            work += writer.flushParked();
        }
        return work;
    }

    /**
     * Conductor: when the record at the head of the ring is a claim that is neither committed nor aborted and has
     * stayed there for {@link #CLAIM_TIMEOUT_NS}, turns it into padding so that the sender moves past it. Costs one
     * volatile read a cycle while no claim is held.
     */
    private int takeBackBlockingClaim()
    {
        if (heldClaims.get() == 0 || freed)
        {
            blockedPosition = -1;
            return 0;
        }
        final ManyToOneRingBuffer current = ring;
        final AtomicBuffer buffer = current.buffer();
        final long head = current.consumerPosition();
        final int recordIndex = (int)(head & (current.capacity() - 1));
        final int length = buffer.getIntVolatile(RecordDescriptor.lengthOffset(recordIndex));
        if (length >= 0 || buffer.getInt(RecordDescriptor.typeOffset(recordIndex)) != CLAIM_RECORD)
        {
            blockedPosition = -1; // committed, empty, or another writer's record on its way
            return 0;
        }
        final long nowNs = pool.nanoTime();
        if (head != blockedPosition)
        {
            blockedPosition = head;
            blockedSinceNs = nowNs;
            return 0;
        }
        if (nowNs - blockedSinceNs < CLAIM_TIMEOUT_NS)
        {
            return 0;
        }
        blockedPosition = -1;
        if (buffer.compareAndSetLong(recordIndex, header(length, CLAIM_RECORD),
            header(-length, RingBuffer.PADDING_MSG_TYPE_ID)))
        {
            heldClaims.getAndDecrement();
            claimsTakenBack++;
            return 1;
        }
        return 0; // committed or aborted just now
    }

    /** @return claims the conductor took back since the connection started (tests and diagnostics). */
    long claimsTakenBack()
    {
        return claimsTakenBack;
    }

    /**
     * Settles a held claim: one compare-and-set of the record's header from uncommitted to committed or to padding,
     * so that a commit racing the conductor's take-back either sends or reports that it did not. The expected header
     * is the claim's own (its length and type), so a late commit after a take-back fails even when the space holds a
     * newer record — unless that one is a claim of the same length at the same index, held now: a caller that writes
     * through a claim taken back has broken the claim's contract already (see {@link MessageClaim}).
     *
     * @param handle the claim's record length (high int) and its message index (low int).
     */
    private boolean settleClaim(final long handle, final int settledType)
    {
        activeWriters.getAndIncrement(); // announced, as a writer: the ring is not freed under the compare-and-set
        try
        {
            if (freed)
            {
                return false;
            }
            final AtomicBuffer buffer = ring.buffer();
            final int recordIndex = (int)handle - RecordDescriptor.HEADER_LENGTH;
            final int recordLength = (int)(handle >>> 32);
            if (!buffer.compareAndSetLong(recordIndex, header(-recordLength, CLAIM_RECORD),
                header(recordLength, settledType)))
            {
                return false; // taken back by the conductor
            }
            heldClaims.getAndDecrement();
            return true;
        }
        finally
        {
            activeWriters.getAndDecrement();
        }
    }

    /** A record header as one native-order long: the length at the record's first int, the type at its second. */
    private static long header(final int length, final int type)
    {
        return LITTLE_ENDIAN ?
            ((long)type << 32) | (length & 0xFFFF_FFFFL) :
            ((long)length << 32) | (type & 0xFFFF_FFFFL);
    }

    /** Settles the claims of this ring; held apart so that commit and abort are not part of Outbound's API. */
    private final class ClaimOwner implements MessageClaim.Owner
    {
        @Override
        public boolean commitClaim(final long handle)
        {
            final boolean committed = settleClaim(handle, CLAIM_RECORD);
            if (committed)
            {
                afterOutput();
            }
            return committed;
        }

        @Override
        public void abortClaim(final long handle)
        {
            if (settleClaim(handle, RingBuffer.PADDING_MSG_TYPE_ID))
            {
                scheduleSend(); // the padding must be passed for what follows it
            }
        }
    }

    private static final byte[] EMPTY = new byte[0];
}
