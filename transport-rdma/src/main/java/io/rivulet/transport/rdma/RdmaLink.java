package io.rivulet.transport.rdma;

import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.FrameOutlet;
import io.rivulet.spi.FramingException;
import io.rivulet.spi.LinkClosedException;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.SocketAddresses;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteOrder;

/**
 * One RC queue pair carrying batches of length-prefixed frames in two-sided SENDs, with credit-based
 * flow control so that a SEND never finds the peer without a posted receive (no receiver-not-ready).
 *
 * <p>Wire layout of each SEND (all integers little-endian):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Credits Returned (int32)                     |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Flags (int32, 0, reserved)                   |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Frame Length (int32)                         |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Frame (Frame Length bytes)                  ...
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |          ... more length-prefixed frames, to the SEND's end   ...
 * </pre>
 * A SEND is at most {@link LinkLayout#receiveSlotLength()} bytes; one with no frame only returns credits.
 *
 * <p>Credits. Each side keeps R = {@link LinkLayout#receiveCount()} receives posted. A sender may post
 * a SEND only against a credit, one per receive the peer has posted and not yet consumed. A peer is first
 * assumed to have {@link #INITIAL_CREDITS}; everything beyond that, and every receive re-posted after its
 * frames were delivered, is returned in the "credits returned" field of the next SEND going the other
 * way. One credit is held in reserve: a SEND may use the last credit only if it returns at least
 * {@link LinkLayout#creditReturnThreshold()} credits, and a SEND with no frames is posted when that many
 * are owed and nothing else is going out. So whichever side ran dry, the other can always tell it that
 * it may send again, and credit-only SENDs cannot ping-pong.
 *
 * <p>Sending. {@link #offer} copies each frame with its length prefix into the link's registered send
 * ring, appending to the open batch while it stays within one receive slot; {@link #flush()} posts the
 * batches that credits and send queue slots allow, handing the device up to {@value #CHAIN} SENDs with one call
 * (a chain of work requests). Sends are signalled every
 * {@link LinkLayout#signalInterval()} and always the last of a flush; as RC completes in order, a
 * signalled completion frees the ring up to the end of its batch, unsignalled ones before it included.
 * Receiving. {@link #poll} takes receive completions, hands each frame to the handler as a view over the
 * receive slot, and re-posts the slot once all its frames are delivered, the slots freed by one poll as one chain.
 * Neither path allocates.
 *
 * <p>Threading, as {@link ReliableLink} requires: {@link #offer}, {@link #flush()} and
 * {@link #isFlushed()} run on the sender thread and alone touch the send ring, the send completion
 * queue and the count of credits used; {@link #poll}, {@link #close()} and the address accessors run on
 * the conductor thread and alone touch the receive slots and the receive completion queue. They meet in
 * two counters, each with a single writer: credits granted by the peer and receives re-posted (credits
 * owed to the peer), both written by the conductor and read by the sender.
 */
public final class RdmaLink implements ReliableLink
{
    /** Bytes at the start of every SEND. */
    public static final int HEADER_LENGTH = 8;
    /** Offset of the credits returned in a SEND. */
    public static final int CREDITS_OFFSET = 0;
    /** Offset of the flags in a SEND, reserved and 0. */
    public static final int FLAGS_OFFSET = 4;
    /** Bytes of the length before each frame. */
    public static final int LENGTH_PREFIX_LENGTH = FrameOutlet.RUN_PREFIX_LENGTH;
    /** Receives each side may assume the other posted before it heard from it. */
    public static final int INITIAL_CREDITS = 2;
    /** The most credits a well-behaved peer returns in one SEND: all its receives. */
    public static final int MAX_CREDITS_RETURNED = LinkLayout.MAX_RECEIVE_COUNT;

    /** Of headers and frame lengths; a run's ({@link FrameOutlet#RUN_PREFIX_ORDER}), so runs are copied as they are. */
    private static final ByteOrder ORDER = FrameOutlet.RUN_PREFIX_ORDER;
    private static final int COMPLETION_BATCH = 16;
    /** SENDs handed to the device in one chain, and receives re-posted in one. */
    private static final int CHAIN = 16;

