package io.rivulet.transport.tcp;

import io.rivulet.spi.LinkConnector;
import io.rivulet.spi.SocketAddresses;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * A non-blocking TCP connect in progress; {@link #poll()} completes it into a {@link TcpLink}.
 *
 * <p>Not thread-safe: owned by the engine thread of the {@link TcpTransportDriver} that created it.
 */
public final class TcpLinkConnector implements LinkConnector, Selectable
{
    private final TcpTransportDriver driver;
    private final SocketChannel channel;
    private final String address;
    private final SelectionKey selectionKey;

    // Set by the selector when the attempt completed either way; finishConnect is only called then.
    private boolean connectable;
    private TcpLink link;
    private IOException failure;
    private boolean closed;
    /** Set once connected when the driver speaks TLS: the handshake runs before the link comes up. */
    private TlsSession tls;
    /** The handshake has something to do: the selector reported what it waits for, or its last step left more. */
    private boolean handshakeDue;

    TcpLinkConnector(
        final TcpTransportDriver driver,
        final Selector selector,
        final SocketChannel channel,
        final String address,
        final boolean connected) throws IOException
    {
        this.driver = driver;
        this.channel = channel;
        this.address = address;
        this.connectable = connected;
        // Registered even when already connected so that the driver's close reaches this channel.
        selectionKey = channel.register(selector, SelectionKey.OP_CONNECT, this);
    }

    /**
     * A connector whose attempt failed as it started; {@link #poll()} reports the failure.
     */
    TcpLinkConnector(final TcpTransportDriver driver, final String address, final IOException failure)
    {
        this.driver = driver;
        this.channel = null;
        this.address = address;
        this.selectionKey = null;
        this.failure = failure;
        this.closed = true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Once connected, later calls return the same link.
     */
    @Override
    public TcpLink poll() throws IOException
    {
        if (null != link)
        {
            return link;
        }
        if (null != failure)
        {
            throw failure;
        }
        if (closed)
        {
            throw new IOException("connect abandoned: " + address);
        }
        if (null != tls)
        {
            return handshakeDue ? handshake() : null;
        }
        if (!connectable)
        {
            return null;
        }

        connectable = false;
        try
        {
            if (!channel.finishConnect())
            {
                return null;
            }
            if (driver.isTls())
            {
                final java.net.InetSocketAddress remote = (java.net.InetSocketAddress)channel.getRemoteAddress();
                tls = driver.newTlsSession(channel, true, SocketAddresses.resolve(address).getHostString(),
                    remote.getPort(), address);
                selectionKey.interestOps(0); // from here the handshake says what it waits for
            }
            else
            {
                link = driver.newLink(channel);
            }
        }
        catch (final IOException ex)
        {
            failure = connectFailure(address, ex);
            closeChannel();
            throw failure;
        }
        if (null != tls)
        {
            return handshake();
        }

        return link;
    }

    private TcpLink handshake() throws IOException
    {
        handshakeDue = false;
        try
        {
            if (tls.handshake())
            {
                link = driver.newLink(channel, tls);
                return link;
            }
            final int interest = tls.handshakeInterest();
            if (0 == interest)
            {
                handshakeDue = true;
            }
            else
            {
                selectionKey.interestOps(interest);
            }
            return null;
        }
        catch (final IOException ex)
        {
            failure = ex;
            closeChannel();
            throw ex;
        }
    }

    /**
     * @return the address being connected to, as given.
     */
    public String address()
    {
        return address;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        if (null == link && !closed)
        {
            closeChannel();
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void onReady(final int readyOps)
    {
        if ((readyOps & SelectionKey.OP_CONNECT) != 0)
        {
            connectable = true;
        }
        if ((readyOps & (SelectionKey.OP_READ | SelectionKey.OP_WRITE)) != 0)
        {
            handshakeDue = true;
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "TcpLinkConnector{" + address + (null != link ? ", connected}" : closed ? ", closed}" : "}");
    }

    /**
     * Names the address in a connect failure, which the JDK leaves out ("Connection refused").
     *
     * @param address the attempt was for.
     * @param cause   from the JDK.
     * @return an exception whose message names the address, of the same kind when it is a refusal.
     */
    static IOException connectFailure(final String address, final IOException cause)
    {
        final String reason = reason(cause);
        final IOException failure = cause instanceof ConnectException ?
            new ConnectException(reason + ": " + address) :
            new IOException("cannot connect to " + address + ": " + reason);
        failure.initCause(cause);

        return failure;
    }

    private static String reason(final IOException cause)
    {
        final String message = cause.getMessage();
        if (null == message || message.isEmpty())
        {
            return cause.getClass().getSimpleName();
        }

        return Character.toLowerCase(message.charAt(0)) + message.substring(1);
    }

    private void closeChannel()
    {
        closed = true;
        selectionKey.cancel();
        TcpTransportDriver.closeQuietly(channel);
        if (null != tls)
        {
            tls.free(); // no link took the session: its buffers go with the connection
        }
        driver.onChannelClosed();
    }
}
