package io.rivulet.spi;

import io.rivulet.counters.CounterFactory;

/**
 * What the engine asks of a transport: frame size limit, buffer sizes, and where to allocate counters. Immutable.
 *
 * @param maxFrameLength         the longest frame (SBE header + body) a link carries in either
 *                               direction; a longer inbound frame is a protocol error.
 * @param sendBufferLength       bytes a link may hold in user space before {@link ReliableLink#offer}
 *                               refuses more (back-pressure); at least {@code maxFrameLength} plus framing.
 * @param receiveBufferLength    bytes a link reads from the network at once; at least
 *                               {@code maxFrameLength} plus framing.
 * @param socketSendBufferLength kernel send buffer hint (SO_SNDBUF), 0 for the OS default.
 * @param socketReceiveBufferLength kernel receive buffer hint (SO_RCVBUF), 0 for the OS default.
 * @param counters               allocates the transport's counters (e.g. RDMA registrations) in the node file;
 *                               {@link CounterFactory#detached()} when the transport runs without a node.
 */
public record TransportSettings(
    int maxFrameLength,
    int sendBufferLength,
    int receiveBufferLength,
    int socketSendBufferLength,
    int socketReceiveBufferLength,
    CounterFactory counters)
{
    /** Bytes of framing a stream transport may add per frame (a length prefix). */
    public static final int FRAMING_ALLOWANCE = 8;

    /** Settings whose counters are {@link CounterFactory#detached() detached} from any node file. */
    public TransportSettings(
        final int maxFrameLength,
        final int sendBufferLength,
        final int receiveBufferLength,
        final int socketSendBufferLength,
        final int socketReceiveBufferLength)
    {
        this(maxFrameLength, sendBufferLength, receiveBufferLength, socketSendBufferLength, socketReceiveBufferLength,
            CounterFactory.detached());
    }

    public TransportSettings
    {
        if (counters == null)
        {
            throw new IllegalArgumentException("counters must not be null (CounterFactory.detached() for none)");
        }
        if (maxFrameLength < 64)
        {
            throw new IllegalArgumentException("maxFrameLength must be at least 64: " + maxFrameLength);
        }
        if (sendBufferLength < maxFrameLength + FRAMING_ALLOWANCE)
        {
            throw new IllegalArgumentException(
                "sendBufferLength " + sendBufferLength + " must hold one frame of maxFrameLength " + maxFrameLength);
        }
        if (receiveBufferLength < maxFrameLength + FRAMING_ALLOWANCE)
        {
            throw new IllegalArgumentException(
                "receiveBufferLength " + receiveBufferLength + " must hold one frame of maxFrameLength " + maxFrameLength);
        }
    }
}
