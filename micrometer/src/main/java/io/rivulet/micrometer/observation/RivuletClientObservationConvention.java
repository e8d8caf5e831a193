package io.rivulet.micrometer.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observations of requests this node sends: {@value #NAME}, low-cardinality tags
 * {@code rivulet.interaction}, {@code rivulet.route} ({@code none} without one) and {@code outcome}
 * (Micrometer's meter handler adds {@code error}); the peer's address only as the high-cardinality
 * {@code rivulet.remote.address} (spans, not timers). Extend it to change what is tagged.
 *
 * <p>Thread-safe: stateless.
 */
public class RivuletClientObservationConvention implements ObservationConvention<RivuletRequesterContext>
{
    /** The observation's name, and so the timer's. */
    public static final String NAME = "rivulet.client.requests";

    @Override
    public String getName()
    {
        return NAME;
    }

    @Override
    public String getContextualName(final RivuletRequesterContext context)
    {
        return KeyNames.contextualName(context.interaction(), context.route());
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(final RivuletRequesterContext context)
    {
        return KeyNames.low(context.interaction(), context.route(), context.outcome());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(final RivuletRequesterContext context)
    {
        return KeyNames.high(context.remoteAddress());
    }

    @Override
    public boolean supportsContext(final Observation.Context context)
    {
        return context instanceof RivuletRequesterContext;
    }
}
