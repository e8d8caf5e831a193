package io.rivulet.micrometer.observation;

import io.micrometer.common.KeyValues;

/** The tag keys both sides' conventions use. Constants only. */
public final class KeyNames
{
    /** The interaction model ({@link Interaction#tagValue()}). */
    public static final String INTERACTION = "rivulet.interaction";
    /** The request's route, {@value #NONE} without one. */
    public static final String ROUTE = "rivulet.route";
    /** {@link Outcome}. */
    public static final String OUTCOME = "outcome";
    /** The peer's address: high cardinality, so on spans only. */
    public static final String REMOTE_ADDRESS = "rivulet.remote.address";
    /** The value of a tag that has nothing to say. */
    public static final String NONE = "none";

    private KeyNames()
    {
    }

    static String contextualName(final Interaction interaction, final String route)
    {
        return route == null ? interaction.tagValue() : interaction.tagValue() + " " + route;
    }

    static KeyValues low(final Interaction interaction, final String route, final Outcome outcome)
    {
        return KeyValues.of(INTERACTION, interaction.tagValue(), ROUTE, route == null ? NONE : route,
            OUTCOME, outcome.name());
    }

    static KeyValues high(final String remoteAddress)
    {
        return KeyValues.of(REMOTE_ADDRESS, remoteAddress == null ? NONE : remoteAddress);
    }

    /**
     * @return the peer's address as the URI the tracing handlers parse into the span's peer host and port
     *         ({@code rivulet://host:port}), or null when it does not parse as one (they would log a warning).
     */
    static String serviceAddress(final String remoteAddress)
    {
        if (remoteAddress == null)
        {
            return null;
        }
        try
        {
            final java.net.URI uri = new java.net.URI("rivulet://" + remoteAddress);
            return uri.getHost() != null && uri.getPort() != -1 ? uri.toString() : null;
        }
        catch (final java.net.URISyntaxException ex)
        {
            return null;
        }
    }
}
