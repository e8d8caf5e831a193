package io.rivulet.protocol.datagram.multicast;

import io.rivulet.protocol.datagram.LossyDatagramNetwork;
import io.rivulet.spi.MulticastSettings;
import org.agrona.DirectBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One publisher and its receivers over a {@link LossyDatagramNetwork}, stepped by an injected clock: the
 * publisher's {@link MulticastSenders} and {@link MulticastSender} over a {@link TestLog}, and per receiver a
 * {@link MulticastReceivers} plane with one image whose consumer checks every record (order, bytes, once). The log is
 * held, as the topic layer holds it, at the lowest position the live receivers consumed (and the stream's own).
 */
final class MulticastHarness
{
    static final String GROUP = "239.1.2.3:40456";
    static final int MAX_FRAME_LENGTH = 4096;
    static final long START_NS = TimeUnit.SECONDS.toNanos(1000);

    final LossyDatagramNetwork network;
    final MulticastSettings settings;
    final TestLog log;
    final LossyDatagramNetwork.Endpoint publisherEndpoint;
    final MulticastSenders senders;
    final MulticastSender sender;
    final List<Node> nodes = new ArrayList<>();
    long nowNs = START_NS;
    long stepNs = 2_000;
    private long seed;

    /** One receiving node with its image of the stream. */
    final class Node implements MulticastReceiver.Consumer
    {
        final LossyDatagramNetwork.Endpoint networkEndpoint;
        private final DroppingEndpoint endpoint;
        final MulticastReceivers plane;
        MulticastReceiver image;
        MulticastReceiverState state;
        final long startSequence;
        long expected;
        long delivered;
        long losses;
        long lostSequences;
        String corrupt;
        boolean stalled;
        boolean holdsLog = true;
        boolean silent;

        Node(final long startPosition, final long startSequence, final long tag)
        {
            networkEndpoint = network.newEndpoint();
            endpoint = new DroppingEndpoint(networkEndpoint);
            plane = new MulticastReceivers(settings, endpoint, seed++);
            this.startSequence = startSequence;
            this.expected = startSequence;
            final int peer = publisherEndpoint.resolve(endpoint.localAddress());
            state = sender.addReceiver(peer, tag, startPosition, nowNs);
            image = plane.open(GROUP, publisherEndpoint.localAddress(), null, sender.sessionId(), state.id(),
                log.capacity(), startPosition, MAX_FRAME_LENGTH, this);
        }

        @Override
        public boolean onFrame(final DirectBuffer buffer, final int offset, final int length)
        {
            if (stalled)
            {
                return false;
            }
            final long sequence = TestLog.check(buffer, offset, length);
            if (sequence != expected && lostPending && sequence > expected)
            {
                lostSequences += sequence - expected; // the loss the publisher reported: an explicit gap
                expected = sequence;
            }
            lostPending = false;
            if (sequence != expected)
            {
                throw new AssertionError("receiver " + state.id() + " got sequence " + sequence + ", expected " +
                    expected + " (" + image + ")");
            }
            expected++;
            delivered++;
            return true;
        }

        @Override
        public void onLoss(final long from, final long to)
        {
            losses++;
            lostPending = true;
        }

        private boolean lostPending;

        @Override
        public void onCorrupt(final String reason)
        {
            corrupt = reason;
        }

        DroppingEndpoint endpoint()
        {
            return endpoint;
        }

        /** The node's endpoint stops sending status messages and NAKs (a dead process). */
        void die()
        {
            silent = true;
        }
    }

    MulticastHarness(final LossyDatagramNetwork network, final MulticastSettings settings, final int logCapacity)
    {
        this.network = network;
        this.settings = settings.validate();
        this.log = new TestLog(logCapacity);
        this.publisherEndpoint = network.newEndpoint();
        this.senders = new MulticastSenders(settings, publisherEndpoint);
        this.sender = senders.open(GROUP, log, 0);
        this.seed = 42;
    }

    /** @return a receiver that joins at the stream's current end. */
    Node addReceiver()
    {
        return addReceiver(0);
    }

    /** @return a receiver with a tag (tagged flow control) that joins at the stream's current end. */
    Node addReceiver(final long tag)
    {
        final Node node = new Node(log.available(), log.nextSequence(), tag);
        nodes.add(node);
        return node;
    }

    /** Writes as many records as the hold allows, up to {@code count}. @return records written. */
    int write(final int count)
    {
        int written = 0;
        while (written < count && log.write())
        {
            written++;
        }
        return written;
    }

    /** Removes a receiver: the publisher forgets it and its node closes its image. */
    void removeReceiver(final Node node)
    {
        sender.removeReceiver(node.state);
        node.plane.close(node.image);
        nodes.remove(node);
    }

    /** One step of every agent, then the clock. */
    void step()
    {
        network.nowNs = nowNs;
        senders.poll(nowNs);
        sender.doWork(nowNs);
        for (int i = 0; i < nodes.size(); i++)
        {
            final Node node = nodes.get(i);
            if (!node.silent)
            {
                node.plane.doWork(nowNs);
            }
        }
        long hold = sender.position();
        for (int i = 0; i < nodes.size(); i++)
        {
            final Node node = nodes.get(i);
            if (node.holdsLog && node.state.state() != MulticastReceiverState.TIMED_OUT)
            {
                hold = Math.min(hold, node.state.consumed());
            }
        }
        log.hold(hold);
        nowNs += stepNs;
    }

    /**
     * Publishes {@code count} more records, writing as many as the hold allows each step, and steps until every live
     * receiver that holds the log consumed them all.
     *
     * @param maxSteps bound on the steps taken.
     * @return steps taken.
     */
    long publishAndDrain(final long count, final long maxSteps)
    {
        final long last = log.nextSequence() + count - 1;
        long steps = 0;
        while (steps < maxSteps)
        {
            for (int i = 0; i < 256 && log.nextSequence() <= last && log.write(); i++)
            {
                // as many as fit this step
            }
            step();
            steps++;
            if (log.nextSequence() > last && allConsumed(last))
            {
                return steps;
            }
        }
        throw new AssertionError("not drained within " + maxSteps + " steps: next " + log.nextSequence() + " of " +
            (last + 1) + "; " + describe());
    }

    /** Steps without publishing. */
    void run(final long steps)
    {
        for (long i = 0; i < steps; i++)
        {
            step();
        }
    }

    private boolean allConsumed(final long last)
    {
        for (int i = 0; i < nodes.size(); i++)
        {
            final Node node = nodes.get(i);
            if (!node.silent && node.holdsLog && !node.stalled && node.corrupt == null && node.expected <= last)
            {
                return false;
            }
        }
        return true;
    }

    String describe()
    {
        final StringBuilder text = new StringBuilder(sender.toString());
        for (int i = 0; i < nodes.size(); i++)
        {
            text.append("\n  ").append(nodes.get(i).image).append(' ').append(nodes.get(i).state);
        }
        return text.toString();
    }

    long totalNaksSent()
    {
        long naks = 0;
        for (int i = 0; i < nodes.size(); i++)
        {
            naks += nodes.get(i).image.naksSent();
        }
        return naks;
    }
}
