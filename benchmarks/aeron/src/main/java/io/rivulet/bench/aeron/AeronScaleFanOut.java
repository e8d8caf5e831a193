package io.rivulet.bench.aeron;

import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.rivulet.bench.harness.Line;
import io.rivulet.bench.harness.Pacer;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.ScaleFanOut;
import io.rivulet.bench.harness.Waits;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.concurrent.locks.LockSupport;

/**
 * Aeron's two roles in the fan-out-at-scale benchmark ({@link ScaleFanOut}), each process with its own embedded
 * media driver (SHARED threading, back-off idle), as each host runs one:
 * <ul>
 *   <li>{@code publisher SIZE CHANNEL}: an {@link ExclusivePublication} on the channel (the coordinator gives
 *   {@code aeron:udp?endpoint=GROUP:PORT|interface=127.0.0.1|fc=min}: UDP multicast, the window following the slowest
 *   receiver, as Rivulet's BLOCK topic does), offered on the main thread, which parks
 *   {@value #PARK_NS} ns at a time while back-pressured, as Rivulet's publisher does;</li>
 *   <li>{@code subscribers N CHANNEL}: N {@link Subscription}s to it, polled in turn by one thread with the back-off
 *   idle strategy. Aeron's driver takes the stream once and its N subscriptions read the same image: the publisher
 *   hears one receiver, however many subscribe.</li>
 * </ul>
 */
public final class AeronScaleFanOut
{
    static final int STREAM = 1004;
    static final long PARK_NS = 50_000;

    private AeronScaleFanOut()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final AeronNode.Options options = new AeronNode.Options();
        options.driverIdle = "backoff";
        try (AeronNode node = new AeronNode(options, args[0]))
        {
            if ("publisher".equals(args[0]))
            {
                publisher(node, Integer.parseInt(args[1]), args[2]);
            }
            else
            {
                subscribers(node, Integer.parseInt(args[1]), args[2]);
            }
        }
    }

    private static void publisher(final AeronNode node, final int size, final String channel) throws Exception
    {
        try (ExclusivePublication publication = node.aeron.addExclusivePublication(channel, STREAM))
        {
            final UnsafeBuffer message = new UnsafeBuffer(Payloads.newPayload(size, Payloads.FANOUT));
            final long[] published = {0};
            Line.of(Line.READY, "port", 0).print(System.out);
            ScaleFanOut.runPublisher((count, rate) ->
            {
                final long connectDeadlineNs = Waits.deadline();
                while (!publication.isConnected())
                {
                    Waits.check(connectDeadlineNs, "a subscriber connected to " + channel);
                    LockSupport.parkNanos(PARK_NS);
                }
                final Pacer pacer = Pacer.inTicks(rate, ScaleFanOut.PACING_TICK_NS);
                for (long i = 0; i < count; i++)
                {
                    pacer.awaitSlot(i);
                    message.putInt(Payloads.SEQ_OFFSET, (int)published[0], ByteOrder.LITTLE_ENDIAN);
                    long deadlineNs = 0;
                    long result;
                    while (true)
                    {
                        // Stamped at each attempt: the latency is from the offer that took the message.
                        message.putLong(Payloads.VALUE_OFFSET, System.nanoTime(), ByteOrder.LITTLE_ENDIAN);
                        result = publication.offer(message, 0, size);
                        if (result >= 0)
                        {
                            break;
                        }
                        if (result == io.aeron.Publication.CLOSED ||
                            result == io.aeron.Publication.MAX_POSITION_EXCEEDED)
                        {
                            throw new IllegalStateException("offer failed with " + result);
                        }
                        if (deadlineNs == 0)
                        {
                            deadlineNs = Waits.deadline();
                        }
                        Waits.check(deadlineNs, "room in the publication");
                        LockSupport.parkNanos(PARK_NS);
                    }
                    published[0]++;
                }
            });
        }
    }

    private static void subscribers(final AeronNode node, final int count, final String channel) throws Exception
    {
        final FanOutSubscriptions subscriptions = new FanOutSubscriptions();
        for (int i = 0; i < count; i++)
        {
            subscriptions.add(node.aeron.addSubscription(channel, STREAM), "subscription " + i);
        }
        subscriptions.awaitConnected("the publication's image on " + channel);
        final Thread poller = subscriptions.startPoller("fanout-subscribers", AeronNode.idleStrategy("backoff"),
            () -> !Thread.currentThread().isInterrupted());
        Line.of(Line.READY, "subscribers", count).print(System.out);
        ScaleFanOut.runSubscribers(subscriptions.receivers(), () -> LockSupport.parkNanos(100_000));
        poller.interrupt();
        poller.join(5_000);
        subscriptions.close();
    }
}
