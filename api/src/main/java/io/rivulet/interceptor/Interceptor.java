package io.rivulet.interceptor;

import io.rivulet.Connection;
import io.rivulet.Responder;

/**
 * Wraps a node's connections, as RSocket's {@code RSocketInterceptor} does: the requesting side sees each request
 * the application starts on a connection it got from {@code connect}, the responding side each request a peer
 * starts. Register with {@code Rivulet.Context.interceptor(...)}; the node applies every interceptor to every
 * connection, client and server side. A node without interceptors wraps nothing.
 *
 * <p>Both methods are called once per connection on the engine's conductor thread ({@link #responder} as the
 * connection starts, {@link #requester} as its connect completes), so they must be quick and must not block:
 * build the wrapper, and do the work in the wrapper's publishers. The wrappers run on the threads the wrapped
 * objects run on (see {@link Connection} and {@link Responder}). Implementations must be thread-safe.
 */
public interface Interceptor
{
    /**
     * Wraps the connection the application requests on (extend {@link ForwardingConnection} to change only some
     * methods). Requests of the zero-copy {@link Connection#offer} path may be passed through unwrapped.
     *
     * @param connection the connection as the node made it.
     * @return the connection to hand to the application; {@code connection} itself to leave it alone.
     */
    default Connection requester(final Connection connection)
    {
        return connection;
    }

    /**
     * Wraps the handlers that serve a connection's peer. A handler the given responder lacks should stay missing,
     * so that requests of its kind are still rejected.
     *
     * @param responder  the handlers the application gave for this connection.
     * @param connection which connection they serve.
     * @return the handlers to serve with; {@code responder} itself to leave it alone.
     */
    default Responder responder(final Responder responder, final ConnectionInfo connection)
    {
        return responder;
    }
}
