package io.rivulet.engine;

import io.rivulet.spi.LinkConnector;
import io.rivulet.spi.LinkListener;
import io.rivulet.spi.TransportDriver;

import java.util.ArrayList;
import java.util.List;

/** A transport that records the engine's sleeps in it and the wake-ups asked of it. */
final class FakeSleepDriver implements TransportDriver
{
    final List<Long> waits = new ArrayList<>();
    int wakeUps;
    boolean canWait = true;

    @Override
    public boolean canAwaitWork()
    {
        return canWait;
    }

    @Override
    public int awaitWork(final long timeoutMs)
    {
        waits.add(timeoutMs);
        return 0;
    }

    @Override
    public void wakeUp()
    {
        wakeUps++;
    }

    @Override
    public LinkListener listen(final String address)
    {
        throw new UnsupportedOperationException();
    }

    @Override
    public LinkConnector connect(final String address)
    {
        throw new UnsupportedOperationException();
    }

    @Override
    public int doWork(final long nowNs)
    {
        return 0;
    }

    @Override
    public void close()
    {
    }
}
