package io.rivulet.protocol.datagram;

import io.rivulet.counters.UdPathCounters;
import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramSettings;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteOrder;

/**
 * An ordered, reliable channel of frames between one connection's two ends over the node's datagram endpoint:
 * what a connection uses to send its topic data as datagrams. Each direction is one reliable-datagram path
 * ({@link ReliableSender} and {@link ReliableReceiver}, with their window and congestion control).
 *
 * <p>The frames form a stream: each is a 4-byte little-endian length and its bytes, packed back to back into
 * datagram payloads of up to {@code maxPayload} bytes, so small frames share a datagram and a long one spans
 * several (MTU-sized fragments). A length prefix never straddles two datagrams. The receiving end rebuilds the
 * frames in order and hands each to the connection, which treats it as hostile input like any frame.
 *
 * <pre>
 *  sender thread                 conductor                                            network
 *  offer(frame) ─▶ outbound ring ─▶ pack into the path's DatagramRing slots ─▶ ReliableSender ─▶ endpoint
 *                                   frames ◀─ unpack ◀─ ReliableReceiver (in order, once) ◀─ endpoint
 * </pre>
 *
 * <p>Life: made when the connection opens (it picks this end's receiving session), {@link #open opened}
 * when the peer's offer arrives (the peer's address and the session to send on), {@link #close closed} with
 * the connection; {@link DatagramChannels} forgets it on its next duty cycle.
 *
 * <p>Threading: {@link #offer} and {@link #isOpen()} on the sender's thread; everything else on the
 * conductor, which owns the node's endpoint.
 */
public final class DatagramChannel
{
    /** Where a channel delivers what it receives. Conductor thread. */
    public interface FrameSink
    {
        /**
         * One whole frame from the peer, in order; the bytes are valid during the call only.
         */
        void onDatagramFrame(DirectBuffer buffer, int offset, int length);

        /**
         * The peer broke the protocol (a malformed stream, acknowledgements of datagrams never sent): the
         * connection should close with this reason, as a protocol violation.
         */
        void onDatagramViolation(String reason);

        /**
         * The peer stopped acknowledging for longer than the liveness timeout while datagrams were in flight:
         * the connection should close as lost.
         */
        void onDatagramPathLost(String reason);
    }

    /** Bytes of the length in front of each frame in the stream. */
    public static final int LENGTH_PREFIX = 4;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final int FRAME_MESSAGE = 1;
    private static final int FRAMES_PER_CYCLE = 256;

    private final DatagramChannels channels;
    private final DatagramSettings settings;
    private final FrameSink sink;
    private final int maxFrameLength;
    private final String remoteAddress;
    private final long ownerId;
    private final int receiveSessionId;
    private final int receiveInitialSequence;
    private final int maxPayload;
    private final long livenessTimeoutNs;

    // Sender thread to conductor: made by open(), published by the volatile write of open.
    private OneToOneRingBuffer outbound;
    private volatile boolean open;

    // Conductor.
    private final ControlledMessageHandler packer = this::pack;
    private final DatagramMessageHandler unpacker = this::unpack;
    private UnsafeBuffer assembly;
    private int peer = DatagramEndpoint.UNKNOWN_PEER;
    private int sendSessionId;
    private DatagramRing ring;
    private ReliableSender sender;
    private ReliableReceiver receiver;
    private UdPathCounters counters;
    /** Payload offset in the ring of the slot being filled, or -1 when none is open. */
    private int packOffset = -1;
    private int packed;
    /** Length of the frame being rebuilt from several datagrams, or -1 at a frame boundary. */
    private int frameLength = -1;
    private int assembled;
    private boolean closed;
    private boolean failed;
    /** The sending path's cumulative point when it last moved (or nothing was outstanding), and when. */
    private long progressPosition;
    private long progressNs;

    DatagramChannel(
        final DatagramChannels channels,
        final DatagramSettings settings,
        final int maxFrameLength,
        final String remoteAddress,
        final long ownerId,
        final int receiveSessionId,
        final int receiveInitialSequence,
        final long livenessTimeoutNs,
        final FrameSink sink)
    {
        this.livenessTimeoutNs = livenessTimeoutNs;
        this.channels = channels;
        this.settings = settings;
        this.maxFrameLength = maxFrameLength;
        this.remoteAddress = remoteAddress;
        this.ownerId = ownerId;
        this.receiveSessionId = receiveSessionId;
        this.receiveInitialSequence = receiveInitialSequence;
        this.sink = sink;
        this.maxPayload = settings.maxPayload();
    }

