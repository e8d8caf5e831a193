package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.MessageClaim;
import io.rivulet.MessageHandler;
import io.rivulet.MessageView;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
 * Issue 16 item 6: 0 bytes allocated per message once warm, on the sending thread and the sending node's engine
 * thread for {@link Connection#offer} and {@link Connection#tryClaim}, and on the receiving node's engine thread
 * for the zero-copy handler ({@code Responder.fireAndForgetHandler(MessageHandler)}), two nodes over loopback TCP.
 *
 * <p>Each thread's allocated bytes ({@code com.sun.management.ThreadMXBean.getThreadAllocatedBytes}) are read around
 * a run of {@value #MESSAGES} messages and around a run of twice as many. Work that does not come with messages —
 * keepalives, timers, the measurement itself — costs the same in both runs, so it is bounded by a fixed allowance
 * ({@value #FIXED_ALLOWANCE_BYTES} bytes a run), and the difference between the runs, divided by the extra
 * messages, is what each message costs: it must stay under one byte, i.e. nothing is allocated per message.
 */
class AllocationTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);
    private static final long DELIVERY_TIMEOUT_NS = TestTime.nanos(60, TimeUnit.SECONDS);
    private static final int MESSAGE_LENGTH = 64;
    private static final int WARM_UP_MESSAGES = 300_000;
    private static final int MESSAGES = 100_000;
    private static final long FIXED_ALLOWANCE_BYTES = 64 * 1024;
    private static final long MARKER = 0x5249_5655_4C45_5421L;
    private static final String[] THREADS = { "sending thread", "sending node's engine", "receiving node's engine" };

    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
    private final List<Thread> engineThreads = new CopyOnWriteArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final SequenceChecker checker = new SequenceChecker();
    private final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE_LENGTH));
    private final MessageClaim claim = new MessageClaim();
    private Rivulet receiverNode;
    private Rivulet senderNode;
    private Connection connection;
    private long sent;

    /** How a run sends one message. */
    @FunctionalInterface
    private interface Send
    {
        /** @return true when sent, false when back-pressured. */
        boolean send(long sequence);
    }

    @BeforeEach
    void connect()
    {
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counting unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);
        receiverNode = Rivulet.launch(context("receiver"));
        senderNode = Rivulet.launch(context("sender"));
        final Server server = receiverNode.bind("127.0.0.1:0",
            Responder.builder().fireAndForgetHandler(checker).build()).block(TIMEOUT);
        connection = senderNode.connect(server.localAddress()).block(TIMEOUT);
        assertThat(engineThreads).as("engine threads, one per SHARED node: sender's, receiver's").hasSize(2);
    }

    @AfterEach
    void close()
    {
        if (senderNode != null)
        {
            senderNode.close();
        }
        if (receiverNode != null)
        {
            receiverNode.close();
        }
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(180)
    void shouldAllocateNothingPerMessageOnOffer()
    {
        assertNothingAllocatedPerMessage("offer", this::offer);
    }

    @Test
    @ScaledTimeout(180)
    void shouldAllocateNothingPerMessageOnTryClaim()
    {
        assertNothingAllocatedPerMessage("tryClaim", this::tryClaim);
    }

    private void assertNothingAllocatedPerMessage(final String path, final Send send)
    {
        run(send, WARM_UP_MESSAGES);
        final long[] single = run(send, MESSAGES);
        final long[] twice = run(send, 2 * MESSAGES);

        final StringBuilder report = new StringBuilder(path).append(": bytes allocated for ").append(MESSAGES)
            .append(" / ").append(2 * MESSAGES).append(" messages:");
        for (int i = 0; i < THREADS.length; i++)
        {
            report.append(' ').append(THREADS[i]).append(' ').append(single[i]).append(" / ").append(twice[i]);
        }
        System.out.println(report); // the figures behind the assertions, for the report
        for (int i = 0; i < THREADS.length; i++)
        {
            assertThat((double)(twice[i] - single[i]) / MESSAGES)
                .as("%s: bytes per message on the %s (%s)", path, THREADS[i], report).isLessThan(1.0);
            assertThat(single[i]).as("%s: bytes of the %s besides messages (%s)", path, THREADS[i], report)
                .isBetween(0L, FIXED_ALLOWANCE_BYTES);
            assertThat(twice[i]).as("%s: bytes of the %s besides messages (%s)", path, THREADS[i], report)
                .isBetween(0L, FIXED_ALLOWANCE_BYTES);
        }
        assertThat(checker.wrong).as("messages out of order or with the wrong bytes").isZero();
        assertThat(receiverNode.counters().messagesReceived.get()).isEqualTo(sent);
    }

    /**
     * Sends {@code count} messages and waits until the receiver has them all.
     *
     * @return bytes allocated meanwhile by the sending thread, the sender's engine and the receiver's engine.
     */
    private long[] run(final Send send, final int count)
    {
        final long sendingThread = Thread.currentThread().getId();
        final long receiverEngine = engineThreads.get(0).getId(); // launched first
        final long senderEngine = engineThreads.get(1).getId();
        // Each read returns a long: nothing is allocated to take them.
        final long senderEngineBefore = threads.getThreadAllocatedBytes(senderEngine);
        final long receiverEngineBefore = threads.getThreadAllocatedBytes(receiverEngine);
        final long sendingBefore = threads.getThreadAllocatedBytes(sendingThread);
        final long end = sent + count;
        final long deadlineNs = System.nanoTime() + DELIVERY_TIMEOUT_NS;
        int idle = 0;
        while (sent < end)
        {
            if (send.send(sent))
            {
                sent++;
                idle = 0;
            }
            else if (++idle < 100)
            {
                Thread.onSpinWait();
            }
            else
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    fail("back-pressured for too long at message " + sent);
                }
                LockSupport.parkNanos(50_000); // 2 cores: give them to the engines while the ring drains
            }
        }
        final long sendingAfter = threads.getThreadAllocatedBytes(sendingThread);
        final long expected = end;
        Await.until(Duration.ofNanos(DELIVERY_TIMEOUT_NS), () -> checker.received >= expected,
            () -> "messages received: " + checker.received + " of " + expected);
        final long senderEngineAfter = threads.getThreadAllocatedBytes(senderEngine);
        final long receiverEngineAfter = threads.getThreadAllocatedBytes(receiverEngine);
        assertThat(checker.received).as("messages received").isEqualTo(expected);
        return new long[] {
            sendingAfter - sendingBefore, senderEngineAfter - senderEngineBefore, receiverEngineAfter - receiverEngineBefore };
    }

    private boolean offer(final long sequence)
    {
        message.putLong(0, sequence);
        message.putLong(8, MARKER);
        final long result = connection.offer(message, 0, MESSAGE_LENGTH);
        return accepted(result);
    }

    private boolean tryClaim(final long sequence)
    {
        final long result = connection.tryClaim(MESSAGE_LENGTH, claim);
        if (!accepted(result))
        {
            return false;
        }
        final MutableDirectBuffer buffer = claim.buffer();
        buffer.putLong(claim.offset(), sequence);
        buffer.putLong(claim.offset() + 8, MARKER);
        if (!claim.commit())
        {
            fail("claim taken back at message " + sequence);
        }
        return true;
    }

    private static boolean accepted(final long result)
    {
        if (result > 0)
        {
            return true;
        }
        if (result != Connection.BACK_PRESSURED)
        {
            fail("send result " + result);
        }
        return false;
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
            .idleStrategy("backoff")
            .threadFactory(factory)
            .errorHandler(errors::add);
    }

    /** Runs on the receiver's engine thread: checks length, sequence and marker; fields only, no allocation. */
    private static final class SequenceChecker implements MessageHandler
    {
        volatile long received;
        volatile long wrong;
        private long expected;

        @Override
        public void onMessage(final MessageView view)
        {
            if (view.dataLength() != MESSAGE_LENGTH || view.metadataLength() != 0 ||
                view.data().getLong(0) != expected || view.data().getLong(8) != MARKER)
            {
                wrong++;
            }
            expected++;
            received++;
        }
    }
}
