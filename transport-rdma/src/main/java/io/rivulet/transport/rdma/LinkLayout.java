package io.rivulet.transport.rdma;

import io.rivulet.spi.TransportSettings;
import org.agrona.BitUtil;

/**
 * The sizes every {@link RdmaLink} of one driver shares, derived once from the {@link TransportSettings}:
 * receive buffers ("slots") and how many are posted, the send ring, the work queue depths, and how
 * often sends are signalled.
 *
 * <p>The receive slot length depends on {@code maxFrameLength} only, so two nodes configured with the
 * same maximum frame agree on the largest SEND either may post without any negotiation.
 *
 * <p>Immutable and thread-safe.
 */
public final class LinkLayout
{
    /** Alignment of send rings and receive slots: a cache line. */
    public static final int ALIGNMENT = 64;
    /** Fewest receives posted per link: the initial credits, one reserved credit and room to batch. */
    public static final int MIN_RECEIVE_COUNT = 4;
    /** Most receives posted per link. */
    public static final int MAX_RECEIVE_COUNT = 1024;
    /** Fewest send work requests outstanding per link. */
    public static final int MIN_SEND_WORK_REQUESTS = 16;
    /** Most send work requests outstanding per link. */
    public static final int MAX_SEND_WORK_REQUESTS = 1024;
    /** Longest run of unsignalled sends. */
    public static final int MAX_SIGNAL_INTERVAL = 16;

    private final int maxFrameLength;
    private final int receiveSlotLength;
    private final int receiveCount;
    private final int sendRingLength;
    private final int maxSendWorkRequests;
    private final int signalInterval;
    private final int creditReturnThreshold;
    private final int batchCapacity;

    /**
     * @param maxFrameLength      the longest frame either way.
     * @param sendBufferLength    bytes of send ring wanted per link; raised to hold two full SENDs.
     * @param receiveBufferLength bytes of receive buffers wanted per link; divided into slots of one
     *                            full SEND each, at least {@link #MIN_RECEIVE_COUNT}.
     */
    public LinkLayout(final int maxFrameLength, final int sendBufferLength, final int receiveBufferLength)
    {
        if (maxFrameLength < 1)
        {
            throw new IllegalArgumentException("maxFrameLength must be positive: " + maxFrameLength);
        }
        this.maxFrameLength = maxFrameLength;
        receiveSlotLength = BitUtil.align(
            RdmaLink.HEADER_LENGTH + RdmaLink.LENGTH_PREFIX_LENGTH + maxFrameLength, ALIGNMENT);
        receiveCount = Math.max(MIN_RECEIVE_COUNT, Math.min(MAX_RECEIVE_COUNT, receiveBufferLength / receiveSlotLength));
        // Two full SENDs so one can be filled while the other is on the wire, and so the gap left at the
        // end of the ring when a batch wraps never starves a whole batch.
        sendRingLength = BitUtil.align(Math.max(sendBufferLength, 2 * receiveSlotLength), ALIGNMENT);
        maxSendWorkRequests = BitUtil.findNextPositivePowerOfTwo(
            Math.max(MIN_SEND_WORK_REQUESTS, Math.min(MAX_SEND_WORK_REQUESTS, 2 * receiveCount)));
        signalInterval = Math.max(1, Math.min(MAX_SIGNAL_INTERVAL, maxSendWorkRequests / 4));
        creditReturnThreshold = Math.max(1, receiveCount / 2);
        // Batches posted and not yet completed are bounded by the send queue; batches sealed and waiting
        // for credits by the ring, where two consecutive batches always hold more than one slot's worth
        // of bytes, except the batch cut short by the wrap.
        batchCapacity = BitUtil.findNextPositivePowerOfTwo(
            maxSendWorkRequests + 2 * (sendRingLength / receiveSlotLength) + 4);
    }

    /**
     * @param settings from the engine.
     * @return the layout for those settings.
     */
    public static LinkLayout of(final TransportSettings settings)
    {
        return new LinkLayout(settings.maxFrameLength(), settings.sendBufferLength(), settings.receiveBufferLength());
    }

    /** @return the longest frame either way. */
    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    /** @return bytes of one receive buffer, which is also the longest SEND a link posts. */
    public int receiveSlotLength()
    {
        return receiveSlotLength;
    }

    /** @return receives kept posted per link (R): the credits a peer may hold. */
    public int receiveCount()
    {
        return receiveCount;
    }

    /** @return bytes of the send ring per link. */
    public int sendRingLength()
    {
        return sendRingLength;
    }

    /** @return bytes of receive buffers per link. */
    public int receiveAreaLength()
    {
        return receiveCount * receiveSlotLength;
    }

    /** @return bytes of registered memory one link borrows: its send ring then its receive slots. */
    public int stripeLength()
    {
        return sendRingLength + receiveAreaLength();
    }

    /** @return the send queue depth ({@code max_send_wr}). */
    public int maxSendWorkRequests()
    {
        return maxSendWorkRequests;
    }

    /** @return every how many sends one is signalled at the latest. */
    public int signalInterval()
    {
        return signalInterval;
    }

    /** @return credits owed to the peer that justify a SEND with no frames in it. */
    public int creditReturnThreshold()
    {
        return creditReturnThreshold;
    }

    /** @return descriptors of batches kept per link, a power of two. */
    public int batchCapacity()
    {
        return batchCapacity;
    }

    @Override
    public String toString()
    {
        return "LinkLayout{maxFrameLength=" + maxFrameLength +
            ", receiveSlotLength=" + receiveSlotLength +
            ", receiveCount=" + receiveCount +
            ", sendRingLength=" + sendRingLength +
            ", maxSendWorkRequests=" + maxSendWorkRequests +
            ", signalInterval=" + signalInterval +
            ", creditReturnThreshold=" + creditReturnThreshold + "}";
    }
}
