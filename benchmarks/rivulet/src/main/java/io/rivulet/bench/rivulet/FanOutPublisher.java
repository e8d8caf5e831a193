package io.rivulet.bench.rivulet;

import io.rivulet.bench.harness.Pacer;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.ReplySlot;
import io.rivulet.topic.Publication;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The fan-out's publisher: on a thread of its own (never the engine's), publishes runs of FANOUT messages
 * to the topic {@link #TOPIC} with {@code Publication.offer}, at a given rate or as fast as the log's
 * back-pressure (policy BLOCK: the slowest subscriber) allows, waiting while the log is full as the server's
 * {@code --wait} says (parking {@value #PARK_NS} ns at a time when it parks). Each message carries
 * the publisher's running count in {@code seq} and, in {@code value}, the {@code System.nanoTime()} of the
 * offer that took it, so each subscriber measures publication-to-delivery latency on the host's one clock.
 *
 * <p>Thread-safety: {@link #start} may be called from any thread (the engine's, on a request); runs are
 * published one after another on the publisher's thread, the publication's single writer.
 */
final class FanOutPublisher implements AutoCloseable
{
    /** The topic the fan-out publishes and its subscribers subscribe to. */
    static final String TOPIC = "bench.fanout";
    /** Longest park while the log is full; nothing signals room in the log, so the publisher wakes by time. */
    static final long PARK_NS = 50_000;

    private final Publication publication;
    private final ReplySlot.Wait wait;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(runnable ->
    {
        final Thread publisher = new Thread(runnable, "fanout-publisher");
        publisher.setDaemon(true);
        return publisher;
    });
    private int published;
    private volatile String error;

    FanOutPublisher(final Publication publication, final ReplySlot.Wait wait)
    {
        this.publication = publication;
        this.wait = wait;
    }

    /** Queues a run of {@code count} messages of {@code size} bytes, at {@code ratePerSecond} (0: flat out). */
    void start(final int size, final long count, final long ratePerSecond)
    {
        thread.execute(() -> publish(size, count, new Pacer(ratePerSecond)));
    }

    /**
     * Publishes a run on the calling thread, which must then be the publication's only writer ({@link #start} is not
     * used beside it).
     *
     * @throws IllegalStateException when the run failed (the log stayed full, or the publication closed).
     */
    void run(final int size, final long count, final Pacer pacer)
    {
        publish(size, count, pacer);
        if (error != null)
        {
            throw new IllegalStateException(error);
        }
    }

    /** @return why a run failed, or null. */
    String error()
    {
        return error;
    }

    private void publish(final int size, final long count, final Pacer pacer)
    {
        final UnsafeBuffer message = new UnsafeBuffer(Payloads.newPayload(size, Payloads.FANOUT));
        for (long i = 0; i < count; i++)
        {
            pacer.awaitSlot(i);
            message.putInt(Payloads.SEQ_OFFSET, published, ByteOrder.LITTLE_ENDIAN);
            long result;
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // Stamped at each attempt: the latency is from the offer that took the message to its delivery.
            while ((result = offer(message, size)) == Publication.BACK_PRESSURED)
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    error = "the topic's log stayed full for 30 s";
                    return;
                }
                awaitRoom();
            }
            if (result < 0)
            {
                error = "offer failed with " + result + " (closed)";
                return;
            }
            published++;
        }
    }

    /**
     * The log is full: a publisher that spins or yields here is a third busy thread beside two busy-spinning
     * engines on 2 cores (a busy-spinning engine keeps the core it is given for a whole scheduler slice); parked, it
     * frees its core and the engine drains the log to the subscribers while it sleeps.
     */
    private void awaitRoom()
    {
        if (wait.parks())
        {
            LockSupport.parkNanos(PARK_NS);
        }
        else
        {
            wait.pause();
        }
    }

    private long offer(final UnsafeBuffer message, final int size)
    {
        message.putLong(Payloads.VALUE_OFFSET, System.nanoTime(), ByteOrder.LITTLE_ENDIAN);
        return publication.offer(message, 0, size);
    }

    @Override
    public void close()
    {
        thread.shutdownNow();
        try
        {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        publication.close();
    }
}
