package io.rivulet.micrometer.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observations of requests this node serves: {@value #NAME}, with the same tags as
 * {@link RivuletClientObservationConvention}. Extend it to change what is tagged.
 *
 * <p>Thread-safe: stateless.
 */
public class RivuletServerObservationConvention implements ObservationConvention<RivuletResponderContext>
{
    /** The observation's name, and so the timer's. */
    public static final String NAME = "rivulet.server.requests";

    @Override
    public String getName()
    {
        return NAME;
    }

    @Override
    public String getContextualName(final RivuletResponderContext context)
    {
        return KeyNames.contextualName(context.interaction(), context.route());
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(final RivuletResponderContext context)
    {
        return KeyNames.low(context.interaction(), context.route(), context.outcome());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(final RivuletResponderContext context)
    {
        return KeyNames.high(context.remoteAddress());
    }

    @Override
    public boolean supportsContext(final Observation.Context context)
    {
        return context instanceof RivuletResponderContext;
    }
}
