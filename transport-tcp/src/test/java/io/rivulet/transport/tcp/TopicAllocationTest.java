package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicHandler;
import io.rivulet.topic.TopicItem;
import io.rivulet.topic.TopicMessage;
import io.rivulet.topic.TopicOptions;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.Disposable;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 16, item 6, the topic part: once warm, the topic data path allocates nothing per message on the publishing
 * node — not the publisher's {@code Publication.offer}, not the engine thread that reads the log and writes it to
 * every subscriber's link (and receives their TOPIC_STATUS) — nor on the subscribing node's engine when it hands
 * the items to {@link TopicHandler}s in place. One publisher, {@value #SUBSCRIBERS} subscriber connections over TCP
 * on loopback; the publisher thread and both nodes' engine threads are measured with
 * {@code ThreadMXBean.getThreadAllocatedBytes} over two runs of different lengths after a warm-up. Each stays under
 * one small fixed allowance (timers, a counter snapshot), which the longer run does not exceed either: what they
 * allocate does not grow with the count.
 *
 * <p>Subscribers that take {@code Flux<TopicMessage>} get immutable items that own their bytes, so that subscribing
 * engine allocates per item; its bytes per delivery are measured and bounded here, not asserted to be zero.
 */
class TopicAllocationTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);
    private static final String TOPIC = "alloc.quotes";
    private static final int SUBSCRIBERS = 4;
    private static final int MESSAGE_LENGTH = 32;
    private static final int WARM_UP_MESSAGES = 200_000;
    private static final int SHORT_RUN = 100_000;
    private static final int LONG_RUN = 400_000;
    private static final long DELIVERY_TIMEOUT_NS = TestTime.nanos(60, TimeUnit.SECONDS);
    /** Fixed: what the publishing side may allocate in a run, whatever its length (256 KiB is < 1 B per message). */
    private static final long ALLOWANCE_BYTES = 96 * 1024;
    /**
     * What one delivery may cost the subscriber's engine thread: a TopicMessage, its bytes and the view over them
     * (about 150 bytes), with room for the allocation counter's granularity; a regression guard, not a goal.
     */
    private static final long SUBSCRIBER_BYTES_PER_DELIVERY_BOUND = 256;

    private final List<Thread> publisherEngine = new CopyOnWriteArrayList<>();
    private final List<Thread> subscriberEngine = new CopyOnWriteArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    /** How the subscribers take their items. */
    enum SubscriberApi
    {
        /** {@code Connection.subscribe(pattern)}: a flux of messages that own their bytes. */
        FLUX,
        /** {@code Connection.subscribe(pattern, handler)}: items in place. */
        HANDLER
    }

    @ParameterizedTest
    @EnumSource(SubscriberApi.class)
    @ScaledTimeout(240)
    void shouldNotAllocatePerMessageOnThePublisherNorItsEngine(final SubscriberApi api)
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counting unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);

        final List<Disposable> subscriptions = new ArrayList<>();
        try (Rivulet publisherNode = Rivulet.launch(context(publisherEngine, "publisher"));
            Rivulet subscriberNode = Rivulet.launch(context(subscriberEngine, "subscriber")))
        {
            final Server server = publisherNode.bind("127.0.0.1:0", Responder.builder().build()).block(TIMEOUT);
            final Publication publication = publisherNode.publication(TOPIC, TopicOptions.block());
            final Counter[] counters = new Counter[SUBSCRIBERS];
            for (int i = 0; i < SUBSCRIBERS; i++)
            {
                final Connection connection = subscriberNode.connect(server.localAddress()).block(TIMEOUT);
                final Counter counter = new Counter();
                counters[i] = counter;
                subscriptions.add(api == SubscriberApi.FLUX ?
                    connection.subscribe(TOPIC).subscribe(counter::onItem, counter::onError) :
                    connection.subscribe(TOPIC, counter));
            }
            Await.until(TIMEOUT, () -> publication.subscriberCount() == SUBSCRIBERS && joined(counters),
                () -> "subscribers joined: " + publication.subscriberCount());
            assertThat(publisherEngine).as("the publishing node's engine thread (SHARED)").hasSize(1);
            assertThat(subscriberEngine).as("the subscribing node's engine thread (SHARED)").hasSize(1);

            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE_LENGTH));
            long published = publish(publication, message, 0, WARM_UP_MESSAGES);
            awaitDelivered(counters, published);

            final long[] ids = {
                Thread.currentThread().getId(), publisherEngine.get(0).getId(), subscriberEngine.get(0).getId()};
            final long[] shortRun = measure(threads, ids, publication, message, published, SHORT_RUN, counters);
            published += SHORT_RUN;
            final long[] longRun = measure(threads, ids, publication, message, published, LONG_RUN, counters);
            published += LONG_RUN;

            for (final Counter counter : counters)
            {
                assertThat(counter.outOfOrder).as("items out of order, or not DATA").isZero();
                assertThat(counter.received).isEqualTo(published);
                assertThat(counter.error).isNull();
            }
            assertThat(shortRun[0]).as("bytes the publisher thread allocated offering %,d messages", SHORT_RUN)
                .isLessThan(ALLOWANCE_BYTES);
            assertThat(longRun[0]).as("bytes the publisher thread allocated offering %,d messages", LONG_RUN)
                .isLessThan(ALLOWANCE_BYTES);
            assertThat(shortRun[1]).as("bytes the publishing engine allocated sending %,d messages to %d links",
                SHORT_RUN, SUBSCRIBERS).isLessThan(ALLOWANCE_BYTES);
            assertThat(longRun[1]).as("bytes the publishing engine allocated sending %,d messages to %d links",
                LONG_RUN, SUBSCRIBERS).isLessThan(ALLOWANCE_BYTES);

            final double perDelivery = (double)longRun[2] / ((long)LONG_RUN * SUBSCRIBERS);
            System.out.printf("TopicAllocationTest: publisher thread %,d / %,d bytes, publishing engine %,d / %,d " +
                "bytes (%,d / %,d messages); subscribing engine %,d / %,d bytes, %.1f bytes per delivery (%s)%n",
                shortRun[0], longRun[0], shortRun[1], longRun[1], SHORT_RUN, LONG_RUN, shortRun[2], longRun[2],
                perDelivery, api);
            if (api == SubscriberApi.FLUX)
            {
                assertThat(perDelivery).as("bytes per delivery on the subscribing engine")
                    .isGreaterThan(0).isLessThan(SUBSCRIBER_BYTES_PER_DELIVERY_BOUND);
            }
            else
            {
                assertThat(shortRun[2]).as("bytes the subscribing engine allocated handing %,d messages to %d " +
                    "handlers in place", SHORT_RUN, SUBSCRIBERS).isLessThan(ALLOWANCE_BYTES);
                assertThat(longRun[2]).as("bytes the subscribing engine allocated handing %,d messages to %d " +
                    "handlers in place", LONG_RUN, SUBSCRIBERS).isLessThan(ALLOWANCE_BYTES);
            }
            assertThat(errors).isEmpty();
        }
        finally
        {
            subscriptions.forEach(Disposable::dispose);
        }
    }

    /**
     * @return bytes each thread of {@code ids} allocated while {@code count} messages were offered and delivered; the
     * first, this thread, only while it offered them.
     */
    private static long[] measure(
        final com.sun.management.ThreadMXBean threads, final long[] ids, final Publication publication,
        final UnsafeBuffer message, final long first, final int count, final Counter[] counters)
    {
        final long[] before = threads.getThreadAllocatedBytes(ids);
        final long published = publish(publication, message, first, count);
        // The publisher (this thread) is done; waiting for the deliveries is not the publisher's work.
        final long publisherAfter = threads.getThreadAllocatedBytes(ids[0]);
        awaitDelivered(counters, published);
        final long[] after = threads.getThreadAllocatedBytes(ids);
        after[0] = publisherAfter;
        final long[] allocated = new long[ids.length];
        for (int i = 0; i < ids.length; i++)
        {
            assertThat(before[i]).as("allocation counter of thread %d", ids[i]).isNotNegative();
            allocated[i] = after[i] - before[i];
        }
        return allocated;
    }

    private Rivulet.Context context(final List<Thread> engine, final String name)
    {
        final ThreadFactory factory = runnable ->
        {
            final Thread thread = new Thread(runnable, "rivulet-" + name);
            thread.setDaemon(true);
            engine.add(thread);
            return thread;
        };
        return new Rivulet.Context()
            .transport(new TcpTransport())
            .threadingMode(ThreadingMode.SHARED)
            .threadFactory(factory)
            // Frequent keepalives and topic heartbeats so that timer work runs during the measurement too.
            .keepaliveInterval(5, TimeUnit.MILLISECONDS)
            .keepaliveTimeout(TestTime.millis(2, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .errorHandler(errors::add);
    }

    /** Offers {@code count} messages carrying their running number; parks briefly while the log is full. */
    private static long publish(
        final Publication publication, final UnsafeBuffer message, final long first, final int count)
    {
        final long deadlineNs = System.nanoTime() + DELIVERY_TIMEOUT_NS;
        long next = first;
        final long end = first + count;
        while (next < end)
        {
            message.putLong(0, next);
            final long result = publication.offer(message, 0, MESSAGE_LENGTH);
            if (result > 0)
            {
                next++;
                continue;
            }
            // Checked without assertion objects: this loop is what the test measures.
            if (result != Publication.BACK_PRESSURED)
            {
                fail("offer failed with " + result);
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail("back-pressured for too long after " + (next - first) + " of " + count + " messages");
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
        }
        return end;
    }

    private static boolean joined(final Counter[] counters)
    {
        for (final Counter counter : counters)
        {
            if (!counter.joined)
            {
                return false;
            }
        }
        return true;
    }

    private static void awaitDelivered(final Counter[] counters, final long expected)
    {
        Await.until(Duration.ofNanos(DELIVERY_TIMEOUT_NS), () ->
        {
            for (final Counter counter : counters)
            {
                if (counter.received < expected && counter.error == null)
                {
                    return false;
                }
            }
            return true;
        }, () -> "delivered: " + counters[0].received + " of " + expected);
    }

    /** One subscriber, on the subscribing node's engine thread: checks each DATA item's running number. */
    private static final class Counter implements TopicHandler
    {
        volatile boolean joined;
        volatile long received;
        volatile long outOfOrder;
        volatile Throwable error;

        @Override
        public void onItem(final TopicItem item)
        {
            count(item.kind(), item.dataLength() == MESSAGE_LENGTH ? item.data().getLong(0) : -1);
        }

        void onItem(final TopicMessage item)
        {
            count(item.kind(), item.dataLength() == MESSAGE_LENGTH ? item.data().getLong(0) : -1);
        }

        /** @param number the message's running number, -1 when it has not the length of one. */
        private void count(final TopicMessage.Kind kind, final long number)
        {
            if (kind == TopicMessage.Kind.JOINED)
            {
                joined = true;
                return;
            }
            if (kind != TopicMessage.Kind.DATA || number != received)
            {
                outOfOrder++;
            }
            received++;
        }

        @Override
        public void onError(final Throwable failure)
        {
            error = failure;
        }
    }
}
