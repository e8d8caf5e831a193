package io.rivulet.interceptor;

import io.rivulet.Connection;
import io.rivulet.Responder;

import java.util.List;

/**
 * A node's interceptors in the order they were registered, applied as one: the first registered is the
 * outermost, so it sees a request first on both sides (the application's call on the requesting side, the peer's
 * request on the responding side). With none registered it returns what it is given and allocates nothing.
 *
 * <p>Immutable and thread-safe.
 */
public final class Interceptors
{
    /** No interceptors. */
    public static final Interceptors NONE = new Interceptors(List.of());

    private final List<Interceptor> interceptors;

    private Interceptors(final List<Interceptor> interceptors)
    {
        this.interceptors = interceptors;
    }

    /**
     * @param interceptors in registration order.
     * @return them as one, {@link #NONE} when the list is empty.
     */
    public static Interceptors of(final List<Interceptor> interceptors)
    {
        return interceptors.isEmpty() ? NONE : new Interceptors(List.copyOf(interceptors));
    }

    /** @return true when no interceptor is registered. */
    public boolean isEmpty()
    {
        return interceptors.isEmpty();
    }

    /**
     * @param connection as the node made it.
     * @return the connection wrapped by every interceptor, the first registered outermost.
     */
    public Connection requester(final Connection connection)
    {
        Connection wrapped = connection;
        for (int i = interceptors.size() - 1; i >= 0; i--)
        {
            wrapped = java.util.Objects.requireNonNull(interceptors.get(i).requester(wrapped),
                "an interceptor returned no connection");
        }
        return wrapped;
    }

    /**
     * @param responder     the handlers the application gave.
     * @param connectionId  the connection's id.
     * @param localAddress  this node's end.
     * @param remoteAddress the peer's end.
     * @param client        true on the connecting side.
     * @return the handlers wrapped by every interceptor, the first registered outermost; {@code responder} itself
     *         when there are none.
     */
    public Responder responder(
        final Responder responder,
        final long connectionId,
        final String localAddress,
        final String remoteAddress,
        final boolean client)
    {
        if (interceptors.isEmpty())
        {
            return responder;
        }
        final ConnectionInfo info = new ConnectionInfo(connectionId, localAddress, remoteAddress, client);
        Responder wrapped = responder;
        for (int i = interceptors.size() - 1; i >= 0; i--)
        {
            wrapped = java.util.Objects.requireNonNull(interceptors.get(i).responder(wrapped, info),
                "an interceptor returned no responder");
        }
        return wrapped;
    }

    @Override
    public String toString()
    {
        return "Interceptors" + interceptors;
    }
}
