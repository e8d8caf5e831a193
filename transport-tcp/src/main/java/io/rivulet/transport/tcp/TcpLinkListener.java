package io.rivulet.transport.tcp;

import io.rivulet.spi.SocketAddresses;
import io.rivulet.spi.LinkListener;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A listening TCP socket whose accepted connections become {@link TcpLink}s.
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
        if (!acceptable || closed)
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
}
