package io.rivulet.spi;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * An unreliable, message-bounded endpoint that reaches many peers: a UD queue pair, later a UDP socket.
 * Datagrams may be lost, duplicated or reordered; each arrives whole or not at all. Reliability on top
 * of it lives once in {@code io.rivulet.protocol.datagram}, not in each transport.
 *
 * <p>Peers are named by small integer handles the endpoint hands out from {@link #resolve(String)}
 * (on RDMA an address handle plus QP number and Q_Key; on UDP a socket address), so the data path
 * passes an {@code int} and never allocates.
 *
 * <p>Threading: one thread (the agent that owns the reliable-datagram state) calls every method.
 * No method blocks.
 */
public interface DatagramEndpoint extends AutoCloseable
{
    /** Receives one datagram; the buffer is valid only during the call. */
    @FunctionalInterface
    interface DatagramHandler
    {
        /**
         * @param peer   handle of the sender when the endpoint knows it, else {@link #UNKNOWN_PEER}.
         * @param buffer holding the datagram.
         * @param offset of the datagram.
         * @param length of the datagram, 1 to {@link #maxDatagramLength()}.
         */
        void onDatagram(int peer, DirectBuffer buffer, int offset, int length);
    }

    /** Peer handle reported for a datagram whose source is not a resolved peer. */
    int UNKNOWN_PEER = -1;

    /** @return the longest datagram {@link #send} accepts (the path MTU less transport headers). */
    int maxDatagramLength();

    /** @return the address peers pass to their {@link #resolve(String)} to reach this endpoint. */
    String localAddress();

    /**
     * Resolves a peer's address to a handle (control plane; may allocate).
     *
     * @param address as the peer's {@link #localAddress()} reports it.
     * @return a handle, zero or more, for {@link #send}.
     * @throws IllegalArgumentException when the address cannot be parsed.
     */
    int resolve(String address);

    /**
     * Resolves an address a peer offered over a connection (control plane; may allocate). An endpoint bound to every
     * interface may offer an address whose host is a wildcard ({@code 0.0.0.0}, {@code ::}): it means "the host you
     * reach me at", and the connection's remote host stands in for it. Default: {@link #resolve(String)}.
     *
     * @param address    as the peer offered it.
     * @param remoteHost the host of the connection the offer came over ({@code 10.0.0.7}, {@code ::1}), for a
     *                   wildcard; may be null.
     * @return a handle, as {@link #resolve(String)}.
     * @throws IllegalArgumentException when the address cannot be parsed.
     */
    default int resolve(final String address, final String remoteHost)
    {
        return resolve(address);
    }

    /**
     * Sends one datagram, copied before the call returns. Delivery is not guaranteed.
     *
     * @param peer   handle from {@link #resolve(String)}.
     * @param buffer holding the datagram.
     * @param offset of the datagram.
     * @param length 1 to {@link #maxDatagramLength()}.
     * @return false when the endpoint has no room now (nothing was sent): back-pressure, try later.
     */
    boolean send(int peer, DirectBuffer buffer, int offset, int length);

    /**
     * Zero-copy sending, optional: memory registered with the endpoint's device, from which
     * {@link #sendFromRegion} posts without copying, so one message stored there can go to many peers. At most
     * one region per endpoint.
     *
     * @param length bytes.
     * @return the region's memory, or null when this endpoint copies every datagram (or already gave its region).
     */
    default UnsafeBuffer allocateSendRegion(final int length)
    {
        return null;
    }

    /**
     * Sends a datagram made of a header, copied now, and a payload read from the send region when the device
     * sends it: the payload must stay unchanged until {@link #sendsCompleted()} covers this send.
     *
     * @param peer          handle from {@link #resolve(String)}.
     * @param header        holding the header.
     * @param headerOffset  of the header.
     * @param headerLength  of the header.
     * @param regionOffset  of the payload in the region {@link #allocateSendRegion} gave.
     * @param payloadLength of the payload; header and payload together at most {@link #maxDatagramLength()}.
     * @return false when the endpoint has no room now (nothing was sent).
     * @throws UnsupportedOperationException when the endpoint gave no send region.
     */
    default boolean sendFromRegion(
        final int peer,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final int regionOffset,
        final int payloadLength)
    {
        throw new UnsupportedOperationException("this endpoint copies every datagram: use send");
    }

    /**
     * @return sends accepted so far ({@link #send} and {@link #sendFromRegion}), numbered from 1 in order: the
     *         value right after a send is that send's number.
     */
    default long sendsPosted()
    {
        return 0;
    }

    /**
     * @return how many sends, in the order they were posted, the endpoint has finished with (sent or failed): their
     *         memory may be reused. Only meaningful with a send region.
     */
    default long sendsCompleted()
    {
        return Long.MAX_VALUE;
    }

    /**
     * Once, as the node starts and before its engine runs: puts every socket this endpoint receives on, now and
     * whenever it opens another (a group joined), into {@code watch}, so that an engine sleeping in its transport's
     * selector wakes for its datagrams. An endpoint that cannot (an RDMA completion queue) answers false, and the
     * engine then parks instead of sleeping in the selector.
     *
     * @param watch the transport driver's ({@link TransportDriver#readinessWatch()}).
     * @return true when its sockets are watched from now on.
     */
    default boolean wakeWhenReadable(final ReadinessWatch watch)
    {
        return false;
    }

    /**
     * Delivers received datagrams to the handler.
     *
     * @param handler receives each datagram.
     * @param limit   most datagrams delivered in this call.
     * @return datagrams delivered.
     */
    int poll(DatagramHandler handler, int limit);

    @Override
    void close();
}
