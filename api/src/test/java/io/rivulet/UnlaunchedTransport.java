package io.rivulet;

import io.rivulet.spi.Transport;
import io.rivulet.spi.TransportDriver;
import io.rivulet.spi.TransportSettings;

/** A transport for tests that conclude a {@link Rivulet.Context} without launching a node: it cannot be opened. */
final class UnlaunchedTransport implements Transport
{
    static final Transport INSTANCE = new UnlaunchedTransport();

    private UnlaunchedTransport()
    {
    }

    @Override
    public String name()
    {
        return "none";
    }

    @Override
    public TransportDriver open(final TransportSettings settings)
    {
        throw new UnsupportedOperationException("not launched in this test");
    }
}
