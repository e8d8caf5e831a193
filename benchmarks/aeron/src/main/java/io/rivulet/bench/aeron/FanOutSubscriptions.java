package io.rivulet.bench.aeron;

import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.rivulet.bench.harness.FanOutReceiver;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.Waits;
import org.agrona.CloseHelper;
import org.agrona.concurrent.IdleStrategy;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;

/**
 * A fan-out's Aeron subscriptions, each with a {@link FanOutReceiver} that checks and times its messages (the
 * harness's payload convention), polled in turn by one thread: what both Aeron fan-out benchmarks share.
 *
 * <p>Built on one thread, then polled by the thread {@link #startPoller} starts.
 */
final class FanOutSubscriptions
{
    private static final int FRAGMENT_LIMIT = 16;
    private static final long CONNECT_PARK_NS = 50_000;

    private final List<Subscription> subscriptions = new ArrayList<>();
    private final List<FragmentHandler> handlers = new ArrayList<>();
    private final List<FanOutReceiver> receivers = new ArrayList<>();

    /** Adds a subscription whose messages go to a new receiver named {@code name}. */
    void add(final Subscription subscription, final String name)
    {
        final FanOutReceiver receiver = new FanOutReceiver(name);
        subscriptions.add(subscription);
        receivers.add(receiver);
        handlers.add(new FragmentAssembler((buffer, offset, length, header) -> receiver.onMessage(
            buffer.getInt(offset + Payloads.SEQ_OFFSET, ByteOrder.LITTLE_ENDIAN),
            buffer.getLong(offset + Payloads.VALUE_OFFSET, ByteOrder.LITTLE_ENDIAN), System.nanoTime())));
    }

    /** Waits until every subscription has an image of the publication, at most the harness's deadline. */
    void awaitConnected(final String what) throws TimeoutException
    {
        final long deadlineNs = Waits.deadline();
        for (final Subscription subscription : subscriptions)
        {
            while (!subscription.isConnected())
            {
                Waits.check(deadlineNs, what);
                LockSupport.parkNanos(CONNECT_PARK_NS);
            }
        }
    }

    /**
     * @param running polled once per sweep over the subscriptions: the thread ends when it turns false.
     * @return the started daemon thread that polls every subscription in turn with {@code idle}.
     */
    Thread startPoller(final String name, final IdleStrategy idle, final BooleanSupplier running)
    {
        final Thread poller = new Thread(() ->
        {
            while (running.getAsBoolean())
            {
                int fragments = 0;
                for (int i = 0; i < subscriptions.size(); i++)
                {
                    fragments += subscriptions.get(i).poll(handlers.get(i), FRAGMENT_LIMIT);
                }
                idle.idle(fragments);
            }
        }, name);
        poller.setDaemon(true);
        poller.start();
        return poller;
    }

    /** @return the receivers, one per subscription, in the order added. */
    List<FanOutReceiver> receivers()
    {
        return receivers;
    }

    /** Closes the subscriptions; the poller must have ended. */
    void close()
    {
        CloseHelper.closeAll(subscriptions);
    }
}
