package io.rivulet.bench.jmh;

import io.rivulet.Responder;
import io.rivulet.counters.NodeCounters;
import io.rivulet.engine.Sender;
import io.rivulet.protocol.MemoryBudget;
import io.rivulet.protocol.Outbound;
import io.rivulet.protocol.ProtocolConnection;
import io.rivulet.protocol.ProtocolSettings;
import io.rivulet.protocol.ReassemblyPool;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicHandler;
import io.rivulet.topic.TopicItem;
import io.rivulet.topic.TopicMessage;
import io.rivulet.topic.TopicOptions;
import io.rivulet.topic.TopicRegistry;
import io.rivulet.topic.TopicSender;
import io.rivulet.topic.TopicSettings;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Fan-out 1 → 8 on one thread with the real topic and protocol classes and no network ({@link PairLink}s): the
 * publisher's {@code offer}, the publishing engine's keeper and eight cursors handing the log to eight links, and
 * eight subscribing connections decoding the frames and handing them to a zero-copy {@link TopicHandler}. Its score
 * is the CPU cost of one message delivered to all eight, without the kernel's part (issue 16, item 5).
 * {@code links=runs} lets each link take a run of log records in one copy, as the TCP link does;
 * {@code links=frames} makes it take them one frame at a time, as every link did before runs.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED"})
public class TopicFanOutBenchmark
{
    /** Messages published before the cycles that deliver them: a duty cycle's worth under load. */
    static final int BATCH = 256;
    static final int SUBSCRIBERS = 8;

    /** One publishing node and eight subscriber connections to it, each end a protocol connection. */
    @State(Scope.Thread)
    public static class FanOut
    {
        @Param({"32", "256"})
        public int size;

        /** {@code runs}: a link takes a run of records in one copy; {@code frames}: one frame at a time. */
        @Param({"runs", "frames"})
        public String links;

        final ArrayDeque<Runnable> conductor = new ArrayDeque<>();
        final ProtocolConnection[] connections = new ProtocolConnection[2 * SUBSCRIBERS];
        final DataCounter delivered = new DataCounter();
        TopicSender publisherTopics;
        TopicSender subscriberTopics;
        Sender sender;
        Publication publication;
        UnsafeBuffer message;
        long nowNs = System.nanoTime();

        @Setup
        public void setUp()
        {
            final int maxFrameLength = 16 * 1024;
            final NodeCounters counters = new NodeCounters();
            final ProtocolSettings settings = new ProtocolSettings(maxFrameLength, 16 * 1024 * 1024, 256,
                TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(5), 64);
            final TopicSettings topicSettings = new TopicSettings(4096, TimeUnit.MILLISECONDS.toNanos(100),
                TimeUnit.SECONDS.toNanos(5), maxFrameLength);
            publisherTopics = new TopicSender(() -> nowNs, topicSettings);
            subscriberTopics = new TopicSender(() -> nowNs, topicSettings);
            final TopicRegistry publisher = new TopicRegistry(conductor::add, publisherTopics, topicSettings);
            final TopicRegistry subscriber = new TopicRegistry(conductor::add, subscriberTopics, topicSettings);
            sender = new Sender(counters);
            for (int i = 0; i < SUBSCRIBERS; i++)
            {
                final PairLink[] pair = PairLink.pair();
                pair[1].runsFrameByFrame = "frames".equals(links);
                final ProtocolConnection publishing = connection(pair[1], false, publisher, settings, counters);
                final ProtocolConnection subscribing = connection(pair[0], true, subscriber, settings, counters);
                connections[2 * i] = publishing;
                connections[2 * i + 1] = subscribing;
                sender.add(publishing);
                sender.add(subscribing);
                subscribing.sendSetup(new byte[0], new byte[0]);
            }
            for (int i = 0; i < 10; i++)
            {
                cycle();
            }
            publication = publisher.publication("prices", TopicOptions.block().logCapacity(1 << 20));
            for (int i = 0; i < SUBSCRIBERS; i++)
            {
                connections[2 * i + 1].api().subscribe("prices", delivered);
            }
            for (int i = 0; i < 1_000 && delivered.joined < SUBSCRIBERS; i++)
            {
                cycle();
            }
            if (delivered.joined < SUBSCRIBERS)
            {
                throw new IllegalStateException("only " + delivered.joined + " of " + SUBSCRIBERS + " joined");
            }
            message = new UnsafeBuffer(new byte[size]);
        }

        private ProtocolConnection connection(final PairLink link, final boolean client, final TopicRegistry topics,
            final ProtocolSettings settings, final NodeCounters counters)
        {
            return new ProtocolConnection(link, new Outbound(256 * 1024, settings.maxFrameLength(),
                counters.backPressureEvents), settings, counters.connectionCounters(), client, Responder.none(), null,
                List.of(topics), MemoryBudget.unlimited(),
                ReassemblyPool.forNode(settings.maxMessageLength(), Long.MAX_VALUE, System::nanoTime), conductor::add,
                Throwable::printStackTrace, nowNs);
        }

        /** One duty cycle of both nodes: their conductors' commands, the topic senders, the senders, the connections. */
        int cycle()
        {
            nowNs += 1_000;
            int work = 0;
            for (Runnable command; (command = conductor.poll()) != null; )
            {
                command.run();
                work++;
            }
            work += publisherTopics.doWork() + subscriberTopics.doWork() + sender.doWork();
            for (final ProtocolConnection connection : connections)
            {
                work += connection.doWork(nowNs);
            }
            return work;
        }
    }

    /** Counts DATA items handed to the handlers, and JOINED ones; one for all eight subscriptions. */
    static final class DataCounter implements TopicHandler
    {
        long data;
        int joined;

        @Override
        public void onItem(final TopicItem item)
        {
            if (item.kind() == TopicMessage.Kind.DATA)
            {
                data++;
            }
            else if (item.kind() == TopicMessage.Kind.JOINED)
            {
                joined++;
            }
        }

        @Override
        public void onError(final Throwable error)
        {
            throw new IllegalStateException(error);
        }
    }

    /**
     * {@link #BATCH} messages offered, then the cycles that deliver each to all eight subscribers. Per message
     * ({@code OperationsPerInvocation}).
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long offerAndDeliver(final FanOut fanOut)
    {
        final long expected = fanOut.delivered.data + (long)BATCH * SUBSCRIBERS;
        for (int i = 0; i < BATCH; i++)
        {
            while (fanOut.publication.offer(fanOut.message, 0, fanOut.size) < 0)
            {
                fanOut.cycle();
            }
        }
        for (int i = 0; i < 1_000 && fanOut.delivered.data != expected; i++)
        {
            fanOut.cycle();
        }
        if (fanOut.delivered.data != expected)
        {
            throw new IllegalStateException("deliveries missing after 1,000 cycles: " +
                (expected - fanOut.delivered.data));
        }
        return fanOut.delivered.data;
    }
}
