package io.rivulet.counters;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;

import java.nio.ByteBuffer;

/** {@link CounterFactory#detached()}: counters in private slots of their own, outside any node file. */
final class DetachedCounters implements CounterFactory
{
    static final DetachedCounters INSTANCE = new DetachedCounters();

    private DetachedCounters()
    {
    }

    @Override
    public AtomicCounter newCounter(final int typeId, final long ownerId, final String tag, final String label)
    {
        return new AtomicCounter(new UnsafeBuffer(ByteBuffer.allocateDirect(CountersReader.COUNTER_LENGTH)), 0);
    }
}