    private final RdmaTransportDriver driver;
    private final CmConnection connection;
    private final QueuePair queuePair;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    private final MemoryPool.Stripe stripe;
    private final LinkLayout layout;
    private final int maxFrameLength;
    private final long createdNs;
    private String remoteAddress;
    private String localAddress;

    // Shared: each written by the conductor only, read by the sender.
    private volatile long creditsGranted = INITIAL_CREDITS;
    private volatile long receivesReposted;
    private volatile boolean closed;

    // Sender thread only.
    private final UnsafeBuffer sendRing;
    private final long sendRingAddress;
    private final int sendLkey;
    private final int sendCapacity;
    private final int maxBatchLength;
    private final int maxSendWorkRequests;
    private final int signalInterval;
    private final int creditReturnThreshold;
    private final long initialCreditsOwed;
    private final int batchCapacity;
    private final int batchMask;
    private final int[] batchOffsets;
    private final int[] batchLengths;
    private final long[] batchEnds;
    private final SendWorkRequest[] sendChain = newSendRequests(CHAIN);
    private int sendChainLength;
    private final WorkCompletion[] sendCompletions = newCompletions(COMPLETION_BATCH);
    private long headPosition;
    private long tailPosition;
    private int tailOffset;
    private boolean batchOpen;
    private int openOffset;
    private int openLength;
    private long sealedCount;
    private long postedCount;
    private long completedCount;
    private long creditsUsed;
    private long creditsReturned;
    private int sendsSinceSignal;
    private IOException sendFailure;
    private long framesSent;
    private long sendsPosted;
    private long creditOnlySends;
    private long creditStalls;

    // Conductor thread only.
    private final UnsafeBuffer receiveArea;
    private final long receiveAreaAddress;
    private final int receiveLkey;
    private final int slotLength;
    private final int receiveCount;
    private final ReceiveWorkRequest[] receiveChain = newReceiveRequests(CHAIN);
    private int receiveChainLength;
    private final WorkCompletion[] receiveCompletions = newCompletions(COMPLETION_BATCH);
    private int completionIndex;
    private int completionCount;
    private int currentSlot = -1;
    private int parseOffset;
    private int parseEnd;
    private long framesReceived;
    private long receivesCompleted;
    private boolean lastPollCompletedReceives;

    RdmaLink(
        final RdmaTransportDriver driver,
        final CmConnection connection,
        final CompletionQueue sendCq,
        final CompletionQueue receiveCq,
        final MemoryPool.Stripe stripe,
        final LinkLayout layout,
        final long createdNs)
    {
        this.driver = driver;
        this.connection = connection;
        this.queuePair = connection.queuePair();
        this.sendCq = sendCq;
        this.receiveCq = receiveCq;
        this.stripe = stripe;
        this.layout = layout;
        this.maxFrameLength = layout.maxFrameLength();
        this.createdNs = createdNs;
        this.remoteAddress = SocketAddresses.format(connection.remoteAddress());

        sendRing = stripe.sendRing();
        sendRingAddress = stripe.sendRingAddress();
        sendLkey = stripe.lkey();
        sendCapacity = layout.sendRingLength();
        maxBatchLength = layout.receiveSlotLength();
        maxSendWorkRequests = layout.maxSendWorkRequests();
        signalInterval = layout.signalInterval();
        creditReturnThreshold = layout.creditReturnThreshold();
        initialCreditsOwed = layout.receiveCount() - INITIAL_CREDITS;
        batchCapacity = layout.batchCapacity();
        batchMask = batchCapacity - 1;
        batchOffsets = new int[batchCapacity];
        batchLengths = new int[batchCapacity];
        batchEnds = new long[batchCapacity];

        receiveArea = stripe.receiveArea();
        receiveAreaAddress = stripe.receiveAreaAddress();
        receiveLkey = stripe.lkey();
        slotLength = layout.receiveSlotLength();
        receiveCount = layout.receiveCount();
    }

