package io.rivulet.transport.rdma;

import io.rivulet.spi.LinkConnector;

import java.io.IOException;
import java.net.ConnectException;

/**
 * An RC connection being set up ({@code rdma_resolve_addr}, route, {@code rdma_connect}); its queue pair
 * and receives exist from the start, and {@link #poll()} hands out the {@link RdmaLink} once the
 * connection manager reports it established.
 *
 * <p>Not thread-safe: owned by the conductor thread of the {@link RdmaTransportDriver} that created it.
 */
public final class RdmaLinkConnector implements LinkConnector
{
    private final RdmaTransportDriver driver;
    private final String address;
    private final RdmaLink link;
    private IOException failure;
    private boolean established;
    private boolean closed;

    RdmaLinkConnector(final RdmaTransportDriver driver, final String address, final RdmaLink link)
    {
        this.driver = driver;
        this.address = address;
        this.link = link;
    }

    /**
     * A connector whose attempt failed as it started; {@link #poll()} reports the failure.
     */
    RdmaLinkConnector(final RdmaTransportDriver driver, final String address, final IOException failure)
    {
        this.driver = driver;
        this.address = address;
        this.link = null;
        this.failure = failure;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Once connected, later calls return the same link.
     */
    @Override
    public RdmaLink poll() throws IOException
    {
        if (!established && null == failure && !closed)
        {
            doWork();
        }
        if (established)
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

        return null;
    }

    /** @return the address being connected to, as given. */
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
        if (!established && !closed)
        {
            closed = true;
            if (null != link)
            {
                link.close();
            }
            driver.onConnectorDone(this);
        }
    }

    @Override
    public String toString()
    {
        return "RdmaLinkConnector{" + address + (established ? ", connected}" : closed ? ", closed}" : "}");
    }

    int doWork()
    {
        if (established || closed || null != failure)
        {
            return 0;
        }

        try
        {
            if (null == link.connection().poll())
            {
                return 0;
            }
            established = true;
            link.onEstablished();
        }
        catch (final IOException ex)
        {
            failure = failure(address, ex);
            link.close();
        }
        driver.onConnectorDone(this);

        return 1;
    }

    /**
     * Names the address in a connect failure.
     *
     * @param address the attempt was for.
     * @param cause   from the provider.
     * @return an exception whose message names the address, a {@link ConnectException} for a refusal.
     */
    static IOException failure(final String address, final IOException cause)
    {
        final String message = cause.getMessage();
        final String reason = null == message || message.isEmpty() ? cause.getClass().getSimpleName() : message;
        if (reason.contains(address))
        {
            return cause;
        }

        final IOException failure = cause instanceof ConnectException ?
            new ConnectException(reason + ": " + address) :
            new IOException("cannot connect to " + address + ": " + reason);
        failure.initCause(cause);

        return failure;
    }
}
