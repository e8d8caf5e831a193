package io.rivulet.micrometer.observation;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;

/**
 * The observation context of a request this node sends: its interaction model, route and outcome, and the
 * {@link MetadataCarrier} that the tracing handler writes the trace context into.
 *
 * <p>Thread-safe for its own fields (volatile): a channel's route is learnt on the thread that sends its first
 * message.
 */
public final class RivuletRequesterContext extends SenderContext<MetadataCarrier>
{
    private final Interaction interaction;
    private final String remoteAddress;
    private volatile String route;
    private volatile Outcome outcome = Outcome.UNKNOWN;

    /**
     * @param interaction   the request's model.
     * @param remoteAddress the peer's address.
     */
    public RivuletRequesterContext(final Interaction interaction, final String remoteAddress)
    {
        super((carrier, key, value) ->
        {
            if (carrier != null)
            {
                carrier.put(key, value);
            }
        }, Kind.CLIENT);
        this.interaction = interaction;
        this.remoteAddress = remoteAddress;
        setCarrier(new MetadataCarrier());
        setRemoteServiceAddress(KeyNames.serviceAddress(remoteAddress));
    }

    public Interaction interaction()
    {
        return interaction;
    }

    public String remoteAddress()
    {
        return remoteAddress;
    }

    /** @return the request's route ({@code io.rivulet.Metadata.ROUTE}), or null when it has none. */
    public String route()
    {
        return route;
    }

    void route(final String route)
    {
        this.route = route;
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