    /**
     * Posts every receive slot; before the connection is established, so the peer's first SENDs find
     * them. Conductor thread.
     */
    void postInitialReceives() throws IOException
    {
        for (int slot = 0; slot < receiveCount; slot += receiveChain.length)
        {
            final int count = Math.min(receiveChain.length, receiveCount - slot);
            for (int i = 0; i < count; i++)
            {
                receiveChain[i].set(slot + i, receiveAreaAddress + (long)(slot + i) * slotLength, slotLength, receiveLkey);
            }
            // Not owed as credits: the peer assumes INITIAL_CREDITS and learns of the rest (initialCreditsOwed).
            postReceiveChain(count);
        }
    }

    /**
     * The connection is established: the link is about to be handed to the engine. Conductor thread.
     */
    void onEstablished()
    {
        remoteAddress = SocketAddresses.format(connection.remoteAddress());
        localAddress = SocketAddresses.format(connection.localAddress());
    }

    CmConnection connection()
    {
        return connection;
    }

    long createdNs()
    {
        return createdNs;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Copies the frame into the registered send ring; when the ring or the batch descriptors are full
     * it first reaps send completions, and otherwise reports back-pressure.
     *
     * @throws IllegalArgumentException when length is not in {@code 1..maxFrameLength}.
     */
    @Override
    public boolean offer(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length <= 0 || length > maxFrameLength)
        {
            throw new IllegalArgumentException(
                "frame length " + length + " must be between 1 and maximum " + maxFrameLength + " to " + remoteAddress);
        }
        if (closed || null != sendFailure)
        {
            return false;
        }

        if (append(buffer, offset, length))
        {
            return true;
        }

        // Completions since the last flush may have freed ring space or descriptors.
        return reapQuietly() > 0 && append(buffer, offset, length);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A run's frames are laid out as this link's batches hold them, so the frames that fit the open batch (or a new
     * one) are copied into the send ring in one piece; a run longer than a batch fills several. When the ring or the
     * batch descriptors are full it first reaps send completions, as {@link #offer} does.
     */
    @Override
    public int offerRun(final DirectBuffer buffer, final int offset, final int length)
    {
        if (closed || null != sendFailure)
        {
            return 0;
        }
        int taken = 0;
        while (taken < length)
        {
            int part = appendRun(buffer, offset + taken, length - taken);
            if (0 == part && reapQuietly() > 0)
            {
                part = appendRun(buffer, offset + taken, length - taken);
            }
            if (0 == part)
            {
                break;
            }
            taken += part;
        }
        return taken;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Reaps send completions, then posts sealed batches and the open one as far as credits and send
     * queue slots allow, or a credit-only SEND when credits are owed and nothing else goes out.
     *
     * @return bytes posted, headers included.
     * @throws LinkClosedException when the peer disconnected or the link was closed.
     * @throws IOException         when a send failed or could not be posted.
     */
    @Override
    public int flush() throws IOException
    {
        if (closed)
        {
            throw new LinkClosedException("link to " + remoteAddress + " is closed");
        }
        if (null != sendFailure)
        {
            throw sendFailure;
        }

        reap();

        final long credits = creditsGranted - creditsUsed;
        final long owed = creditsOwed();
        // The last credit is kept for a SEND that returns credits; see the class comment.
        long allowance = credits >= 2 ? credits - 1 : (credits == 1 && owed >= creditReturnThreshold ? 1 : 0);
        allowance = Math.min(allowance, maxSendWorkRequests - (postedCount - completedCount));

        long ready = (sealedCount - postedCount) + (batchOpen ? 1 : 0);
        if (allowance <= 0)
        {
            if (ready > 0)
            {
                creditStalls++;
            }
            return 0;
        }
        if (0 == ready)
        {
            if (owed < creditReturnThreshold || !openBatch(HEADER_LENGTH))
            {
                return 0;
            }
            ready = 1;
        }

        final long count = Math.min(ready, allowance);
        int bytes = 0;
        for (long i = 1; i <= count; i++)
        {
            if (postedCount == sealedCount)
            {
                seal();
            }
            bytes += prepare(i == count);
            if (sendChainLength == sendChain.length)
            {
                postSends();
            }
        }
        postSends();

        return bytes;
    }

    /**
     * {@inheritDoc}
     *
     * <p>True when nothing is batched or waiting for credits, every posted SEND has completed (the peer's
     * device has the bytes), and no credits are due to the peer that could be returned now.
     */
    @Override
    public boolean isFlushed()
    {
        if (closed)
        {
            return true;
        }
        if (null != sendFailure || batchOpen || sealedCount != postedCount || postedCount != completedCount)
        {
            return false;
        }

        return !(creditsGranted - creditsUsed >= 1 && creditsOwed() >= creditReturnThreshold);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A frame limit may stop delivery part way through a receive slot; the next call resumes there.
     */
    @Override
    public int poll(final FrameHandler handler, final int frameLimit) throws IOException
    {
        int frames = 0;
        boolean completed = false;
        final long receivesBefore = receivesCompleted;
        try
        {
            while (frames < frameLimit && !closed)
            {
                if (currentSlot >= 0)
                {
                    frames += deliverFrames(handler, frameLimit - frames);
                    continue;
                }

                if (completionIndex == completionCount && !pollReceiveCompletions(frames))
                {
                    break;
                }
                onReceiveCompletion(receiveCompletions[completionIndex++]);
            }
            completed = true;
        }
        finally
        {
            framesReceived += frames;
            lastPollCompletedReceives = receivesCompleted != receivesBefore;
            if (completed)
            {
                postReceives();
            }
            else
            {
                postReceivesQuietly();
            }
        }

        return frames;
    }

    /**
     * {@inheritDoc}
     *
     * <p>True when the last poll delivered frames or took any receive completion: each receive it re-posted is a
     * credit owed to the peer, and a SEND that carried only credits may let this side return the credits it owes.
     * A resting sender would otherwise hold them until its next output (a keepalive) while a peer out of credits
     * waits for them.
     */
    @Override
    public boolean needsFlushAfterPoll(final int framesDelivered)
    {
        return framesDelivered > 0 || lastPollCompletedReceives;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String remoteAddress()
    {
        return remoteAddress;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String localAddress()
    {
        return localAddress;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Disconnects and destroys the queue pair, then its completion queues, then returns the memory to
     * the pool (only then can the device no longer write into it).
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;

        RdmaTransportDriver.closeQuietly(connection);
        RdmaTransportDriver.closeQuietly(sendCq);
        RdmaTransportDriver.closeQuietly(receiveCq);
        driver.onLinkClosed(this, stripe);
    }

    /** @return true once {@link #close()} has been called. */
    public boolean isClosed()
    {
        return closed;
    }

    /** @return the sizes this link was made with. */
    public LinkLayout layout()
    {
        return layout;
    }

    /** @return credits the peer granted that the sender has not used: receives it may post SENDs to. */
    public long availableCredits()
    {
        return creditsGranted - creditsUsed;
    }

    /** @return SENDs posted so far; sender thread, or after it stopped. */
    public long sendsPosted()
    {
        return sendsPosted;
    }

    /** @return SENDs posted that carried no frame, only credits. */
    public long creditOnlySends()
    {
        return creditOnlySends;
    }

    /** @return flushes that found batches ready but no credit or send queue slot to post them. */
    public long creditStalls()
    {
        return creditStalls;
    }

    /** @return frames accepted by {@link #offer}. */
    public long framesSent()
    {
        return framesSent;
    }

    /** @return frames delivered by {@link #poll}; conductor thread. */
    public long framesReceived()
    {
        return framesReceived;
    }

    /** @return receive completions taken, each one SEND from the peer; conductor thread. */
    public long receivesCompleted()
    {
        return receivesCompleted;
    }

    @Override
    public String toString()
    {
        return "RdmaLink{" + localAddress + " -> " + remoteAddress + (closed ? ", closed}" : "}");
    }

    // ---------------------------------------------------------------------------------------------------
    // Sender side
    // ---------------------------------------------------------------------------------------------------

    private long creditsOwed()
    {
        return receivesReposted + initialCreditsOwed - creditsReturned;
    }

    private boolean append(final DirectBuffer buffer, final int offset, final int length)
    {
        final int required = LENGTH_PREFIX_LENGTH + length;
        if (!makeRoom(required))
        {
            return false;
        }

        final int frameOffset = openOffset + openLength;
        sendRing.putInt(frameOffset, length, ORDER);
        sendRing.putBytes(frameOffset + LENGTH_PREFIX_LENGTH, buffer, offset, length);
        openLength += required;
        tailPosition += required;
        tailOffset = frameOffset + required;
        framesSent++;

        return true;
    }

    /**
     * Leaves a batch open with room for {@code required} more bytes (a frame and its length), sealing the open one
     * when they would not fit it.
     *
     * @return false when the ring or the batch descriptors have no room now.
     */
    private boolean makeRoom(final int required)
    {
        if (batchOpen)
        {
            final int end = openOffset + openLength;
            if (openLength + required > maxBatchLength || end + required > sendCapacity)
            {
                seal();
            }
            else if (tailPosition - headPosition + required > sendCapacity)
            {
                return false;
            }
        }
        return batchOpen || openBatch(HEADER_LENGTH + required);
    }

    /**
     * Appends the whole frames from the start of a run that fit the open batch (or a new one, when the first does
     * not fit the open one) in one copy.
     *
     * @return bytes of the run taken: 0 when not even its first frame has room now.
     */
    private int appendRun(final DirectBuffer buffer, final int offset, final int length)
    {
        if (!makeRoom(LENGTH_PREFIX_LENGTH + buffer.getInt(offset, ORDER)))
        {
            return 0;
        }
        final int frameOffset = openOffset + openLength;
        // The batch's limit, the ring up to its end (a batch is contiguous), and the ring's free bytes.
        final long room = Math.min(Math.min(maxBatchLength - openLength, sendCapacity - frameOffset),
            sendCapacity - (tailPosition - headPosition));
        int bytes = 0;
        int frames = 0;
        while (bytes < length)
        {
            final int next = LENGTH_PREFIX_LENGTH + buffer.getInt(offset + bytes, ORDER);
            if (bytes + next > room)
            {
                break;
            }
            bytes += next;
            frames++;
        }
        sendRing.putBytes(frameOffset, buffer, offset, bytes);
        openLength += bytes;
        tailPosition += bytes;
        tailOffset = frameOffset + bytes;
        framesSent += frames;
        return bytes;
    }

    /**
     * Opens a batch with room for its header, and, when {@code needed} is more, the first frame,
     * contiguous in the ring: when it would not fit before the end, the rest of the ring is skipped and
     * the batch starts at 0 (the gap is freed with the batch).
     */
    private boolean openBatch(final int needed)
    {
        final boolean wrap = tailOffset + needed > sendCapacity;
        final int gap = wrap ? sendCapacity - tailOffset : 0;
        if (tailPosition - headPosition + gap + needed > sendCapacity || sealedCount - completedCount >= batchCapacity)
        {
            return false;
        }

        final int start = wrap ? 0 : tailOffset;
        tailPosition += gap + HEADER_LENGTH;
        tailOffset = start + HEADER_LENGTH;
        batchOpen = true;
        openOffset = start;
        openLength = HEADER_LENGTH;

        return true;
    }

    private void seal()
    {
        final int index = (int)sealedCount & batchMask;
        batchOffsets[index] = openOffset;
        batchLengths[index] = openLength;
        batchEnds[index] = tailPosition;
        sealedCount++;
        batchOpen = false;
    }

    /** Writes a sealed batch's header and its SEND into the chain; {@link #postSends()} hands the chain over. */
    private int prepare(final boolean lastOfFlush)
    {
        final long sequence = postedCount;
        final int index = (int)sequence & batchMask;
        final int offset = batchOffsets[index];
        final int length = batchLengths[index];
        // Read as late as possible so the header returns every receive re-posted up to now.
        final long owed = creditsOwed();
        sendRing.putInt(offset + CREDITS_OFFSET, (int)owed, ORDER);
        sendRing.putInt(offset + FLAGS_OFFSET, 0, ORDER);

        // The last send of a flush is signalled so that nothing posted waits for a later send to be reaped.
        final boolean signalled = lastOfFlush || sendsSinceSignal + 1 >= signalInterval;
        sendChain[sendChainLength++].clear()
            .wrId(sequence)
            .opcode(Opcode.SEND)
            .flags(signalled ? SendWorkRequest.SIGNALED : 0)
            .addSge(sendRingAddress + offset, length, sendLkey);

        // Counted now: if the chain cannot be posted the link has failed, and nothing is counted again.
        postedCount = sequence + 1;
        creditsUsed++;
        creditsReturned += owed;
        sendsSinceSignal = signalled ? 0 : sendsSinceSignal + 1;
        sendsPosted++;
        if (HEADER_LENGTH == length)
        {
            creditOnlySends++;
        }

        return length;
    }

    /** Posts the chain of SENDs {@link #prepare} wrote, with one call. */
    private void postSends() throws IOException
    {
        final int length = sendChainLength;
        if (0 == length)
        {
            return;
        }
        sendChainLength = 0;
        try
        {
            queuePair.postSend(sendChain, length);
        }
        catch (final IOException ex)
        {
            sendFailure = connection.isDisconnected() ?
                new LinkClosedException("closed by peer " + remoteAddress) :
                new IOException("cannot post a SEND to " + remoteAddress + ": " + ex.getMessage(), ex);
            throw sendFailure;
        }
    }

    private int reap() throws IOException
    {
        if (postedCount == completedCount)
        {
            return 0;
        }

        final int count = sendCq.poll(sendCompletions);
        for (int i = 0; i < count; i++)
        {
            final WorkCompletion completion = sendCompletions[i];
            if (WcStatus.SUCCESS != completion.status())
            {
                sendFailure = completionFailure("send", completion);
                throw sendFailure;
            }

            final long sequence = completion.wrId();
            if (sequence < completedCount || sequence >= postedCount)
            {
                sendFailure = new IOException("send completion for unknown request " + sequence + " on link to " +
                    remoteAddress);
                throw sendFailure;
            }
            // RC completes in order: this one covers the unsignalled sends before it too.
            completedCount = sequence + 1;
            headPosition = batchEnds[(int)sequence & batchMask];
        }

        return count;
    }

    private int reapQuietly()
    {
        try
        {
            return reap();
        }
        catch (final IOException ex)
        {
            // Kept in sendFailure; the next flush reports it.
            return 0;
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // Receive side
    // ---------------------------------------------------------------------------------------------------

    private boolean pollReceiveCompletions(final int framesSoFar) throws IOException
    {
        // Read before polling: the provider flags a disconnect only after the peer's last SENDs completed
        // here, so an empty poll after seeing the flag means nothing more will arrive.
        final boolean disconnected = connection.isDisconnected();
        completionIndex = 0;
        completionCount = receiveCq.poll(receiveCompletions);
        if (0 == completionCount)
        {
            if (disconnected && 0 == framesSoFar)
            {
                throw new LinkClosedException("closed by peer " + remoteAddress);
            }
            return false;
        }

        return true;
    }

    private void onReceiveCompletion(final WorkCompletion completion) throws IOException
    {
        if (WcStatus.SUCCESS != completion.status())
        {
            throw completionFailure("receive", completion);
        }

        final long slot = completion.wrId();
        if (slot < 0 || slot >= receiveCount)
        {
            throw new IOException("receive completion for unknown slot " + slot + " on link to " + remoteAddress);
        }
        receivesCompleted++;

        final int length = completion.byteLength();
        if (length < HEADER_LENGTH || length > slotLength)
        {
            throw new FramingException("SEND of " + length + " bytes from " + remoteAddress + " (must be " +
                HEADER_LENGTH + " to " + slotLength + ")");
        }

        final int base = (int)slot * slotLength;
        final int credits = receiveArea.getInt(base + CREDITS_OFFSET, ORDER);
        if (credits < 0 || credits > MAX_CREDITS_RETURNED)
        {
            throw new FramingException("invalid credits returned " + credits + " from " + remoteAddress);
        }
        if (credits > 0)
        {
            creditsGranted = creditsGranted + credits;
        }

        if (HEADER_LENGTH == length)
        {
            repost((int)slot);
        }
        else
        {
            currentSlot = (int)slot;
            parseOffset = base + HEADER_LENGTH;
            parseEnd = base + length;
        }
    }

    private int deliverFrames(final FrameHandler handler, final int frameLimit) throws IOException
    {
        int frames = 0;
        while (frames < frameLimit && parseOffset < parseEnd)
        {
            final int remaining = parseEnd - parseOffset;
            if (remaining < LENGTH_PREFIX_LENGTH)
            {
                throw new FramingException("truncated frame length (" + remaining + " bytes) from " + remoteAddress);
            }

            final int length = receiveArea.getInt(parseOffset, ORDER);
            if (length <= 0 || length > maxFrameLength)
            {
                throw framingException(length);
            }
            if (length > remaining - LENGTH_PREFIX_LENGTH)
            {
                throw new FramingException("frame length " + length + " overruns its SEND (" +
                    (remaining - LENGTH_PREFIX_LENGTH) + " bytes left) from " + remoteAddress);
            }

            // Consumed before the callback so a handler that throws does not see the frame again.
            final int frameOffset = parseOffset + LENGTH_PREFIX_LENGTH;
            parseOffset = frameOffset + length;
            frames++;
            handler.onFrame(receiveArea, frameOffset, length);
            if (closed)
            {
                return frames;
            }
        }

        if (parseOffset == parseEnd)
        {
            // Every frame of the slot is delivered: the slot goes back to the device and is owed as a credit.
            final int slot = currentSlot;
            currentSlot = -1;
            repost(slot);
        }

        return frames;
    }

    /** Queues a slot whose frames are all delivered for {@link #postReceives()}, which gives it back as a credit. */
    private void repost(final int slot) throws IOException
    {
        receiveChain[receiveChainLength++].set(
            slot, receiveAreaAddress + (long)slot * slotLength, slotLength, receiveLkey);
        if (receiveChainLength == receiveChain.length)
        {
            postReceives();
        }
    }

    /** Posts the queued receives as one chain; only then are they owed to the peer as credits. */
    private void postReceives() throws IOException
    {
        final int length = receiveChainLength;
        if (0 == length)
        {
            return;
        }
        receiveChainLength = 0;
        postReceiveChain(length);
        receivesReposted = receivesReposted + length;
    }

    private void postReceiveChain(final int length) throws IOException
    {
        try
        {
            queuePair.postReceive(receiveChain, length);
        }
        catch (final IOException ex)
        {
            if (connection.isDisconnected())
            {
                throw new LinkClosedException("closed by peer " + remoteAddress);
            }
            throw new IOException("cannot post a receive on link to " + remoteAddress + ": " + ex.getMessage(), ex);
        }
    }

    private void postReceivesQuietly()
    {
        try
        {
            postReceives();
        }
        catch (final IOException ex)
        {
            // The poll is failing already with its own error; the link is done either way.
        }
    }

    private IOException completionFailure(final String what, final WorkCompletion completion)
    {
        // Outstanding requests are flushed when the queue pair leaves RTS, which a disconnect does.
        if (WcStatus.WR_FLUSH_ERROR == completion.status() && connection.isDisconnected())
        {
            return new LinkClosedException("closed by peer " + remoteAddress);
        }

        return new IOException(what + " on link to " + remoteAddress + " failed: " + completion.status());
    }

    private FramingException framingException(final int length)
    {
        if (length > maxFrameLength)
        {
            return new FramingException(
                "frame length " + length + " exceeds maximum " + maxFrameLength + " from " + remoteAddress);
        }

        return new FramingException("invalid frame length " + length + " from " + remoteAddress);
    }

    private static SendWorkRequest[] newSendRequests(final int count)
    {
        final SendWorkRequest[] requests = new SendWorkRequest[count];
        for (int i = 0; i < count; i++)
        {
            requests[i] = new SendWorkRequest();
        }
        return requests;
    }

    private static ReceiveWorkRequest[] newReceiveRequests(final int count)
    {
        final ReceiveWorkRequest[] requests = new ReceiveWorkRequest[count];
        for (int i = 0; i < count; i++)
        {
            requests[i] = new ReceiveWorkRequest();
        }
        return requests;
    }

    private static WorkCompletion[] newCompletions(final int count)
    {
        final WorkCompletion[] completions = new WorkCompletion[count];
        for (int i = 0; i < count; i++)
        {
            completions[i] = new WorkCompletion();
        }

        return completions;
    }
}
