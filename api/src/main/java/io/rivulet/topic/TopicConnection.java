package io.rivulet.topic;

import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.FrameOutlet;
import io.rivulet.spi.SocketAddresses;
import io.rivulet.spi.Violation;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * What the publisher side and the subscriber side of one connection's topic layer share: the control-frame
 * path (with the queue that keeps SUBSCRIBE and UNSUBSCRIBE in order), the {@link TopicLink} the cursors send
 * on (the link, or the data path once both ends agreed to it), the clock of the current duty cycle or frame,
 * the closed state, and protocol violations, which close the connection.
 *
 * <p>Thread-safety: the conductor, except the link's {@code offer}, {@code offerRun} and {@code isSending} (sender
 * thread) and {@link #isClosed()} (any thread).
 */
final class TopicConnection
{
    private final ConnectionServices connection;
    private final TopicLink link = new Link();
    private final ArrayDeque<byte[]> pendingControl = new ArrayDeque<>();
    /** Where cursor frames go when it is open (datagrams); null or closed: the link. Sender thread reads it. */
    private volatile TopicDataPath dataPath;
    /** What the peer's MULTICAST_OFFER said (conductor writes once, the sender thread reads); null: no offer. */
    private volatile PeerMulticast peerMulticast;
    private long nowNs;
    private Throwable closeCause;
    private volatile boolean closed;

    TopicConnection(final ConnectionServices connection)
    {
        this.connection = connection;
    }

    TopicLink link()
    {
        return link;
    }

    TopicDataPath dataPath()
    {
        return dataPath;
    }

    void useDataPath(final TopicDataPath path)
    {
        this.dataPath = path;
    }

    /** @return the peer's multicast offer, or null when it takes no topic data from groups. Any thread. */
    PeerMulticast peerMulticast()
    {
        return peerMulticast;
    }

    /** Conductor, once: the peer takes topic data from multicast groups. */
    void peerMulticast(final PeerMulticast offer)
    {
        this.peerMulticast = offer;
    }

    /** @return the peer's host as the connection reaches it (no port, no brackets), for a wildcard in its offers. */
    String remoteHost()
    {
        return SocketAddresses.host(connection.remoteAddress());
    }

    /**
     * A subscriber node's multicast offer: where its receiving endpoint is, its tag and the largest log it mirrors.
     * The sender thread resolves the address once, for every cursor of the connection.
     */
    static final class PeerMulticast
    {
        final String address;
        final String remoteHost;
        final long tag;
        final int maxImage;
        /** Sender thread: the address's handle on the publishing endpoint; -1 unresolved, -2 refused. */
        int handle = -1;

        PeerMulticast(final String address, final String remoteHost, final long tag, final int maxImage)
        {
            this.address = address;
            this.remoteHost = remoteHost;
            this.tag = tag;
            this.maxImage = maxImage;
        }
    }

    /** Conductor: the clock of the duty cycle or frame being handled; both sides read it between the two. */
    void now(final long nowNs)
    {
        this.nowNs = nowNs;
    }

    long nowNs()
    {
        return nowNs;
    }

    /**
     * Conductor: the connection is closing.
     *
     * @return false if it was already closing: nothing more to do.
     */
    boolean close(final Throwable cause)
    {
        if (closeCause != null)
        {
            return false;
        }
        closeCause = cause;
        closed = true;
        return true;
    }

    /** @return what closed the connection, null while it is open. Conductor. */
    Throwable closeCause()
    {
        return closeCause;
    }

    /** Any thread: true once the connection is closing, when no more duty cycles come. */
    boolean isClosed()
    {
        return closed;
    }

    /** Reports a broken rule to the connection, which closes. @return false, for the handlers to return. */
    boolean violation(final Violation reason, final String detail)
    {
        connection.violation(reason, detail);
        return false;
    }

    /** SUBSCRIBE and UNSUBSCRIBE must not be lost or reordered: queued while the outbound ring is full. */
    void sendOrQueue(final UnsafeBuffer buffer, final int length)
    {
        if (pendingControl.isEmpty() && link.sendControl(buffer, 0, length))
        {
            return;
        }
        pendingControl.add(Arrays.copyOf(buffer.byteArray(), length));
    }

    /** @return control frames sent from the queue. */
    int flushPendingControl()
    {
        int work = 0;
        byte[] frame;
        while ((frame = pendingControl.peek()) != null && link.sendControl(new UnsafeBuffer(frame), 0, frame.length))
        {
            pendingControl.poll();
            work++;
        }
        return work;
    }

    void clearPendingControl()
    {
        pendingControl.clear();
    }

    /** What the cursors see of the connection: control frames, and data on the link or the data path. */
    private final class Link implements TopicLink
    {
        @Override
        public boolean sendControl(final DirectBuffer buffer, final int offset, final int length)
        {
            return connection.sendControl(buffer, offset, length);
        }

        @Override
        public boolean offer(final DirectBuffer buffer, final int offset, final int length)
        {
            return outlet().offer(buffer, offset, length);
        }

        @Override
        public int offerRun(final DirectBuffer buffer, final int offset, final int length)
        {
            return outlet().offerRun(buffer, offset, length);
        }

        /** Sender thread: the data path once both ends agreed to it, else the link's send half. */
        private FrameOutlet outlet()
        {
            final TopicDataPath path = dataPath;
            return path != null && path.isOpen() ? path : connection;
        }

        @Override
        public boolean isSending()
        {
            return connection.isSending();
        }

        @Override
        public int maxFrameLength()
        {
            return connection.maxFrameLength();
        }

        @Override
        public String remoteAddress()
        {
            return connection.remoteAddress();
        }
    }
}
