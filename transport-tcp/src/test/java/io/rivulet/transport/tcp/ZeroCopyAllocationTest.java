package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.MessageHandler;
import io.rivulet.MessageView;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Section 5 of the design: no allocation per message on the engine's steady-state path. The zero-copy
 * offer on one node and the zero-copy fire-and-forget handler on the other move a million messages
 * over TCP while the engine threads of both nodes allocate no more than a fixed, count-independent bound.
 */
class ZeroCopyAllocationTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);
    private static final int MESSAGE_LENGTH = 64;
    private static final int WARM_UP_MESSAGES = 200_000;
    private static final int MEASURED_MESSAGES = 1_000_000;
    private static final long DELIVERY_TIMEOUT_NS = TestTime.nanos(60, TimeUnit.SECONDS);
    private static final long ALLOCATION_BOUND_BYTES = 256 * 1024;
    private static final long MARKER = 0x5249_5655_4C45_5421L;

    private final List<Thread> engineThreads = new CopyOnWriteArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    @Test
    @ScaledTimeout(180)
    void shouldNotAllocateOnEngineThreadsForOfferedMessages()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counting unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);

        final SequenceChecker checker = new SequenceChecker();
        try (Rivulet receiverNode = Rivulet.launch(context("receiver"));
            Rivulet senderNode = Rivulet.launch(context("sender")))
        {
            final Server server = receiverNode.bind("127.0.0.1:0",
                Responder.builder().fireAndForgetHandler(checker).build()).block(TIMEOUT);
            final Connection connection = senderNode.connect(server.localAddress()).block(TIMEOUT);
            assertThat(engineThreads).as("engine threads, one per SHARED node").hasSize(2);

            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE_LENGTH));
            message.putLong(8, MARKER);

            send(connection, message, 0, WARM_UP_MESSAGES);
            awaitReceived(checker, WARM_UP_MESSAGES);

            final long[] ids = threadIds();
            final long[] before = threads.getThreadAllocatedBytes(ids);
            send(connection, message, WARM_UP_MESSAGES, MEASURED_MESSAGES);
            awaitReceived(checker, WARM_UP_MESSAGES + MEASURED_MESSAGES);
            final long[] after = threads.getThreadAllocatedBytes(ids);

            long allocated = 0;
            final StringBuilder perThread = new StringBuilder();
            for (int i = 0; i < ids.length; i++)
            {
                assertThat(before[i]).as("allocation counter of %s", engineThreads.get(i).getName())
                    .isNotNegative();
                allocated += after[i] - before[i];
                perThread.append(engineThreads.get(i).getName()).append('=').append(after[i] - before[i]).append(' ');
            }

            assertThat(checker.outOfOrder).as("messages out of order or with wrong content").isZero();
            assertThat(checker.received).isEqualTo(WARM_UP_MESSAGES + MEASURED_MESSAGES);
            assertThat(receiverNode.counters().messagesReceived.get()).isEqualTo(WARM_UP_MESSAGES + MEASURED_MESSAGES);
            assertThat(allocated).as("bytes allocated by engine threads for %d messages (%s)", MEASURED_MESSAGES,
                perThread).isLessThan(ALLOCATION_BOUND_BYTES);
            assertThat(errors).isEmpty();
        }
    }

    private Rivulet.Context context(final String name)
    {
        final ThreadFactory factory = runnable ->
        {
            final Thread thread = new Thread(runnable, "rivulet-" + name);
            thread.setDaemon(true);
            engineThreads.add(thread);
            return thread;
        };
        return new Rivulet.Context()
            .transport(new TcpTransport())
            .threadingMode(ThreadingMode.SHARED)
            .threadFactory(factory)
            // Frequent keepalives so that timer and keepalive work runs during the measurement too; the
            // interval sets that load and stays, the timeout is patience and scales.
            .keepaliveInterval(5, TimeUnit.MILLISECONDS)
            .keepaliveTimeout(TestTime.millis(2, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .errorHandler(errors::add);
    }

    private long[] threadIds()
    {
        final long[] ids = new long[engineThreads.size()];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = engineThreads.get(i).getId();
        }
        return ids;
    }

    private static void send(final Connection connection, final UnsafeBuffer message, final long first, final int count)
    {
        final long deadlineNs = System.nanoTime() + DELIVERY_TIMEOUT_NS;
        long sequence = first;
        final long end = first + count;
        int idle = 0;
        while (sequence < end)
        {
            message.putLong(0, sequence);
            final long result = connection.offer(message, 0, MESSAGE_LENGTH);
            if (result > 0)
            {
                sequence++;
                idle = 0;
                continue;
            }
            assertThat(result).as("offer result").isEqualTo(Connection.BACK_PRESSURED);
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail("back-pressured for too long after " + (sequence - first) + " of " + count + " messages");
            }
            if (++idle < 100)
            {
                Thread.onSpinWait();
            }
            else
            {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
            }
        }
    }

    private static void awaitReceived(final SequenceChecker checker, final long expected)
    {
        Await.until(Duration.ofNanos(DELIVERY_TIMEOUT_NS), () -> checker.received >= expected,
            () -> "messages received: " + checker.received + " of " + expected);
        assertThat(checker.received).as("messages received").isEqualTo(expected);
    }

    /** Runs on the receiver's engine thread: checks length, sequence and marker; fields only, no allocation. */
    private static final class SequenceChecker implements MessageHandler
    {
        volatile long received;
        volatile long outOfOrder;
        private long expected;

        @Override
        public void onMessage(final MessageView view)
        {
            if (view.dataLength() != MESSAGE_LENGTH || view.metadataLength() != 0 ||
                view.data().getLong(0) != expected || view.data().getLong(8) != MARKER)
            {
                outOfOrder++;
            }
            expected++;
            received++;
        }
    }
}