    /** @return bytes of the outbound ring: room for several frames of the longest length (Agrona allows 1/8). */
    static int outboundCapacity(final int maxFrameLength)
    {
        return BitUtil.findNextPositivePowerOfTwo(Math.max(1 << 16, 8 * (maxFrameLength + 8)));
    }

    /** @return ring slots one frame of {@code length} bytes may need, with the slot left open before it. */
    static int slotsFor(final int length, final int maxPayload)
    {
        return (maxPayload + LENGTH_PREFIX - 1 + LENGTH_PREFIX + length + maxPayload - 1) / maxPayload + 1;
    }

    // ------------------------------------------------------------------------------------ sender thread

    /** @return true once frames offered go as datagrams (the peer's offer was taken); false until then. */
    public boolean isOpen()
    {
        return open;
    }

    /**
     * Sender thread, once {@link #isOpen()}: queues one whole frame for the peer.
     *
     * @return false when the queue has no room now (back-pressure: try again later).
     */
    public boolean offer(final DirectBuffer buffer, final int offset, final int length)
    {
        return outbound.write(FRAME_MESSAGE, buffer, offset, length);
    }

    // ------------------------------------------------------------------------------------ conductor

    /** @return the session this end receives on (sent to the peer in this end's offer). */
    public int receiveSessionId()
    {
        return receiveSessionId;
    }

    /** @return the sequence of the first datagram this end expects. */
    public int receiveInitialSequence()
    {
        return receiveInitialSequence;
    }

