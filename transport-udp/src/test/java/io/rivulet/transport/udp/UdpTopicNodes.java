package io.rivulet.transport.udp;

import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.NetworkNamespace;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicGroups;
import io.rivulet.topic.TopicMessage;
import io.rivulet.transport.tcp.TcpTransport;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Nodes of a topic multicast test in one JVM inside a network namespace: a publisher whose {@code md.>} topics go to a
 * UDP group on {@code lo} (with per-path UDP datagrams for subscriber nodes that take no multicast), subscriber nodes
 * that take multicast or per-path datagrams, all connected over TCP on 127.0.0.1, each engine on one thread with the
 * default back-off idle strategy (the machine may have two cores). Messages are {@value #MESSAGE_LENGTH} bytes, their
 * sequence at the start and its low byte at the end, so that a {@link Checker} can tell each one.
 */
abstract class UdpTopicNodes
{
    static final String GROUP = "239.7.7.7:40777";
    static final int MESSAGE_LENGTH = 32;

    final List<Rivulet> nodes = new ArrayList<>();
    final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);
    private String publisherAddress;

    @BeforeEach
    void inside()
    {
        NetworkNamespace.assumeInside();
    }

    @AfterEach
    void closeNodes()
    {
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    private Rivulet.Context context(final String name, final LossyUdpDatagrams datagrams)
    {
        return new Rivulet.Context()
            .transport(new TcpTransport())
            .nodeName(name)
            .countersFile(false)
            .threadingMode(ThreadingMode.SHARED)
            .errorHandler(errors::add)
            .datagrams(datagrams);
    }

    /** Launches the publisher node and binds it on 127.0.0.1. */
    Rivulet publisher(final LossyUdpDatagrams datagrams)
    {
        final Rivulet node = Rivulet.launch(context("publisher", datagrams)
            .topicDatagrams(true)
            .topicMulticast(TopicGroups.parse("md.>=" + GROUP)));
        nodes.add(node);
        publisherAddress = node.bind("127.0.0.1:0", Responder.none()).block().localAddress();
        return node;
    }

    /** Launches a subscriber node taking multicast, connected to the publisher. */
    Connection multicastSubscriber(final String name, final LossyUdpDatagrams datagrams)
    {
        return connect(context(name, datagrams).topicMulticastReceive(true));
    }

    /** Launches a subscriber node without multicast, served per path (unicast UDP), connected to the publisher. */
    Connection unicastSubscriber(final String name, final LossyUdpDatagrams datagrams)
    {
        return connect(context(name, datagrams).topicDatagrams(true));
    }

    private Connection connect(final Rivulet.Context context)
    {
        final Rivulet node = Rivulet.launch(context);
        nodes.add(node);
        return node.connect(publisherAddress).block();
    }

    /** Subscribes and waits for JOINED. */
    static Checker subscribe(final Connection connection, final String topic, final long initialRequest)
    {
        final Checker checker = new Checker(initialRequest);
        connection.subscribe(topic).subscribe(checker);
        awaitUntil("joined " + topic, Duration.ofSeconds(30), () -> checker.joinedAt >= 0 || checker.error != null,
            checker::toString);
        return checker;
    }

    /**
     * Publishes messages {@code from} to {@code to} (the publication's sequences), waiting while back-pressured.
     */
    void publish(final Publication publication, final long from, final long to, final Duration timeout,
        final Supplier<String> state)
    {
        publish(publication, from, to, Integer.MAX_VALUE, timeout, state);
    }

    /**
     * Publishes as {@link #publish(Publication, long, long, Duration, Supplier)} does, pausing after every
     * {@code burst} messages: a producer's pace rather than a flood.
     */
    void publish(final Publication publication, final long from, final long to, final int burst,
        final Duration timeout, final Supplier<String> state)
    {
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        long sequence = from;
        int idle = 0;
        while (sequence <= to)
        {
            message.putLong(0, sequence);
            message.putByte(MESSAGE_LENGTH - 1, (byte)sequence);
            final long result = publication.offer(message, 0, MESSAGE_LENGTH);
            if (result > 0)
            {
                if (result != sequence)
                {
                    throw new AssertionError("offered " + sequence + " but the publication gave " + result);
                }
                sequence++;
                idle = 0;
                if ((sequence - from) % burst == 0)
                {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
                }
                continue;
            }
            if (result != Publication.BACK_PRESSURED)
            {
                throw new AssertionError("offer " + sequence + " returned " + result);
            }
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("published only up to " + (sequence - 1) + " of " + to + " in " + timeout +
                    ": " + state.get());
            }
            // Back off: the engines need the cores more than this thread.
            if (++idle < 10)
            {
                Thread.yield();
            }
            else
            {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
            }
        }
    }

    /** Waits, bounded in time, parking between looks. */
    static void awaitUntil(final String what, final Duration timeout, final BooleanSupplier condition,
        final Supplier<String> state)
    {
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("not " + what + " in " + timeout + ": " + state.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /**
     * Checks each item as it arrives: JOINED, then DATA from the sequence after the join's, each once and in order,
     * with the bytes its sequence implies. Requests {@code initialRequest} at first and never more unless told.
     */
    static final class Checker extends BaseSubscriber<TopicMessage>
    {
        private static final int MAX_PROBLEMS = 20;

        private final long initialRequest;
        final List<String> problems = new CopyOnWriteArrayList<>();
        volatile long joinedAt = -1;
        volatile long first;
        volatile long last;
        volatile long count;
        volatile Throwable error;

        Checker(final long initialRequest)
        {
            this.initialRequest = initialRequest;
        }

        @Override
        protected void hookOnSubscribe(final Subscription subscription)
        {
            subscription.request(initialRequest);
        }

        @Override
        protected void hookOnNext(final TopicMessage item)
        {
            if (item.kind() == TopicMessage.Kind.JOINED && joinedAt < 0)
            {
                joinedAt = item.sequence();
                return;
            }
            if (item.kind() != TopicMessage.Kind.DATA)
            {
                problem("unexpected " + item);
                return;
            }
            final long sequence = item.sequence();
            final long expected = count == 0 ? joinedAt + 1 : last + 1;
            if (sequence != expected)
            {
                problem("sequence " + sequence + " where " + expected + " was due");
            }
            if (item.dataLength() != MESSAGE_LENGTH || item.data().getLong(0) != sequence ||
                item.data().getByte(MESSAGE_LENGTH - 1) != (byte)sequence)
            {
                problem("wrong bytes at " + sequence);
            }
            if (count == 0)
            {
                first = sequence;
            }
            last = sequence;
            count++;
        }

        private void problem(final String problem)
        {
            if (problems.size() < MAX_PROBLEMS)
            {
                problems.add(problem);
            }
        }

        @Override
        protected void hookOnError(final Throwable throwable)
        {
            error = throwable;
        }

        /** @return whether every message up to {@code to} arrived (or it failed, so waiting is pointless). */
        boolean reached(final long to)
        {
            return last >= to || error != null || !problems.isEmpty();
        }

        @Override
        public String toString()
        {
            return "Checker{joined at " + joinedAt + ", " + count + " from " + first + " to " + last +
                (error == null ? "" : ", error " + error) + (problems.isEmpty() ? "" : ", problems " + problems) + "}";
        }
    }
}
