package io.rivulet.micrometer.observation;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import io.rivulet.Metadata;
import io.rivulet.interceptor.ConnectionInfo;

/**
 * The observation context of a request this node serves: its interaction model, route and outcome, the connection,
 * and the request's composite metadata as the carrier the tracing handler reads the trace context from (empty
 * when the request had none or raw metadata).
 *
 * <p>Thread-safe for its own fields (volatile).
 */
public final class RivuletResponderContext extends ReceiverContext<Metadata>
{
    private final Interaction interaction;
    private final ConnectionInfo connection;
    private final String route;
    private volatile Outcome outcome = Outcome.UNKNOWN;

    /**
     * @param interaction the request's model.
     * @param connection  the connection it arrived on.
     * @param metadata    the request's composite metadata.
     */
    public RivuletResponderContext(
        final Interaction interaction, final ConnectionInfo connection, final Metadata metadata)
    {
        super((carrier, key) -> carrier == null ? null : carrier.get(key), Kind.SERVER);
        this.interaction = interaction;
        this.connection = connection;
        this.route = metadata.route();
        setCarrier(metadata);
        setRemoteServiceAddress(KeyNames.serviceAddress(connection.remoteAddress()));
    }

    public Interaction interaction()
    {
        return interaction;
    }

    public ConnectionInfo connection()
    {
        return connection;
    }

    public String remoteAddress()
    {
        return connection.remoteAddress();
    }

    /** @return the request's route, or null when it has none. */
    public String route()
    {
        return route;
    }

    public Outcome outcome()
    {
        return outcome;
    }

    void outcome(final Outcome outcome)
    {
        this.outcome = outcome;
    }
}
