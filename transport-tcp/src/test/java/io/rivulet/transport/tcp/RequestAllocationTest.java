package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.MessageView;
import io.rivulet.ReplyHandler;
import io.rivulet.RequestHandler;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

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
 * Zero-copy request-response allocates nothing once warm, at either end: not on the calling thread that encodes the
 * requests ({@link Connection#offerRequest}), not on the requesting node's engine, which hands each reply to the
 * {@link ReplyHandler} in place, and not on the responding node's engine, whose {@link RequestHandler} answers each
 * request in place ({@code Responder.Builder.requestResponseHandler}). Two nodes over loopback TCP, {@value #WINDOW}
 * requests in flight. A reactive responder ({@code Mono.just}) is measured beside it and only reported.
 *
 * <p>Measured as {@link AllocationTest} measures messages: each thread's allocated bytes around a run of
 * {@value #REQUESTS} requests and around a run of twice as many; what does not come with requests is bounded by a
 * fixed allowance, and the difference per extra request must stay under one byte.
 */
class RequestAllocationTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);
    private static final long RUN_TIMEOUT_NS = TestTime.nanos(60, TimeUnit.SECONDS);
    private static final int REQUEST_LENGTH = 32;
    private static final int WINDOW = 64;
    private static final int WARM_UP_REQUESTS = 200_000;
    private static final int REQUESTS = 50_000;
    private static final long FIXED_ALLOWANCE_BYTES = 64 * 1024;
    private static final String[] THREADS =
        { "requesting thread", "requesting node's engine", "responding node's engine" };
    /** Echoes the request in place. */
    private static final RequestHandler ECHO_IN_PLACE = (request, reply) ->
        reply.send(request.data(), 0, request.dataLength());

    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
    private final List<Thread> engineThreads = new CopyOnWriteArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(REQUEST_LENGTH));
    private final EchoChecker checker = new EchoChecker();
    private Rivulet responderNode;
    private Rivulet requesterNode;
    private Connection connection;
    private long sent;
    private String report = "";

    @BeforeEach
    void launch()
    {
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counting unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);
        responderNode = Rivulet.launch(context("responder"));
        requesterNode = Rivulet.launch(context("requester"));
        assertThat(engineThreads).as("engine threads, one per SHARED node: responder's, requester's").hasSize(2);
    }

    private void connect(final Responder responder)
    {
        final Server server = responderNode.bind("127.0.0.1:0", responder).block(TIMEOUT);
        connection = requesterNode.connect(server.localAddress()).block(TIMEOUT);
    }

    @AfterEach
    void close()
    {
        if (requesterNode != null)
        {
            requesterNode.close();
        }
        if (responderNode != null)
        {
            responderNode.close();
        }
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(180)
    void shouldAllocateNothingPerRequestAtEitherEndWithAnInPlaceResponder()
    {
        connect(Responder.builder().requestResponseHandler(ECHO_IN_PLACE).build());
        final long[][] runs = measure();

        for (int i = 0; i < THREADS.length; i++)
        {
            assertNothingPerRequest(runs, i);
        }
    }

    @Test
    @ScaledTimeout(180)
    void shouldAllocateNothingPerRequestOnTheRequesterWithAReactiveResponder()
    {
        connect(Responder.builder().requestResponse(Mono::just).build());
        final long[][] runs = measure();

        assertNothingPerRequest(runs, 0);
        assertNothingPerRequest(runs, 1);
        assertThat((double)(runs[1][2] - runs[0][2]) / REQUESTS).as("the reactive responder allocates per request")
            .isGreaterThan(100);
    }

    /** @return bytes per thread for a run of REQUESTS and a run of twice as many, after a warm-up. */
    private long[][] measure()
    {
        run(WARM_UP_REQUESTS);
        final long[] single = run(REQUESTS);
        final long[] twice = run(2 * REQUESTS);
        final StringBuilder report = new StringBuilder("offerRequest: bytes allocated for ").append(REQUESTS)
            .append(" / ").append(2 * REQUESTS).append(" requests:");
        for (int i = 0; i < THREADS.length; i++)
        {
            report.append(' ').append(THREADS[i]).append(' ').append(single[i]).append(" / ").append(twice[i]);
        }
        System.out.println(report); // the figures behind the assertions, for the report
        this.report = report.toString();
        assertThat(checker.wrong).as("replies with the wrong bytes, or errors").isZero();
        assertThat(checker.replies).isEqualTo(sent);
        return new long[][] { single, twice };
    }

    private void assertNothingPerRequest(final long[][] runs, final int thread)
    {
        assertThat((double)(runs[1][thread] - runs[0][thread]) / REQUESTS)
            .as("bytes per request on the %s (%s)", THREADS[thread], report).isLessThan(1.0);
        assertThat(runs[0][thread]).as("bytes of the %s besides requests (%s)", THREADS[thread], report)
            .isBetween(0L, FIXED_ALLOWANCE_BYTES);
        assertThat(runs[1][thread]).as("bytes of the %s besides requests (%s)", THREADS[thread], report)
            .isBetween(0L, FIXED_ALLOWANCE_BYTES);
    }

    /**
     * Sends {@code count} requests, at most {@value #WINDOW} in flight, and waits for every reply.
     *
     * @return bytes allocated meanwhile by the requesting thread, the requester's engine and the responder's engine.
     */
    private long[] run(final int count)
    {
        final long requesting = Thread.currentThread().getId();
        final long responderEngine = engineThreads.get(0).getId(); // launched first
        final long requesterEngine = engineThreads.get(1).getId();
        final long requesterEngineBefore = threads.getThreadAllocatedBytes(requesterEngine);
        final long responderEngineBefore = threads.getThreadAllocatedBytes(responderEngine);
        final long requestingBefore = threads.getThreadAllocatedBytes(requesting);
        final long end = sent + count;
        final long deadlineNs = System.nanoTime() + RUN_TIMEOUT_NS;
        int idle = 0;
        while (sent < end || checker.replies < end)
        {
            if (sent < end && sent - checker.replies < WINDOW && offer())
            {
                idle = 0;
                continue;
            }
            if (++idle < 100)
            {
                Thread.onSpinWait();
                continue;
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail("stuck at request " + sent + " with " + checker.replies + " replies");
            }
            LockSupport.parkNanos(50_000); // 2 cores: leave them to the engines while replies come
        }
        final long requestingAfter = threads.getThreadAllocatedBytes(requesting);
        final long requesterEngineAfter = threads.getThreadAllocatedBytes(requesterEngine);
        final long responderEngineAfter = threads.getThreadAllocatedBytes(responderEngine);
        return new long[] {
            requestingAfter - requestingBefore, requesterEngineAfter - requesterEngineBefore,
            responderEngineAfter - responderEngineBefore };
    }

    private boolean offer()
    {
        request.putLong(0, sent);
        final long result = connection.offerRequest(request, 0, REQUEST_LENGTH, checker);
        if (result > 0)
        {
            sent++;
            return true;
        }
        if (result != Connection.BACK_PRESSURED)
        {
            fail("offerRequest result " + result);
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

    /**
     * Runs on the requester's engine thread: counts the replies and checks each echoes its request's sequence (an
     * echo answers at once, so over one connection the replies come in the order of the requests); fields only.
     */
    private static final class EchoChecker implements ReplyHandler
    {
        volatile long replies;
        volatile long wrong;

        @Override
        public void onReply(final long requestId, final MessageView reply)
        {
            if (reply.dataLength() != REQUEST_LENGTH || reply.metadataLength() != 0 ||
                reply.data().getLong(0) != replies)
            {
                wrong++;
            }
            replies++;
        }

        @Override
        public void onEmpty(final long requestId)
        {
            wrong++;
            replies++;
        }

        @Override
        public void onError(final long requestId, final Throwable error)
        {
            wrong++;
            replies++;
        }
    }
}
