package io.rivulet.bench.aeron;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.rivulet.bench.harness.FanOutReceiver;
import io.rivulet.bench.harness.Pacer;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.Progress;
import io.rivulet.bench.harness.Waits;
import org.HdrHistogram.Histogram;
import org.agrona.CloseHelper;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * Aeron's fan-out 1→N: one {@link ExclusivePublication} and N {@link Subscription}s in this process, each
 * subscription with its own image (its own position, as each Rivulet subscriber connection has). Over IPC all
 * N subscribe to one {@code aeron:ipc} stream; over UDP the publication is multi-destination-cast in manual
 * control mode ({@code addDestination}) to N unicast endpoints on 127.0.0.1, one per subscription, so each
 * message is sent N times over loopback by the media driver (UDP multicast is not used: loopback rarely routes
 * it).
 *
 * <p>Threads: the measuring thread publishes (stamping each offer attempt with {@code System.nanoTime()});
 * one subscriber thread polls the N subscriptions in turn, both with the row's idle strategy.
 */
final class AeronFanOut implements AutoCloseable
{
    static final int FANOUT_STREAM = 1003;

    private final ExclusivePublication publication;
    private final FanOutSubscriptions subscriptions = new FanOutSubscriptions();
    private final List<FanOutReceiver> receivers;
    private final IdleStrategy publisherIdle;
    private final Thread poller;
    private volatile boolean running = true;
    private int published;

    AeronFanOut(final Aeron aeron, final boolean ipc, final int subscribers, final String idle)
        throws IOException, InterruptedException, TimeoutException
    {
        publisherIdle = AeronNode.idleStrategy(idle);
        publication = aeron.addExclusivePublication(ipc ? "aeron:ipc" : "aeron:udp?control-mode=manual", FANOUT_STREAM);
        for (int i = 0; i < subscribers; i++)
        {
            final String channel;
            if (ipc)
            {
                channel = "aeron:ipc";
            }
            else
            {
                channel = "aeron:udp?endpoint=127.0.0.1:" + freeUdpPort();
                publication.addDestination(channel);
            }
            subscriptions.add(aeron.addSubscription(channel, FANOUT_STREAM), "subscription " + i);
        }
        subscriptions.awaitConnected("connected fan-out subscription");
        poller = subscriptions.startPoller("aeron-fanout-subscribers", AeronNode.idleStrategy(idle), () -> running);
        receivers = subscriptions.receivers();
    }

    /**
     * Publishes {@code count} messages of {@code size} bytes at {@code ratePerSecond} (0: flat out) and waits
     * until every subscription has them all.
     */
    void run(final int size, final long count, final long ratePerSecond, final Histogram latencyNs,
        final Progress progress) throws Exception
    {
        final Pacer pacer = new Pacer(ratePerSecond);
        receivers.forEach(FanOutReceiver::startRun);
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        message.putBytes(0, Payloads.newPayload(size, Payloads.FANOUT));
        final long target = published + count;
        for (long i = 0; i < count; i++)
        {
            message.putInt(Payloads.SEQ_OFFSET, published, ByteOrder.LITTLE_ENDIAN);
            pacer.awaitSlot(i);
            offer(message, size);
            published++;
            if ((i & 0xFF) == 0)
            {
                progress.update(Math.max(0, count - (target - slowest())));
            }
        }
        FanOutReceiver.await(receivers, target, count, progress, () -> publisherIdle.idle(0));
        publisherIdle.reset();
        receivers.forEach(receiver -> receiver.recordInto(latencyNs));
    }

    private long slowest()
    {
        long slowest = Long.MAX_VALUE;
        for (final FanOutReceiver receiver : receivers)
        {
            slowest = Math.min(slowest, receiver.received());
        }
        return slowest;
    }

    /** Offers, stamping each attempt: the latency is from the offer that took the message to its delivery. */
    private void offer(final UnsafeBuffer message, final int size) throws TimeoutException
    {
        long deadlineNs = 0;
        while (true)
        {
            message.putLong(Payloads.VALUE_OFFSET, System.nanoTime(), ByteOrder.LITTLE_ENDIAN);
            final long result = publication.offer(message, 0, size);
            if (result >= 0)
            {
                publisherIdle.reset();
                return;
            }
            if (result == io.aeron.Publication.CLOSED || result == io.aeron.Publication.MAX_POSITION_EXCEEDED)
            {
                throw new IllegalStateException("fan-out publication closed or at its maximum position");
            }
            if (deadlineNs == 0)
            {
                deadlineNs = Waits.deadline();
            }
            else
            {
                Waits.check(deadlineNs, "room in the fan-out publication");
            }
            publisherIdle.idle();
        }
    }

    private static int freeUdpPort() throws IOException
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws InterruptedException
    {
        running = false;
        poller.join(5_000);
        subscriptions.close();
        CloseHelper.close(publication);
    }
}
