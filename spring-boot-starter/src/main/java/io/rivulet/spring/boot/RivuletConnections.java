package io.rivulet.spring.boot;

import io.rivulet.Reconnector;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import reactor.util.retry.Retry;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Makes the application's client connections from the auto-configured node: each {@link RivuletConnection}
 * reconnects by itself with the {@code rivulet.client.*} back-off, and all of them close when the application
 * context closes (before the node does).
 *
 * <pre>{@code
 * @Bean
 * RivuletConnection quotes(RivuletConnections connections, @Value("${quotes.address}") String address)
 * {
 *     return connections.connect(address);
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class RivuletConnections implements AutoCloseable
{
    private final Rivulet node;
    private final Retry retry;
    private final List<RivuletConnection> connections = new ArrayList<>();
    private boolean closed;

    /**
     * @param node  the node that connects.
     * @param retry the back-off between failed connection attempts.
     */
    public RivuletConnections(final Rivulet node, final Retry retry)
    {
        this.node = Objects.requireNonNull(node, "node");
        this.retry = Objects.requireNonNull(retry, "retry");
    }

    /** @return a pure requester connection to {@code host:port}, connecting on first use. */
    public RivuletConnection connect(final String address)
    {
        return connect(address, Responder.none());
    }

    /**
     * @param address   {@code host:port}.
     * @param responder handlers for requests the server makes over the connection.
     * @return a connection to the address, connecting on first use.
     */
    public RivuletConnection connect(final String address, final Responder responder)
    {
        return connect(address, responder, retry);
    }

    /**
     * @param address   {@code host:port}.
     * @param responder handlers for requests the server makes over the connection.
     * @param retry     the back-off between failed attempts of this connection.
     * @return a connection to the address, connecting on first use.
     * @throws IllegalStateException once the application context closed.
     */
    public RivuletConnection connect(final String address, final Responder responder, final Retry retry)
    {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(responder, "responder");
        final RivuletConnection connection =
            new RivuletConnection(address, new Reconnector(node, () -> node.connect(address, responder), retry));
        synchronized (this)
        {
            if (closed)
            {
                throw new IllegalStateException("RivuletConnections is closed");
            }
            connections.add(connection);
        }
        return connection;
    }

    /** Closes every connection made here. */
    @Override
    public void close()
    {
        final List<RivuletConnection> made;
        synchronized (this)
        {
            closed = true;
            made = List.copyOf(connections);
            connections.clear();
        }
        made.forEach(RivuletConnection::close);
    }
}
