package io.rivulet.transport.tcp;

import io.rivulet.tck.Await;
import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.ConnectionLostException;
import io.rivulet.Message;
import io.rivulet.Reconnector;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.util.retry.Retry;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults across two processes: the server runs in a child JVM ({@link KillableServerMain}) that the test freezes
 * (SIGSTOP) and kills (SIGKILL, {@link Process#destroyForcibly()}). The client's open stream must error within the
 * keepalive timeout, and the client, connecting through a {@link Reconnector}, must reach the new server process
 * started on the same port.
 */
@ScaledTimeout(180)
class PeerKillTest
{
    /* The client's keepalive and the detection slack are scaled alike, so the bound asserted on keeps its meaning. */
    private static final long KEEPALIVE_INTERVAL_MS = TestTime.millis(500);
    private static final long KEEPALIVE_TIMEOUT_MS = TestTime.millis(2_000);
    /** Scheduling slack on a loaded 2-core machine; the point is that detection does not wait for anything else. */
    private static final long SLACK_MS = TestTime.millis(5_000);
    private static final Duration TIMEOUT = TestTime.seconds(30);

    private final List<Process> children = new ArrayList<>();
    private Rivulet client;

    @BeforeEach
    void launchClient()
    {
        client = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED)
            .keepaliveInterval(KEEPALIVE_INTERVAL_MS, TimeUnit.MILLISECONDS)
            .keepaliveTimeout(KEEPALIVE_TIMEOUT_MS, TimeUnit.MILLISECONDS));
    }

    @AfterEach
    void cleanUp() throws InterruptedException
    {
        for (final Process child : children)
        {
            child.destroyForcibly();
            child.waitFor(TestTime.millis(10, TimeUnit.SECONDS), TimeUnit.MILLISECONDS);
        }
        client.close();
    }

    @Test
    void shouldErrorWithinKeepaliveTimeoutAndReconnectWhenTheKilledPeerReturns() throws Exception
    {
        final Child first = startServer(0);
        final int port = first.port;
        final String address = "127.0.0.1:" + port;
        final Reconnector reconnector = new Reconnector(() -> client.connect(address),
            Retry.backoff(400, TestTime.ofMillis(20)).maxBackoff(TestTime.ofMillis(250)));

        assertThat(pidOf(reconnector)).isEqualTo(first.pid);
        final Connection firstConnection = reconnector.connection().block(TIMEOUT);
        assertThat(reconnector.connection().block(TIMEOUT)).as("cached while open").isSameAs(firstConnection);

        // A frozen peer sends nothing and closes nothing: only the keepalive can notice.
        final StreamProbe frozen = StreamProbe.open(firstConnection);
        signal("STOP", first.pid);
        final Throwable lost = frozen.awaitError();
        assertThat(lost).isInstanceOf(ConnectionLostException.class).hasMessageContaining("keepalive");
        assertThat(frozen.millisFromLastItemToError()).as("detected after the last frame, ms")
            .isLessThan(KEEPALIVE_TIMEOUT_MS + KEEPALIVE_INTERVAL_MS + SLACK_MS);
        first.process.destroyForcibly();
        assertThat(first.process.waitFor(TestTime.millis(30, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)).isTrue();

        // The next subscription reconnects, retrying with back-off until a new process listens on the same port.
        final CompletableFuture<Child> second = CompletableFuture.supplyAsync(() -> startServerUnchecked(port));
        assertThat(pidOf(reconnector)).as("answered by the new process").isEqualTo(second.get(TestTime.millis(60, TimeUnit.SECONDS), TimeUnit.MILLISECONDS).pid);
        assertThat(reconnector.connections()).isEqualTo(2);

        // SIGKILL of a running peer: its kernel closes the socket, the stream ends at once.
        final Connection secondConnection = reconnector.connection().block(TIMEOUT);
        assertThat(secondConnection).isNotSameAs(firstConnection);
        final StreamProbe killed = StreamProbe.open(secondConnection);
        second.get().process.destroyForcibly();
        assertThat(killed.awaitError()).isInstanceOfAny(ConnectionClosedException.class, ConnectionLostException.class);
        assertThat(killed.millisFromLastItemToError()).isLessThan(KEEPALIVE_TIMEOUT_MS + KEEPALIVE_INTERVAL_MS + SLACK_MS);

        final Child third = startServer(port);
        assertThat(pidOf(reconnector)).isEqualTo(third.pid);
        assertThat(reconnector.connections()).isEqualTo(3);
    }

    private static long pidOf(final Reconnector reconnector)
    {
        final Message reply = reconnector.connection()
            .flatMap(connection -> connection.requestResponse(Message.of("pid?")))
            .block(TestTime.seconds(60));
        assertThat(reply).isNotNull();
        return Long.parseLong(reply.dataUtf8().substring("pid:".length()));
    }

    private static void signal(final String signal, final long pid) throws IOException, InterruptedException
    {
        final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor(TestTime.millis(10, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(kill.exitValue()).as("kill -%s %d", signal, pid).isZero();
    }

    private Child startServerUnchecked(final int port)
    {
        try
        {
            return startServer(port);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private synchronized Child startServer(final int port) throws IOException, InterruptedException
    {
        final String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        final Process process = new ProcessBuilder(List.of(java,
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
            "-Xmx256m",
            "-D" + TestTime.SCALE_PROPERTY + "=" + TestTime.scale(), // the child scales its own waits alike
            "-cp", System.getProperty("java.class.path"),
            KillableServerMain.class.getName(), Integer.toString(port), "150")).redirectErrorStream(true).start();
        children.add(process);

        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
            {
                for (String line = in.readLine(); line != null; line = in.readLine())
                {
                    lines.add(line);
                }
            }
            catch (final IOException ignored)
            {
                // the child is gone
            }
        }, "child-output");
        reader.setDaemon(true);
        reader.start();

        final long deadlineNs = System.nanoTime() + TestTime.nanos(60, TimeUnit.SECONDS);
        final StringBuilder output = new StringBuilder();
        while (System.nanoTime() - deadlineNs < 0)
        {
            final String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith("READY "))
            {
                final String[] fields = line.split(" ");
                return new Child(process, Integer.parseInt(fields[1]), Long.parseLong(fields[2]));
            }
            if (line != null)
            {
                output.append(line).append('\n');
            }
        }
        throw new AssertionError("server process did not start:\n" + output);
    }

    private record Child(Process process, int port, long pid)
    {
    }

    /** An open request-stream that records when its last item and its error arrived. */
    private static final class StreamProbe
    {
        private final AtomicInteger items = new AtomicInteger();
        private final CompletableFuture<Throwable> error = new CompletableFuture<>();
        private volatile long lastItemNs;
        private volatile long errorNs;
        private Disposable subscription;

        static StreamProbe open(final Connection connection) throws Exception
        {
            final StreamProbe probe = new StreamProbe();
            probe.subscription = connection.requestStream(Message.of("ticks")).subscribe(
                message ->
                {
                    probe.lastItemNs = System.nanoTime();
                    probe.items.incrementAndGet();
                },
                failure ->
                {
                    probe.errorNs = System.nanoTime();
                    probe.error.complete(failure);
                },
                () -> probe.error.complete(null));
            Await.until("ticks before the fault", () -> probe.items.get() >= 3);
            assertThat(probe.items.get()).as("ticks before the fault").isGreaterThanOrEqualTo(3);
            return probe;
        }

        Throwable awaitError() throws Exception
        {
            try
            {
                final Throwable failure = error.get(TestTime.millis(30, TimeUnit.SECONDS), TimeUnit.MILLISECONDS);
                assertThat(failure).as("the stream ended with an error, not completion").isNotNull();
                return failure;
            }
            finally
            {
                subscription.dispose();
            }
        }

        long millisFromLastItemToError()
        {
            return TimeUnit.NANOSECONDS.toMillis(errorNs - lastItemNs);
        }
    }
}
