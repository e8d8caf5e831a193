package io.rivulet.transport.tcp;

import io.rivulet.spi.SocketAddresses;
import io.rivulet.spi.LinkListener;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A listening TCP socket whose accepted connections become {@link TcpLink}s.
 *
 * <p>With TLS, an accepted connection first waits in a bounded list of handshakes that each {@link #accept()}
 * advances without blocking; it becomes a link only once the handshake completed. A handshake that fails or
 * outlasts {@link TlsSettings#handshakeTimeoutNs()} closes the connection and is reported through
 * {@link #pollRejected()}; the listener keeps serving.
 *
 * <p>Not thread-safe: owned by the engine thread of the {@link TcpTransportDriver} that created it.
 */
public final class TcpLinkListener implements LinkListener, Selectable
{
    private final TcpTransportDriver driver;
    private final ServerSocketChannel channel;
    private final SelectionKey selectionKey;
    private final String localAddress;

    // Set by the selector, cleared when accept finds nothing; avoids an accept call per duty cycle.
    private boolean acceptable = true;
    private boolean closed;
    /** Accepted connections still handshaking TLS (empty for plain TCP). */
    private final ArrayList<PendingHandshake> handshakes = new ArrayList<>();
    private final ArrayDeque<TcpLink> ready = new ArrayDeque<>();
    private final ArrayDeque<Throwable> rejected = new ArrayDeque<>();
    /** Bounds the connections a slow or hostile crowd can hold in the handshake at once. */
    static final int MAX_HANDSHAKES = 256;
    private static final int MAX_REJECTIONS_KEPT = 64;

    TcpLinkListener(final TcpTransportDriver driver, final Selector selector, final ServerSocketChannel channel)
        throws IOException
    {
        this.driver = driver;
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
            acceptHandshakes();
            advanceHandshakes();
        }
        return ready.poll();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Failed or timed-out TLS handshakes, each an {@link IOException} naming the peer and the cause.
     */
    @Override
    public Throwable pollRejected()
    {
        return rejected.poll();
    }

    /**
     * @return connections accepted and still in their TLS handshake.
     */
    public int pendingHandshakes()
    {
        return handshakes.size();
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

    private void acceptHandshakes() throws IOException
    {
        while (acceptable && handshakes.size() < MAX_HANDSHAKES)
        {
            final SocketChannel accepted = channel.accept();
            if (null == accepted)
            {
                acceptable = false;
                return;
            }
            String peer = "unknown peer";
            try
            {
                TcpLink.configure(accepted, driver.settings());
                peer = SocketAddresses.format(accepted.getRemoteAddress());
                final TlsSession tls = driver.newTlsSession(accepted, false, null, -1, peer);
                handshakes.add(new PendingHandshake(accepted, tls, peer,
                    driver.nowNs() + driver.tlsSettings().handshakeTimeoutNs()));
            }
            catch (final IOException | RuntimeException ex)
            {
                TcpTransportDriver.closeQuietly(accepted);
                reject(new IOException("connection from " + peer + " failed before its TLS handshake: " + ex, ex));
            }
        }
    }

    private void advanceHandshakes()
    {
        final long nowNs = driver.nowNs();
        for (int i = handshakes.size() - 1; i >= 0; i--)
        {
            final PendingHandshake handshake = handshakes.get(i);
            try
            {
                if (handshake.tls.handshake())
                {
                    handshakes.remove(i);
                    ready.add(driver.newLink(handshake.channel, handshake.tls));
                }
                else if (nowNs - handshake.deadlineNs > 0)
                {
                    handshakes.remove(i);
                    TcpTransportDriver.closeQuietly(handshake.channel);
                    handshake.tls.free();
                    reject(new IOException("TLS handshake with " + handshake.peer + " failed: not complete within " +
                        TimeUnit.NANOSECONDS.toMillis(driver.tlsSettings().handshakeTimeoutNs()) + " ms"));
                }
            }
            catch (final IOException | RuntimeException ex)
            {
                handshakes.remove(i);
                TcpTransportDriver.closeQuietly(handshake.channel);
                handshake.tls.free();
                reject(ex);
            }
        }
    }

    private void reject(final Throwable failure)
    {
        if (rejected.size() < MAX_REJECTIONS_KEPT)
        {
            rejected.add(failure);
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
            for (final PendingHandshake handshake : handshakes)
            {
                TcpTransportDriver.closeQuietly(handshake.channel);
                handshake.tls.free();
            }
            handshakes.clear();
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

    /** An accepted connection in its TLS handshake. */
    private static final class PendingHandshake
    {
        final SocketChannel channel;
        final TlsSession tls;
        final String peer;
        final long deadlineNs;

        PendingHandshake(final SocketChannel channel, final TlsSession tls, final String peer, final long deadlineNs)
        {
            this.channel = channel;
            this.tls = tls;
            this.peer = peer;
            this.deadlineNs = deadlineNs;
        }
    }
}
