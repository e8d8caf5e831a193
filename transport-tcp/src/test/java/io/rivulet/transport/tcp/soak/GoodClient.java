package io.rivulet.transport.tcp.soak;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.topic.TopicMessage;
import io.rivulet.transport.tcp.TcpTransport;
import reactor.core.publisher.BaseSubscriber;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The well-behaved client of the soak: the right token, from 127.0.0.1, one request-response at a time every
 * {@link #PACE_NS} (each reply checked against what was sent, its round trip recorded in the phase's
 * {@link LatencyRecorder}), and a subscription to the server's topic whose items it checks as they come (JOINED,
 * then consecutive sequences, no GAP). Each round trip goes into the phase's recorders twice: as measured, and
 * corrected for coordinated omission. Anything else is counted as an error, never retried silently: a lost
 * connection is the server failing this client.
 */
final class GoodClient implements AutoCloseable
{
    static final long PACE_NS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final int PAYLOAD_LENGTH = 64;

    private final Rivulet node;
    private final Connection connection;
    private final TopicFeed feed = new TopicFeed();
    private final Thread requester;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private volatile LatencyRecorder[] recorders;
    private volatile boolean running = true;

    /**
     * Connects, subscribes and starts requesting (recording nothing until {@link #recordInto}).
     *
     * @param address the server.
     * @param token   the right token.
     */
    GoodClient(final String address, final String token)
    {
        node = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED)
            .authToken(token).countersFile(false).errorHandler(error -> onError("node error: " + error)));
        connection = node.connect(address).block(Duration.ofSeconds(30));
        connection.subscribe(SoakServerMain.TOPIC).subscribe(feed);
        requester = new Thread(this::requestLoop, "soak-good-client");
        requester.start();
    }

    /**
     * @param measured  where round trips from now on are recorded as measured; null to stop recording.
     * @param corrected where they are recorded corrected for coordinated omission.
     */
    void recordInto(final LatencyRecorder measured, final LatencyRecorder corrected)
    {
        recorders = measured == null ? null : new LatencyRecorder[]{measured, corrected};
    }

    long sent()
    {
        return sent.get();
    }

    long received()
    {
        return received.get();
    }

    long errors()
    {
        return errors.get();
    }

    /** @return the first error seen, or null. */
    String firstError()
    {
        return firstError.get();
    }

    TopicFeed feed()
    {
        return feed;
    }

    /** @return the server's last published topic sequence, asked over the same connection. */
    long serverTopicSequence()
    {
        final Message reply = connection.requestResponse(Message.of(SoakServerMain.SEQUENCE_REQUEST))
            .block(REQUEST_TIMEOUT);
        return Long.parseLong(reply.dataUtf8());
    }

    private void requestLoop()
    {
        final byte[] payload = new byte[PAYLOAD_LENGTH];
        long nextNs = System.nanoTime();
        while (running)
        {
            final long number = sent.incrementAndGet();
            ByteBuffer.wrap(payload).putLong(number);
            final long startNs = System.nanoTime();
            try
            {
                final Message reply = connection.requestResponse(Message.of(payload)).block(REQUEST_TIMEOUT);
                final long roundTripNs = System.nanoTime() - startNs;
                if (reply == null || !Arrays.equals(reply.dataBytes(), payload))
                {
                    onError("request " + number + ": the reply is not the echo");
                }
                else
                {
                    received.incrementAndGet();
                    final LatencyRecorder[] phase = recorders;
                    if (phase != null)
                    {
                        phase[0].record(roundTripNs);
                        phase[1].record(roundTripNs, PACE_NS);
                    }
                }
            }
            catch (final RuntimeException ex)
            {
                onError("request " + number + ": " + ex);
            }
            nextNs += PACE_NS;
            final long waitNs = nextNs - System.nanoTime();
            if (waitNs > 0)
            {
                LockSupport.parkNanos(waitNs);
            }
            else
            {
                nextNs = System.nanoTime(); // late (a slow reply): no burst to catch up
            }
        }
    }

    private void onError(final String error)
    {
        errors.incrementAndGet();
        firstError.compareAndSet(null, error);
    }

    @Override
    public void close()
    {
        running = false;
        try
        {
            requester.join(REQUEST_TIMEOUT.toMillis() + 5_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        feed.dispose();
        node.close();
    }

    /** The topic subscription: checks what arrives as it arrives. */
    static final class TopicFeed extends BaseSubscriber<TopicMessage>
    {
        private final AtomicLong dataItems = new AtomicLong();
        private final AtomicLong lastSequence = new AtomicLong(-1);
        private final AtomicLong problems = new AtomicLong();
        private final AtomicReference<String> firstProblem = new AtomicReference<>();

        @Override
        protected void hookOnNext(final TopicMessage item)
        {
            switch (item.kind())
            {
                case JOINED -> lastSequence.set(item.sequence());
                case DATA ->
                {
                    if (item.sequence() != lastSequence.get() + 1)
                    {
                        problem("DATA " + item.sequence() + " after " + lastSequence.get());
                    }
                    lastSequence.set(item.sequence());
                    dataItems.incrementAndGet();
                }
                default -> problem("unexpected " + item);
            }
        }

        @Override
        protected void hookOnError(final Throwable error)
        {
            problem("subscription failed: " + error);
        }

        @Override
        protected void hookOnComplete()
        {
            problem("subscription completed");
        }

        private void problem(final String what)
        {
            problems.incrementAndGet();
            firstProblem.compareAndSet(null, what);
        }

        long dataItems()
        {
            return dataItems.get();
        }

        long lastSequence()
        {
            return lastSequence.get();
        }

        long problems()
        {
            return problems.get();
        }

        String firstProblem()
        {
            return firstProblem.get();
        }
    }
}
