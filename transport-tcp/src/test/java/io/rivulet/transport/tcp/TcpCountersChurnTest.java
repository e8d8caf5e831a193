package io.rivulet.transport.tcp;

import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.counters.CounterTypes;
import io.rivulet.counters.NodeCounters;
import io.rivulet.counters.NodeFileWriter;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Connection churn once the node file's counter slots are full: the connections beyond them share the node's one
 * overflow region, made at start, and the node prints nothing for them (Agrona prints a line for every counters region
 * made on a heap {@code byte[]}, and such a region was made per connection); a closed connection's slots are free for
 * the next one at once, so a node counts every connection up to {@code maxConnections} individually.
 *
 * <p>Raw loopback sockets play the clients: the fill connections send a SETUP with a long keepalive and stay; the
 * churned ones connect and leave without SETUP (a FIN, a reset, or the first bytes of a frame).
 */
class TcpCountersChurnTest
{
    private static final Duration TIMEOUT = TestTime.seconds(60);
    private static final int CYCLES = 5_000;
    /** Churned connections the server may lag behind the client by before the client waits. */
    private static final int MAX_LAG = 100;

    private final List<Thread> engineThreads = new CopyOnWriteArrayList<>();
    private final List<Socket> fill = new ArrayList<>();
    private final byte[] setup = new RawFrames().setup("", (int)TimeUnit.SECONDS.toMillis(20),
        (int)TimeUnit.SECONDS.toMillis(60), 16 * 1024);
    private final byte[] partialFrame = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(500).array();
    private Rivulet node;
    private InetSocketAddress address;

    @AfterEach
    void close() throws IOException
    {
        for (final Socket socket : fill)
        {
            socket.close();
        }
        if (node != null)
        {
            node.close();
        }
    }

    @Test
    @ScaledTimeout(120)
    void shouldChurnConnectionsPastFullSlotsQuietlyInTheOneOverflowRegionAndGiveTheSlotsBack() throws IOException
    {
        start(new Rivulet.Context().maxCounters(256)); // given small: a few dozen connections fill it
        final NodeCounters counters = node.counters();
        final NodeFileWriter nodeFile = counters.nodeFile();
        final int startSlots = nodeFile.availableCounters();
        final NodeFileWriter overflow = counters.overflowRegion();
        final int overflowCounters = overflow.countersReader().maxCounterId();

        while (nodeFile.availableCounters() >= io.rivulet.counters.ConnectionCounters.COUNTERS)
        {
            openWithSetup();
        }
        final int fullSlots = nodeFile.availableCounters();
        openWithSetup(); // one past the slots: its SETUP counts in the overflow set
        assertThat(sum(overflow.countersReader(), CounterTypes.CONNECTION_FRAMES_IN)).isOne();
        final long[] allocatedBefore = engineAllocatedBytes();

        final PrintStream stderr = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final long elapsedMs;
        try (PrintStream capture = new PrintStream(new Tee(captured, stderr), true, StandardCharsets.UTF_8))
        {
            System.setErr(capture);
            final long startNs = System.nanoTime();
            churn(CYCLES);
            awaitOpen(fill.size());
            elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        }
        finally
        {
            System.setErr(stderr);
        }
        final long[] allocatedAfter = engineAllocatedBytes();
        final long engineBytes = allocatedAfter[0] - allocatedBefore[0];
        System.out.printf("counters churn: %,d cycles without SETUP past %d full slots' connections in %,d ms; " +
            "engine thread allocated %,d bytes, %,d per cycle%n", CYCLES, fill.size(), elapsedMs, engineBytes,
            engineBytes / CYCLES);

        final String lines = captured.toString(StandardCharsets.UTF_8);
        assertThat(lines.lines().count()).as("lines on stderr during the churn:%n%s", lines).isZero();
        assertThat(counters.overflowRegion()).as("the overflow region, throughout").isSameAs(overflow);
        assertThat(overflow.countersReader().maxCounterId()).as("no counter added to it").isEqualTo(overflowCounters);
        assertThat(sum(overflow.countersReader(), CounterTypes.CONNECTION_FRAMES_IN))
            .as("frames in the overflow set: that SETUP alone, the churned ones sent no whole frame").isOne();
        assertThat(nodeFile.availableCounters()).as("slots after the churn").isEqualTo(fullSlots);
        assertThat(counters.connectionsOpened.get()).isEqualTo(fill.size() + CYCLES);

        for (final Socket socket : fill)
        {
            socket.close();
        }
        final int filled = fill.size();
        fill.clear();
        awaitOpen(0);
        assertThat(counters.connectionsClosed.get()).isEqualTo(filled + CYCLES);
        assertThat(nodeFile.availableCounters()).as("slots once every connection closed").isEqualTo(startSlots);
    }

