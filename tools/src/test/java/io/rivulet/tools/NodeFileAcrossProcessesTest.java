package io.rivulet.tools;

import io.rivulet.tck.Await;
import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.Transports;
import io.rivulet.counters.CounterSnapshot;
import io.rivulet.counters.CounterTypes;
import io.rivulet.counters.NodeDirectory;
import io.rivulet.counters.NodeFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acceptance: a node exchanges messages; a separate process maps its node file read-only ({@code rivulet stat
 * --once} in a child JVM) and sees the expected values; a fresh mapping in this process agrees exactly.
 */
class NodeFileAcrossProcessesTest
{
    private static final int REQUESTS = 40;
    private static final int FIRE_AND_FORGETS = 25;

    @TempDir
    Path directory;

    @Test
    void anotherProcessReadsTheCountersOfALiveNode() throws Exception
    {
        final java.util.concurrent.atomic.AtomicInteger fnfSeen = new java.util.concurrent.atomic.AtomicInteger();
        try (Rivulet server = Rivulet.launch(context("server"));
             Rivulet client = Rivulet.launch(context("client")))
        {
            final Server bound = server.bind("127.0.0.1:0", Responder.builder()
                .requestResponse(Mono::just)
                .fireAndForget(message -> Mono.fromRunnable(fnfSeen::incrementAndGet))
                .build()).block(Duration.ofSeconds(10));
            final Connection connection = client.connect(bound.localAddress()).block(Duration.ofSeconds(10));
            for (int i = 0; i < REQUESTS; i++)
            {
                assertThat(connection.requestResponse(Message.of("ping " + i)).block(Duration.ofSeconds(10))
                    .dataUtf8()).isEqualTo("ping " + i);
            }
            for (int i = 0; i < FIRE_AND_FORGETS; i++)
            {
                connection.fireAndForget(Message.of("fnf " + i)).block(Duration.ofSeconds(10));
            }
            Await.until("the server handled every fire-and-forget", () -> fnfSeen.get() == FIRE_AND_FORGETS);

            final Path clientFile = client.counters().nodeFile().file();
            assertThat(clientFile).isEqualTo(NodeDirectory.fileFor(directory, "client")).exists();

            // A fresh read-only mapping that shares no object with the node.
            try (NodeFile node = NodeFile.open(clientFile))
            {
                assertThat(node.nodeName()).isEqualTo("client");
                assertThat(node.isAlive(System.currentTimeMillis(), 10_000)).isTrue();
                final List<CounterSnapshot> messagesOut = node.counters(CounterTypes.CONNECTION_MESSAGES_OUT);
                assertThat(messagesOut).singleElement().satisfies(counter ->
                {
                    assertThat(counter.value()).isEqualTo(REQUESTS + FIRE_AND_FORGETS);
                    assertThat(counter.tag()).isEqualTo(bound.localAddress());
                });
                assertThat(node.sum(CounterTypes.CONNECTION_MESSAGES_IN)).as("responses").isEqualTo(REQUESTS);
                assertThat(node.sum(CounterTypes.NODE_CONNECTIONS_OPENED)).isEqualTo(1);
            }
            try (NodeFile node = NodeFile.open(server.counters().nodeFile().file()))
            {
                assertThat(node.sum(CounterTypes.CONNECTION_MESSAGES_IN)).isEqualTo(REQUESTS + FIRE_AND_FORGETS);
                assertThat(node.sum(CounterTypes.NODE_FNF_RECEIVED)).isEqualTo(FIRE_AND_FORGETS);
                assertThat(node.sum(CounterTypes.CONNECTION_MESSAGES_OUT)).as("responses").isEqualTo(REQUESTS);
            }

            // The same from another process: rivulet stat --once in a child JVM.
            final String stat = runChild("stat", "--once", "--dir", directory.toString(), "--node", "client");
            assertThat(stat).contains("node client").contains("alive");
            final long messagesOut = valueOf(stat, "conn \\d+ messages out \\(" + Pattern.quote(bound.localAddress()) +
                "\\)");
            assertThat(messagesOut).isEqualTo(REQUESTS + FIRE_AND_FORGETS);
            assertThat(valueOf(stat, "conn \\d+ messages in \\(" + Pattern.quote(bound.localAddress()) + "\\)"))
                .isEqualTo(REQUESTS);
            assertThat(stat).doesNotContain("node server");
        }
        assertThat(NodeDirectory.list(directory)).as("node files are deleted on a clean close").isEmpty();
    }

    @Test
    void aFragmentedMessageCountsOnceButEveryFrameCounts() throws Exception
    {
        final java.util.concurrent.atomic.AtomicInteger received = new java.util.concurrent.atomic.AtomicInteger();
        try (Rivulet server = Rivulet.launch(context("fragments-server").maxFrameLength(1024));
             Rivulet client = Rivulet.launch(context("fragments-client").maxFrameLength(1024)))
        {
            final Server bound = server.bind("127.0.0.1:0", Responder.builder()
                .fireAndForget(message -> Mono.fromRunnable(received::incrementAndGet)).build())
                .block(Duration.ofSeconds(10));
            final Connection connection = client.connect(bound.localAddress()).block(Duration.ofSeconds(10));
            connection.fireAndForget(Message.of(new byte[100_000])).block(Duration.ofSeconds(10));
            Await.until("the large message arrived", () -> received.get() == 1);

            try (NodeFile clientFile = NodeFile.open(client.counters().nodeFile().file());
                 NodeFile serverFile = NodeFile.open(server.counters().nodeFile().file()))
            {
                assertThat(clientFile.sum(CounterTypes.CONNECTION_MESSAGES_OUT)).isEqualTo(1);
                assertThat(serverFile.sum(CounterTypes.CONNECTION_MESSAGES_IN)).isEqualTo(1);
                assertThat(serverFile.sum(CounterTypes.CONNECTION_FRAMES_IN)).as("100,000 bytes in 1 KiB frames")
                    .isGreaterThan(100);
                assertThat(serverFile.sum(CounterTypes.CONNECTION_BYTES_IN)).isGreaterThan(100_000);
            }
        }
    }

    private Rivulet.Context context(final String name)
    {
        return new Rivulet.Context().transport(Transports.tcp()).nodeName(name)
            .countersDirectory(directory.toString());
    }

    /** @return the value column of the stat line whose label matches. */
    private static long valueOf(final String stat, final String labelRegex)
    {
        final Matcher matcher = Pattern.compile("^\\s+\\d+\\s+" + labelRegex + "\\s+([\\d,]+)", Pattern.MULTILINE)
            .matcher(stat);
        assertThat(matcher.find()).as("a line for " + labelRegex + " in%n%s", stat).isTrue();
        return Long.parseLong(matcher.group(1).replace(",", ""));
    }

    private static String runChild(final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports"))
            {
                command.add(argument);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(RivuletCli.class.getName());
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final byte[] output;
        try
        {
            output = process.getInputStream().readAllBytes();
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the child exits").isTrue();
        }
        finally
        {
            process.destroyForcibly();
        }
        final String text = new String(output, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as("exit code of %s; output:%n%s", command, text).isZero();
        return text;
    }
}
