package io.rivulet.transport.tcp.soak;

import io.rivulet.EngineFailure;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.counters.NodeCounters;
import io.rivulet.security.Authenticator;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicOptions;
import io.rivulet.transport.tcp.TcpTransport;
import org.agrona.concurrent.UnsafeBuffer;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The node the soak test attacks, in a process of its own so that its memory, descriptors and threads can be read
 * from outside: binds {@code 127.0.0.1:0} with a token authenticator, answers request-response with an echo (and
 * {@value #SEQUENCE_REQUEST} with the topic's last sequence), publishes {@value #TOPIC} (BLOCK: a subscriber that keeps
 * up gets every message) at {@value #TOPIC_RATE} messages a second, prints {@code READY <port> <pid>}, then a
 * {@code STATS} line every {@value #STATS_INTERVAL_S} s. It exits when its input closes (the test ended, however) or
 * after its lifetime; a failed engine halts it (fail-stop, {@code EngineFailure.EXIT}), as a supervised server would.
 */
public final class SoakServerMain
{
    /** The topic the good client subscribes to. */
    public static final String TOPIC = "soak.ticks";
    /** A request whose reply is the topic's last published sequence. */
    public static final String SEQUENCE_REQUEST = "sequence?";
    static final int TOPIC_RATE = 200;
    static final int STATS_INTERVAL_S = 5;

    private static final Map<String, AtomicLong> ERRORS = new ConcurrentHashMap<>();
    private static final AtomicReference<String> LAST_ERROR = new AtomicReference<>("none");

    private SoakServerMain()
    {
    }

    /** @param args the token, then the longest time to live in seconds. */
    public static void main(final String[] args) throws InterruptedException
    {
        final String token = args[0];
        final long lifetimeNs = TimeUnit.SECONDS.toNanos(Long.parseLong(args[1]));
        final long pid = ProcessHandle.current().pid();
        final Thread watchdog = watchInput();
        try (Rivulet node = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport())
            .threadingMode(ThreadingMode.SHARED)
            .authenticator(Authenticator.tokens(token))
            .engineFailure(EngineFailure.EXIT) // fail-stop as a supervised server would: a failed engine ends the JVM
            .errorHandler(SoakServerMain::onError)))
        {
            final Publication ticks = node.publication(TOPIC, TopicOptions.block());
            final Server server = node.bind("127.0.0.1:0", Responder.builder()
                .requestResponse(request -> Mono.just(SEQUENCE_REQUEST.equals(request.dataUtf8()) ?
                    Message.of(Long.toString(ticks.sequence())) : Message.of(request.dataBytes())))
                .build()).block(Duration.ofSeconds(30));
            final Thread publisher = publish(ticks);
            final String address = server.localAddress();
            System.out.println("READY " + address.substring(address.lastIndexOf(':') + 1) + " " + pid);
            System.out.flush();

            final long startNs = System.nanoTime();
            long nextStatsNs = startNs;
            while (System.nanoTime() - startNs < lifetimeNs && watchdog.isAlive())
            {
                if (System.nanoTime() - nextStatsNs >= 0)
                {
                    nextStatsNs += TimeUnit.SECONDS.toNanos(STATS_INTERVAL_S);
                    printStats(node.counters(), ticks, startNs);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
            publisher.interrupt();
            publisher.join(10_000);
        }
        System.exit(0); // the watchdog blocks on input
    }

    private static void onError(final Throwable error)
    {
        ERRORS.computeIfAbsent(error.getClass().getSimpleName(), name -> new AtomicLong()).incrementAndGet();
        LAST_ERROR.set(String.valueOf(error.getMessage()));
        if (error instanceof Error || error.getCause() instanceof Error)
        {
            // Said at once: a failed engine halts the JVM before the next STATS line.
            System.out.println("FATAL " + error + (error.getCause() == null ? "" : " caused by " + error.getCause()));
            System.out.flush();
        }
    }

    /** One STATS line: the node's counters and the JVM's heap, for the test's summary. */
    private static void printStats(final NodeCounters counters, final Publication ticks, final long startNs)
    {
        final Runtime runtime = Runtime.getRuntime();
        final Map<String, Long> errors = new TreeMap<>();
        ERRORS.forEach((name, count) -> errors.put(name, count.get()));
        System.out.println("STATS uptime=" + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNs) + "s" +
            " heapUsedMb=" + (runtime.totalMemory() - runtime.freeMemory()) / (1 << 20) +
            " gcMs=" + ManagementFactory.getGarbageCollectorMXBeans().stream().mapToLong(gc -> gc.getCollectionTime()).sum() +
            " opened=" + counters.connectionsOpened.get() + " closed=" + counters.connectionsClosed.get() +
            " lost=" + counters.connectionsLost.get() + " setupsRejected=" + counters.setupsRejected.get() +
            " setupTimeouts=" + counters.setupTimeouts.get() + " protocolErrors=" + counters.protocolErrors.get() +
            " limitRejections=" + counters.limitRejections.get() + " topicSequence=" + ticks.sequence() +
            " errors=" + errors + " lastError=" + LAST_ERROR.get().replace('\n', ' '));
        System.out.flush();
    }

    /** Publishes the topic at a steady rate, each message carrying its own sequence. */
    private static Thread publish(final Publication ticks)
    {
        final Thread thread = new Thread(() ->
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[Long.BYTES]);
            final long periodNs = TimeUnit.SECONDS.toNanos(1) / TOPIC_RATE;
            long nextNs = System.nanoTime();
            while (!Thread.currentThread().isInterrupted())
            {
                buffer.putLong(0, ticks.sequence() + 1);
                if (ticks.offer(buffer, 0, Long.BYTES) > 0)
                {
                    nextNs += periodNs;
                }
                LockSupport.parkNanos(Math.max(TimeUnit.MICROSECONDS.toNanos(100), nextNs - System.nanoTime()));
            }
        }, "soak-publisher");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** @return a thread that ends when standard input closes: the test's end, even a killed test JVM's. */
    private static Thread watchInput()
    {
        final Thread thread = new Thread(() ->
        {
            final InputStream in = System.in;
            try
            {
                while (in.read() >= 0)
                {
                    // nothing is sent; a read returns only at the end
                }
            }
            catch (final IOException ignored)
            {
                // closed
            }
        }, "soak-input-watch");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