    @Test
    @ScaledTimeout(120)
    void shouldCountEveryConnectionUpToMaxConnectionsIndividuallyUnderChurn() throws IOException
    {
        final int maxConnections = 64;
        start(new Rivulet.Context().maxConnections(maxConnections)); // counter slots sized from it
        final NodeCounters counters = node.counters();
        for (int i = 0; i < maxConnections; i++)
        {
            openWithSetup();
        }
        assertThat(ownConnectionCounters(counters)).isEqualTo(maxConnections * 8);

        // One leaves and another comes, 500 times, the node always at maxConnections: the newcomer takes the slots
        // the leaver freed, at once.
        for (int i = 0; i < 500; i++)
        {
            fill.remove(0).close();
            awaitOpen(maxConnections - 1);
            openWithSetup();
        }

        assertThat(ownConnectionCounters(counters)).as("slots of their own, each of the %d open", maxConnections)
            .isEqualTo(maxConnections * 8);
        assertThat(sum(counters.overflowRegion().countersReader(), CounterTypes.CONNECTION_FRAMES_IN))
            .as("SETUP frames counted in the overflow set: connections that got no slots").isZero();
        assertThat(counters.connectionsOpened.get()).isEqualTo(maxConnections + 500);
    }

    private void start(final Rivulet.Context context)
    {
        final ThreadFactory factory = runnable ->
        {
            final Thread thread = new Thread(runnable, "rivulet-counters-churn");
            thread.setDaemon(true);
            engineThreads.add(thread);
            return thread;
        };
        node = Rivulet.launch(context
            .transport(new TcpTransport())
            // Every churned socket is a connection to count: a burst of them, closed by the client but accepted
            // before their close is read, must not meet the per-address bound on connections waiting for SETUP
            // (PendingSetupLimitTest covers it), which would refuse some before any counter is made.
            .maxPendingSetupsPerAddress(CYCLES)
            .threadingMode(ThreadingMode.SHARED)
            .countersFile(false)
            .threadFactory(factory)
            .errorHandler(error -> { })); // thousands of lost connections: counted by the node, not printed
        final Server server = node.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("echo"))).build()).block(TIMEOUT);
        final String local = server.localAddress();
        address = new InetSocketAddress("127.0.0.1", Integer.parseInt(local.substring(local.lastIndexOf(':') + 1)));
    }

    /** A connection that completes SETUP and stays (a long keepalive: the socket never answers one). */
    private void openWithSetup() throws IOException
    {
        final long opened = node.counters().connectionsOpened.get();
        final long framesIn = node.counters().framesReceived.get();
        final Socket socket = new Socket();
        socket.connect(address, (int)TIMEOUT.toMillis());
        fill.add(socket);
        socket.getOutputStream().write(setup);
        socket.getOutputStream().flush();
        Await.until(TIMEOUT, () -> node.counters().connectionsOpened.get() > opened &&
            node.counters().framesReceived.get() > framesIn, () -> "the node to take the SETUP of connection " +
            fill.size());
    }

    private void churn(final int cycles) throws IOException
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        for (int i = 0; i < cycles; i++)
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new AssertionError("only " + i + " of " + cycles + " cycles within " + TIMEOUT);
            }
            if (i % MAX_LAG == 0)
            {
                awaitOpen(fill.size() + MAX_LAG);
            }
            try (Socket socket = new Socket())
            {
                socket.connect(address, (int)TIMEOUT.toMillis());
                final OutputStream out = socket.getOutputStream();
                switch (i % 3)
                {
                    case 0 -> out.write(partialFrame); // the first bytes of a frame that never completes
                    case 1 -> socket.setSoLinger(true, 0); // a reset
                    default ->
                    {
                        // a FIN and nothing else
                    }
                }
                out.flush();
            }
        }
    }

    private void awaitOpen(final long atMost)
    {
        final NodeCounters counters = node.counters();
        Await.until(TIMEOUT, () -> counters.connectionsOpened.get() - counters.connectionsClosed.get() <= atMost,
            () -> "at most " + atMost + " open: " + counters.connectionsOpened.get() + " opened, " +
                counters.connectionsClosed.get() + " closed");
    }

    private long[] engineAllocatedBytes()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        long total = 0;
        for (final Thread thread : engineThreads)
        {
            total += Math.max(0, threads.getThreadAllocatedBytes(thread.getId()));
        }
        return new long[] {total};
    }

    private static int ownConnectionCounters(final NodeCounters counters)
    {
        final int[] count = {0};
        counters.reader().forEach((value, id, label) ->
        {
            if (label.startsWith("conn "))
            {
                count[0]++;
            }
        });
        return count[0];
    }

    private static long sum(final CountersReader reader, final int typeId)
    {
        final long[] sum = {0};
        reader.forEach((counterId, type, key, label) ->
        {
            if (type == typeId)
            {
                sum[0] += reader.getCounterValue(counterId);
            }
        });
        return sum[0];
    }

    /** Writes to the capture and on to the real stderr, so that a failure still shows in the build's output. */
    private static final class Tee extends OutputStream
    {
        private final OutputStream capture;
        private final OutputStream out;

        Tee(final OutputStream capture, final OutputStream out)
        {
            this.capture = capture;
            this.out = out;
        }

        @Override
        public void write(final int b) throws IOException
        {
            capture.write(b);
            out.write(b);
        }

        @Override
        public void write(final byte[] bytes, final int offset, final int length) throws IOException
        {
            capture.write(bytes, offset, length);
            out.write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException
        {
            out.flush();
        }
    }
}
