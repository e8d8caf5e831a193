package io.rivulet.transport.rdma.soft;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * A device's datagram endpoint for UD traffic: a UDP socket, or an inbox on the in-memory fabric. It
 * carries whole datagrams ({@link SoftDatagrams} lays them out) and never guarantees delivery. Used
 * by its NIC thread only, except where noted.
 */
interface DatagramPort
{
    /** Receives one datagram; the buffer is valid only during the call. */
    interface Handler
    {
        void onDatagram(UnsafeBuffer buffer, int offset, int length);

        /** Receives one copy of a datagram sent to a multicast group this device is attached to (in process only). */
        void onGroupDatagram(UnsafeBuffer buffer, int offset, int length);
    }

    /** @return the address peers put in their address handles, {@code host:port}. */
    String gid();

    /** @return where datagrams for this address handle go, or null when nothing is there (drop). */
    Object resolve(SoftAddressHandle addressHandle);

    /**
     * Sends a datagram; silently dropped when the medium has no room, as a switch would.
     *
     * @return false when dropped for want of room or destination.
     */
    boolean send(Object route, UnsafeBuffer buffer, int length);

    /** @return how many datagrams were delivered to the handler. */
    int poll(Handler handler);

    void close();
}