    /**
     * Conductor: the peer's offer arrived; from now on frames go to it as datagrams and its datagrams are
     * received. Called once.
     *
     * @param peer            the peer's endpoint handle.
     * @param sessionId       the session the peer receives on.
     * @param initialSequence the sequence of the peer's first expected datagram.
     */
    void open(final int peer, final int sessionId, final int initialSequence, final UdPathCounters counters)
    {
        final DatagramEndpoint endpoint = channels.endpoint();
        this.peer = peer;
        this.sendSessionId = sessionId;
        this.counters = counters;
        // Memory only for channels the peer agreed to: a peer that keeps its link costs nothing here.
        outbound = new OneToOneRingBuffer(new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            outboundCapacity(maxFrameLength) + RingBufferDescriptor.TRAILER_LENGTH, 64)));
        assembly = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BitUtil.align(maxFrameLength, 64), 64));
        ring = new DatagramRing(settings.ringLength(), maxPayload);
        progressNs = channels.nowNs();
        sender = new ReliableSender(settings, ring, endpoint, peer, sessionId, initialSequence, 0);
        receiver = new ReliableReceiver(settings, endpoint, peer, receiveSessionId, receiveInitialSequence, unpacker);
        open = true;
    }

    /** @return true after {@link #open} (conductor). */
    boolean isStarted()
    {
        return sender != null;
    }

    /**
     * Conductor: the connection closed; nothing more is sent or delivered. Idempotent. {@link #isOpen()} stays
     * true, so that frames a cursor offers while it learns of the close never take the link instead.
     */
    public void close()
    {
        closed = true;
    }

    boolean isClosed()
    {
        return closed;
    }

    /**
     * Conductor: packs queued frames into datagrams, sends and retransmits, acknowledges.
     *
     * @return work done.
     */
    int doWork(final long nowNs)
    {
        if (closed || sender == null)
        {
            return 0;
        }
        int work = outbound.controlledRead(packer, FRAMES_PER_CYCLE);
        if (packOffset >= 0 && packed > 0)
        {
            closeSlot(); // what this cycle packed goes now: batching never waits for more
        }
        work += sender.doWork(nowNs);
        ring.release(sender.ackedPosition());
        work += receiver.doWork(nowNs);
        if (sender.isFailed() && !failed)
        {
            fail("datagram path to " + remoteAddress + " failed: " + sender.failureReason());
        }
        else if (!failed)
        {
            checkProgress(nowNs);
        }
        return work;
    }

    /** Path liveness: datagrams in flight and no acknowledgement for the liveness timeout means the peer is gone. */
    private void checkProgress(final long nowNs)
    {
        final long acked = sender.ackedPosition();
        if (acked != progressPosition || sender.nextPosition() == acked)
        {
            progressPosition = acked;
            progressNs = nowNs;
        }
        else if (nowNs - progressNs > livenessTimeoutNs)
        {
            failed = true;
            sink.onDatagramPathLost("no datagram acknowledged by " + remoteAddress + " for " +
                java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(nowNs - progressNs) + " ms with " + sender.inFlight() +
                " in flight (" + sender.retransmits() + " retransmissions)");
            close();
        }
    }

    private ControlledMessageHandler.Action pack(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (ring.remaining() < slotsFor(length, maxPayload))
        {
            return ControlledMessageHandler.Action.ABORT; // the path's window holds the ring: later
        }
        final UnsafeBuffer slots = ring.buffer();
        if (packOffset >= 0 && maxPayload - packed < LENGTH_PREFIX)
        {
            closeSlot(); // a length prefix never straddles two datagrams
        }
        if (packOffset < 0)
        {
            openSlot();
        }
        slots.putInt(packOffset + packed, length, ORDER);
        packed += LENGTH_PREFIX;
        int copied = 0;
        while (copied < length)
        {
            if (packed == maxPayload)
            {
                closeSlot();
                openSlot();
            }
            final int chunk = Math.min(length - copied, maxPayload - packed);
            slots.putBytes(packOffset + packed, buffer, index + copied, chunk);
            packed += chunk;
            copied += chunk;
        }
        if (packed == maxPayload)
        {
            closeSlot();
        }
        return ControlledMessageHandler.Action.CONTINUE;
    }

    private void openSlot()
    {
        packOffset = ring.nextPayloadOffset();
        packed = 0;
    }

    private void closeSlot()
    {
        ring.commit(packed);
        packOffset = -1;
        packed = 0;
    }

    /** Conductor, from the endpoint: a validated DATA datagram of this channel's receiving session. */
    void onData(final DirectBuffer buffer, final int offset, final long nowNs)
    {
        if (!closed && receiver != null)
        {
            receiver.onDatagram(buffer, offset, nowNs);
        }
    }

    /** Conductor, from the endpoint: a validated ACK or NAK of this channel's sending session. */
    void onControl(final int type, final DirectBuffer buffer, final int offset, final long nowNs)
    {
        if (!closed && sender != null)
        {
            sender.onControl(type, buffer, offset, nowNs);
        }
    }

    /** Rebuilds frames from one in-order payload; the stream is hostile input. */
    private void unpack(final int sessionId, final DirectBuffer buffer, final int offset, final int length)
    {
        int position = offset;
        final int end = offset + length;
        while (position < end && !closed)
        {
            if (frameLength < 0)
            {
                if (end - position < LENGTH_PREFIX)
                {
                    fail("datagram from " + remoteAddress + " ends inside a frame length");
                    return;
                }
                final int next = buffer.getInt(position, ORDER);
                position += LENGTH_PREFIX;
                if (next < 1 || next > maxFrameLength)
                {
                    fail("datagram frame length " + next + " from " + remoteAddress + " outside [1, " +
                        maxFrameLength + "]");
                    return;
                }
                if (end - position >= next)
                {
                    sink.onDatagramFrame(buffer, position, next); // whole in this datagram: no copy
                    position += next;
                    continue;
                }
                frameLength = next;
                assembled = 0;
            }
            final int chunk = Math.min(frameLength - assembled, end - position);
            assembly.putBytes(assembled, buffer, position, chunk);
            assembled += chunk;
            position += chunk;
            if (assembled == frameLength)
            {
                frameLength = -1;
                sink.onDatagramFrame(assembly, 0, assembled);
            }
        }
    }

    private void fail(final String reason)
    {
        failed = true;
        sink.onDatagramViolation(reason);
        close();
    }

    /** Conductor: copies the paths' figures to the node's counters. */
    void sampleCounters()
    {
        if (counters != null && sender != null)
        {
            counters.naksSent.setRelease(receiver.naksSent());
            counters.naksReceived.setRelease(sender.naksReceived());
            counters.retransmissions.setRelease(sender.retransmits());
            counters.rttNs.setRelease(sender.srttNs());
            counters.congestionWindow.setRelease((long)Math.ceil(sender.window()));
        }
    }

    /** Conductor, when forgotten: frees the counters. */
    void release()
    {
        if (counters != null)
        {
            counters.close();
            counters = null;
        }
    }

    int peer()
    {
        return peer;
    }

    int sendSessionId()
    {
        return sendSessionId;
    }

    long ownerId()
    {
        return ownerId;
    }

    String remoteAddress()
    {
        return remoteAddress;
    }

    /** @return the sending path, null before {@link #open}; for counters and tests. */
    public ReliableSender sender()
    {
        return sender;
    }

    /** @return the receiving path, null before {@link #open}. */
    public ReliableReceiver receiver()
    {
        return receiver;
    }

    @Override
    public String toString()
    {
        return "DatagramChannel{" + remoteAddress + ", receive session " + receiveSessionId + ", send session " +
            sendSessionId + (closed ? ", closed" : open ? ", open" : ", waiting for the peer's offer") + "}";
    }
}
