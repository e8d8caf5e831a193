package io.rivulet.transport.rdma;

import io.rivulet.ApplicationErrorException;
import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.ConnectionLostException;
import io.rivulet.Message;
import io.rivulet.Rivulet;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The interaction models over the rdma transport between two processes: this JVM requests, a child
 * JVM ({@link RdmaServerMain}) serves, both on the soft provider's sockets (RC over TCP on loopback) here, and on
 * a real device in the hardware suites ({@link #providerName()}, {@link #host()}). Killing the child (SIGKILL)
 * must end the requester's streams.
 */
class RdmaTwoProcessTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

    @Test
    @ScaledTimeout(120)
    void shouldRunEveryInteractionAcrossProcesses() throws Exception
    {
        final Process child = startChild(RdmaServerMain.class, Long.toString(TestTime.millis(90, TimeUnit.SECONDS)),
            providerName(), host());
        try (Rivulet node = Rivulet.launch(RdmaServerMain.context(providerName(), host())))
        {
            final String address = awaitReady(child);
            final Connection connection = node.connect(address).block(TIMEOUT);

            StepVerifier.create(connection.requestResponse(Message.of("ping").metadata("m")))
                .assertNext(reply -> assertThat(reply.dataUtf8() + "/" + reply.metadataUtf8()).isEqualTo("ping/m"))
                .expectComplete()
                .verify(TIMEOUT);

            StepVerifier.create(connection.requestStream(Message.of("1000")).map(Message::dataUtf8), 0)
                .thenRequest(10)
                .expectNextCount(10)
                .thenRequest(990)
                .expectNextCount(990)
                .expectComplete()
                .verify(TIMEOUT);

            StepVerifier.create(connection.requestChannel(Flux.just("a", "b", "c").map(Message::of))
                    .map(Message::dataUtf8))
                .expectNext("A", "B", "C")
                .expectComplete()
                .verify(TIMEOUT);

            for (int i = 0; i < 100; i++)
            {
                connection.fireAndForget(Message.of("event " + i)).block(TIMEOUT);
            }
            final String count = Await.value(TestTime.seconds(30), () ->
            {
                final String counted = connection.requestResponse(Message.of("count")).block(TIMEOUT).dataUtf8();
                return "100".equals(counted) ? counted : null;
            }, () -> "the other process counted every fire-and-forget");
            assertThat(count).isEqualTo("100");

            StepVerifier.create(connection.requestResponse(Message.of("fail")))
                .expectErrorSatisfies(error ->
                {
                    assertThat(error).isInstanceOf(ApplicationErrorException.class);
                    assertThat(error.getMessage()).startsWith("failed in process ")
                        .isNotEqualTo("failed in process " + ProcessHandle.current().pid());
                })
                .verify(TIMEOUT);

            final byte[] big = new byte[8 * 1024 * 1024];
            new SplittableRandom(3).nextBytes(big);
            final Message echoed = connection.requestResponse(Message.of(big)).block(TestTime.seconds(60));
            assertThat(java.util.Arrays.equals(echoed.dataBytes(), big)).isTrue();

            // The serving process is killed (SIGKILL): an open stream ends with an error, not a hang.
            StepVerifier.create(connection.requestChannel(Flux.concat(Flux.just(Message.of("x")), Flux.never()))
                    .map(Message::dataUtf8))
                .expectNext("X")
                .then(child::destroyForcibly)
                .expectErrorSatisfies(error -> assertThat(error).isInstanceOfAny(
                    ConnectionLostException.class, ConnectionClosedException.class))
                .verify(TIMEOUT);
        }
        finally
        {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** @return the provider both processes use, by {@link RdmaServerMain#provider} name. */
    protected String providerName()
    {
        return RdmaServerMain.SOFT_SOCKETS;
    }

    /** @return the address both processes use on the fabric. */
    protected String host()
    {
        return "127.0.0.1";
    }

    /** Starts a test main in a child JVM on this JVM's class path, with the flags Agrona and DiSNI need. */
    static Process startChild(final Class<?> main, final String... args) throws IOException
    {
        final String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        final List<String> command = new java.util.ArrayList<>(List.of(java,
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
            "-Xmx256m",
            "-D" + TestTime.SCALE_PROPERTY + "=" + TestTime.scale(),
            "-cp", System.getProperty("java.class.path"),
            main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** @return what the child printed after {@code READY }, waiting at most 60 s (scaled); fails with its output otherwise. */
    static String awaitReady(final Process child) throws Exception
    {
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader in = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = in.readLine()) != null)
                {
                    lines.add(line);
                }
            }
            catch (final IOException ignore)
            {
                // the child went away
            }
        }, "rdma-server-output");
        reader.setDaemon(true);
        reader.start();
        final long deadline = System.nanoTime() + TestTime.nanos(60, TimeUnit.SECONDS);
        final StringBuilder seen = new StringBuilder();
        while (System.nanoTime() - deadline < 0)
        {
            final String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null)
            {
                if (line.startsWith("READY "))
                {
                    return line.substring("READY ".length()).trim();
                }
                seen.append(line).append('\n');
            }
            else if (!child.isAlive())
            {
                break;
            }
        }
        throw new AssertionError("server process did not get ready; it printed:\n" + seen);
    }
}
