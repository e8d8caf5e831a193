package io.rivulet.transport.rdma;

import io.rivulet.spi.SocketAddresses;
import io.rivulet.spi.LinkListener;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CmRequest;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A listening RDMA CM id whose accepted connections become {@link RdmaLink}s.
 *
 * <p>The driver's {@link RdmaTransportDriver#doWork(long)} takes connection requests, accepts each with
 * a new queue pair whose receives are posted at once, and moves it to the accepted queue once the
 * connection is established; {@link #accept()} hands those out. A request that cannot be served (no
 * registered memory left, queue pair creation failed) is rejected, which is no fault of the listener; a
 * handshake that does not complete within {@link #HANDSHAKE_TIMEOUT_NS} is abandoned.
 *
 * <p>Not thread-safe: owned by the conductor thread of the {@link RdmaTransportDriver} that created it.
 */
public final class RdmaLinkListener implements LinkListener
{
    /** How long an accepted connection may take to become established. */
    public static final long HANDSHAKE_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    private final RdmaTransportDriver driver;
    private final CmListener cmListener;
    private final String localAddress;
    private final ArrayList<RdmaLink> handshaking = new ArrayList<>();
    private final ArrayDeque<RdmaLink> established = new ArrayDeque<>();
    private IOException failure;
    private long rejected;
    private boolean closed;

    RdmaLinkListener(final RdmaTransportDriver driver, final CmListener cmListener)
    {
        this.driver = driver;
        this.cmListener = cmListener;
        this.localAddress = SocketAddresses.format(cmListener.localAddress());
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public RdmaLink accept() throws IOException
    {
        if (null != failure)
        {
            throw failure;
        }

        return closed ? null : established.pollFirst();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String localAddress()
    {
        return localAddress;
    }

    /** @return connection requests rejected because they could not be served. */
    public long rejected()
    {
        return rejected;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Also closes accepted links not yet handed out.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;

        RdmaTransportDriver.closeQuietly(cmListener);
        for (int i = handshaking.size() - 1; i >= 0; i--)
        {
            handshaking.get(i).close();
        }
        handshaking.clear();
        RdmaLink link;
        while (null != (link = established.pollFirst()))
        {
            link.close();
        }
        driver.onListenerClosed(this);
    }

    @Override
    public String toString()
    {
        return "RdmaLinkListener{" + localAddress + (closed ? ", closed}" : "}");
    }

    int doWork(final long nowNs)
    {
        if (closed || null != failure)
        {
            return 0;
        }

        int work = 0;
        try
        {
            CmRequest request;
            while (null != (request = cmListener.poll()))
            {
                work++;
                onRequest(request);
            }
        }
        catch (final IOException ex)
        {
            failure = new IOException("listener " + localAddress + " failed: " + ex.getMessage(), ex);
            return work + 1;
        }

        for (int i = handshaking.size() - 1; i >= 0; i--)
        {
            final RdmaLink link = handshaking.get(i);
            try
            {
                if (null != link.connection().poll())
                {
                    handshaking.remove(i);
                    link.onEstablished();
                    established.addLast(link);
                    work++;
                }
                else if (nowNs - link.createdNs() > HANDSHAKE_TIMEOUT_NS)
                {
                    handshaking.remove(i);
                    link.close();
                    work++;
                }
            }
            catch (final IOException ex)
            {
                // The peer went away during the handshake: nothing for the engine to hear about.
                handshaking.remove(i);
                link.close();
                work++;
            }
        }

        return work;
    }

    private void onRequest(final CmRequest request)
    {
        try
        {
            handshaking.add(driver.newLink(request::accept));
        }
        catch (final IOException | RuntimeException ex)
        {
            rejected++;
            try
            {
                request.reject();
            }
            catch (final RuntimeException ignore)
            {
                // Already refused or gone; the peer's connect fails either way.
            }
        }
    }
}
