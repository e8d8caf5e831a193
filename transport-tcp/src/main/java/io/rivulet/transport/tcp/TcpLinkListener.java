package io.rivulet.transport.tcp;

import io.rivulet.spi.LinkListener;
import io.rivulet.spi.SocketAddresses;
import org.agrona.collections.Object2IntHashMap;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A listening TCP socket whose accepted connections become {@link TcpLink}s.
 *
 * <p>With TLS, an accepted connection first waits in a bounded list of {@value #MAX_HANDSHAKES} handshakes; it becomes
 * a link only once its handshake completed. So that a crowd of sockets that connect and send nothing cannot keep a
 * real client out or burn the engine thread:
 * <ul>
 *   <li>a handshake advances only when it has something to do: its socket was reported readable (or writable, when
 *       its output waits for room) by the selector, or its last step left more to do at once. A silent socket costs
 *       nothing after its first read attempt.</li>
 *   <li>one remote address (the IP, not the port) may hold at most {@link TlsSettings#maxHandshakesPerAddress()}
 *       handshakes; a connection beyond that is closed at once.</li>
 *   <li>when all slots are taken, a new connection evicts the oldest handshake that has not sent a byte yet; only
 *       when every handshake has sent something does the newcomer wait in the accept backlog.</li>
 *   <li>a handshake that fails or outlasts {@link TlsSettings#handshakeTimeoutNs()} is closed.</li>
 * </ul>
 * Each connection closed that way is reported through {@link #pollRejected()}: the first
 * {@value #MAX_REJECTIONS_KEPT} waiting one by one, any beyond that as one summary, so a flood cannot queue reports
 * without bound. {@link #evictedHandshakes()}, {@link #refusedHandshakes()} and {@link #rejectedConnections()} keep
 * the exact counts. The listener keeps serving throughout.
 *
 * <p>Not thread-safe: owned by the engine thread of the {@link TcpTransportDriver} that created it.
 */
public final class TcpLinkListener implements LinkListener, Selectable
{
    /** Bounds the connections a slow or hostile crowd can hold in the handshake at once. */
    static final int MAX_HANDSHAKES = 256;
    private static final int MAX_REJECTIONS_KEPT = 64;
    /** Connections taken from the backlog per {@link #accept()} call, so that a flood cannot hold the engine. */
    private static final int MAX_ACCEPTS_PER_CALL = MAX_HANDSHAKES;

    private final TcpTransportDriver driver;
    private final Selector selector;
    private final ServerSocketChannel channel;
    private final SelectionKey selectionKey;
    private final String localAddress;

    // Set by the selector, cleared when accept finds nothing; avoids an accept call per duty cycle.
    private boolean acceptable = true;
    private boolean closed;
    /** Accepted connections still handshaking TLS (empty for plain TCP), oldest first: the order of their deadlines. */
    private final ArrayList<PendingHandshake> handshakes = new ArrayList<>();
    /** Handshakes with something to do; swapped with {@link #advancing} while they are advanced. */
    private ArrayList<PendingHandshake> due = new ArrayList<>();
    private ArrayList<PendingHandshake> advancing = new ArrayList<>();
    private final Object2IntHashMap<InetAddress> handshakesPerAddress = new Object2IntHashMap<>(0);
    /** Handshakes whose peer has not sent a byte: the ones a newcomer may evict. */
    private int silentHandshakes;
    private final ArrayDeque<TcpLink> ready = new ArrayDeque<>();
    private final ArrayDeque<Throwable> rejected = new ArrayDeque<>();
    private long unreportedRejections;
    private long rejectedConnections;
    private long evictedHandshakes;
    private long refusedHandshakes;
    private long handshakeSteps;

    TcpLinkListener(final TcpTransportDriver driver, final Selector selector, final ServerSocketChannel channel)
        throws IOException
    {
        this.driver = driver;
        this.selector = selector;
        this.channel = channel;
        localAddress = SocketAddresses.format(channel.getLocalAddress());
        selectionKey = channel.register(selector, SelectionKey.OP_ACCEPT, this);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A connection that fails while being set up (for example reset by its peer at once) is closed
     * and skipped, since it is no fault of the listener.
     */
    @Override
    public TcpLink accept() throws IOException
    {
        if (closed)
        {
            return null;
        }
        if (!driver.isTls())
        {
            return acceptPlain();
        }
        if (ready.isEmpty())
        {
            expireHandshakes(driver.nowNs());
            acceptHandshakes();
            advanceDueHandshakes();
        }
        return ready.poll();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Connections dropped before their TLS handshake completed (failed, timed out, evicted while silent, or
     * refused for their address), each an {@link IOException} naming the peer and the cause; beyond
     * {@value #MAX_REJECTIONS_KEPT} waiting, one summary for the rest.
     */
    @Override
    public Throwable pollRejected()
    {
        final Throwable next = rejected.poll();
        if (null == next && unreportedRejections > 0)
        {
            final IOException summary = new IOException(unreportedRejections + " more connections to " + localAddress +
                " dropped before their TLS handshake completed (too many at once to report one by one)");
            unreportedRejections = 0;
            return summary;
        }
        return next;
    }

    /**
     * @return connections accepted and still in their TLS handshake.
     */
    public int pendingHandshakes()
    {
        return handshakes.size();
    }

    /**
     * @return handshakes closed because they had sent nothing when a newcomer needed their slot.
     */
    public long evictedHandshakes()
    {
        return evictedHandshakes;
    }

    /**
     * @return connections closed at once because their address already held
     *         {@link TlsSettings#maxHandshakesPerAddress()} handshakes.
     */
    public long refusedHandshakes()
    {
        return refusedHandshakes;
    }

    /**
     * @return every connection dropped before its handshake completed, for any cause, reported or summarised.
     */
    public long rejectedConnections()
    {
        return rejectedConnections;
    }

    /**
     * @return handshakes whose peer has sent nothing yet.
     */
    int silentHandshakes()
    {
        return silentHandshakes;
    }

    /**
     * @return times a handshake was advanced: work done for handshakes, which silent peers must not drive up.
     */
    long handshakeSteps()
    {
        return handshakeSteps;
    }

    private TcpLink acceptPlain() throws IOException
    {
        if (!acceptable)
        {
            return null;
        }
        final SocketChannel accepted = channel.accept();
        if (null == accepted)
        {
            acceptable = false;
            return null;
        }

        try
        {
            return driver.newLink(accepted);
        }
        catch (final IOException ex)
        {
            TcpTransportDriver.closeQuietly(accepted);
            return null;
        }
    }

    private void expireHandshakes(final long nowNs)
    {
        while (!handshakes.isEmpty() && nowNs - handshakes.get(0).deadlineNs > 0)
        {
            final PendingHandshake handshake = handshakes.get(0);
            drop(handshake, new IOException("TLS handshake with " + handshake.peer + " failed: not complete within " +
                TimeUnit.NANOSECONDS.toMillis(driver.tlsSettings().handshakeTimeoutNs()) + " ms"));
        }
    }

    private void acceptHandshakes() throws IOException
    {
        for (int i = 0; i < MAX_ACCEPTS_PER_CALL && acceptable; i++)
        {
            if (handshakes.size() >= MAX_HANDSHAKES && 0 == silentHandshakes)
            {
                return; // every slot is working: the newcomer waits in the backlog until one frees
            }
            final SocketChannel accepted = channel.accept();
            if (null == accepted)
            {
                acceptable = false;
                return;
            }
            admit(accepted);
        }
    }

    private void admit(final SocketChannel accepted)
    {
        String peer = "unknown peer";
        try
        {
            TcpLink.configure(accepted, driver.settings());
            final InetSocketAddress remote = (InetSocketAddress)accepted.getRemoteAddress();
            peer = SocketAddresses.format(remote);
            final InetAddress address = remote.getAddress();
            final int fromAddress = handshakesPerAddress.getValue(address);
            final int maxPerAddress = driver.tlsSettings().maxHandshakesPerAddress();
            if (fromAddress >= maxPerAddress)
            {
                refusedHandshakes++;
                TcpTransportDriver.closeQuietly(accepted);
                reject(new IOException("TLS handshake with " + peer + " refused: " + address.getHostAddress() +
                    " has " + fromAddress + " handshakes in progress already (" +
                    TlsSettings.MAX_HANDSHAKES_PER_ADDRESS_PROPERTY + " " + maxPerAddress + ")"));
                return;
            }
            if (handshakes.size() >= MAX_HANDSHAKES)
            {
                evictOldestSilent();
            }
            final TlsSession tls = driver.newTlsSession(accepted, false, null, -1, peer);
            final PendingHandshake handshake = new PendingHandshake(accepted, tls, peer, address,
                driver.nowNs() + driver.tlsSettings().handshakeTimeoutNs());
            handshake.key = accepted.register(selector, SelectionKey.OP_READ, handshake);
            handshakes.add(handshake);
            handshakesPerAddress.put(address, fromAddress + 1);
            silentHandshakes++;
            markDue(handshake); // its ClientHello may have arrived with the connection
        }
        catch (final IOException | RuntimeException ex)
        {
            TcpTransportDriver.closeQuietly(accepted);
            reject(new IOException("connection from " + peer + " failed before its TLS handshake: " + ex, ex));
        }
    }

    private void evictOldestSilent()
    {
        for (int i = 0; i < handshakes.size(); i++)
        {
            final PendingHandshake handshake = handshakes.get(i);
            if (handshake.silent)
            {
                evictedHandshakes++;
                drop(handshake, new IOException("TLS handshake with " + handshake.peer + " evicted: it had sent " +
                    "nothing when a new connection needed its slot (all " + MAX_HANDSHAKES + " were taken)"));
                return;
            }
        }
    }

    private void advanceDueHandshakes()
    {
        final ArrayList<PendingHandshake> batch = due;
        due = advancing;
        advancing = batch;
        for (int i = 0; i < batch.size(); i++)
        {
            final PendingHandshake handshake = batch.get(i);
            handshake.due = false;
            if (!handshake.closed)
            {
                advance(handshake);
            }
        }
        batch.clear();
    }

    private void advance(final PendingHandshake handshake)
    {
        handshakeSteps++;
        try
        {
            if (handshake.tls.handshake())
            {
                remove(handshake);
                final TcpLink link = driver.newLink(handshake.channel, handshake.tls);
                handshake.closed = true; // the link owns the channel and the session from here
                ready.add(link);
                return;
            }
            if (handshake.silent && handshake.tls.hasReceivedBytes())
            {
                handshake.silent = false;
                silentHandshakes--;
            }
            final int interest = handshake.tls.handshakeInterest();
            if (0 == interest)
            {
                markDue(handshake);
            }
            else
            {
                handshake.key.interestOps(interest);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            drop(handshake, ex);
        }
    }

    private void markDue(final PendingHandshake handshake)
    {
        if (!handshake.due)
        {
            handshake.due = true;
            due.add(handshake);
        }
    }

    /** Takes a handshake out of the slots and the counts; idempotent. */
    private void remove(final PendingHandshake handshake)
    {
        if (handshake.removed)
        {
            return;
        }
        handshake.removed = true;
        handshakes.remove(handshake);
        if (handshake.silent)
        {
            silentHandshakes--;
        }
        final int fromAddress = handshakesPerAddress.getValue(handshake.address) - 1;
        if (fromAddress > 0)
        {
            handshakesPerAddress.put(handshake.address, fromAddress);
        }
        else
        {
            handshakesPerAddress.removeKey(handshake.address);
        }
    }

    private void drop(final PendingHandshake handshake, final Throwable failure)
    {
        remove(handshake);
        handshake.close();
        reject(failure);
    }

    private void reject(final Throwable failure)
    {
        rejectedConnections++;
        if (rejected.size() < MAX_REJECTIONS_KEPT)
        {
            rejected.add(failure);
        }
        else
        {
            unreportedRejections++;
        }
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
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            selectionKey.cancel();
            TcpTransportDriver.closeQuietly(channel);
            for (int i = 0; i < handshakes.size(); i++)
            {
                handshakes.get(i).close();
            }
            handshakes.clear();
            handshakesPerAddress.clear();
            silentHandshakes = 0;
            due.clear();
            for (final TcpLink link : ready)
            {
                link.close();
            }
            ready.clear();
            driver.onChannelClosed();
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void onReady(final int readyOps)
    {
        if ((readyOps & SelectionKey.OP_ACCEPT) != 0)
        {
            acceptable = true;
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "TcpLinkListener{" + localAddress + (closed ? ", closed}" : "}");
    }

    /** An accepted connection in its TLS handshake; the selector's attachment for its channel. */
    private final class PendingHandshake implements Selectable
    {
        final SocketChannel channel;
        final TlsSession tls;
        final String peer;
        final InetAddress address;
        final long deadlineNs;
        SelectionKey key;
        /** No byte has come from the peer yet. */
        boolean silent = true;
        /** Listed in {@link #due}. */
        boolean due;
        /** Out of the slots and the counts. */
        boolean removed;
        /** Closed, or handed to a link that owns the channel and session now. */
        boolean closed;

        PendingHandshake(
            final SocketChannel channel, final TlsSession tls, final String peer, final InetAddress address,
            final long deadlineNs)
        {
            this.channel = channel;
            this.tls = tls;
            this.peer = peer;
            this.address = address;
            this.deadlineNs = deadlineNs;
        }

        @Override
        public void onReady(final int readyOps)
        {
            markDue(this);
        }

        /** Closes the connection and frees its TLS buffers; the conductor's thread, outside any handshake step. */
        @Override
        public void close()
        {
            if (!closed)
            {
                closed = true;
                if (null != key)
                {
                    key.cancel();
                }
                TcpTransportDriver.closeQuietly(channel);
                tls.free();
            }
        }
    }
}
