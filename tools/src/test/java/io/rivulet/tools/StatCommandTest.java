package io.rivulet.tools;

import io.rivulet.tck.Await;
import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.Transports;
import io.rivulet.topic.Publication;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code rivulet stat} against live, absent, closed and killed-looking nodes. */
class StatCommandTest
{
    @TempDir
    Path directory;

    @Test
    void showsLiveCountersTopicsAndRecentErrorsWithCounts() throws Exception
    {
        try (Rivulet server = Rivulet.launch(context("stat-server"));
             Rivulet client = Rivulet.launch(context("stat-client")))
        {
            final Server bound = server.bind("127.0.0.1:0", Responder.builder()
                .requestResponse(request -> Mono.error(new IllegalStateException("refused on purpose")))
                .fireAndForget(message -> Mono.error(new UnsupportedOperationException("fnf failed on purpose")))
                .build()).block(Duration.ofSeconds(10));
            final Publication publication = server.publication("stat.ticks");
            final Connection connection = client.connect(bound.localAddress()).block(Duration.ofSeconds(10));
            connection.subscribe("stat.*").subscribe();
            Await.until("the subscriber attached", () -> publication.subscriberCount() == 1);
            final UnsafeBuffer tick = new UnsafeBuffer(new byte[8]);
            for (int i = 0; i < 5; i++)
            {
                Await.until("the tick was accepted", () -> publication.offer(tick, 0, 8) > 0);
            }
            for (int i = 0; i < 3; i++)
            {
                connection.fireAndForget(Message.of("x")).block(Duration.ofSeconds(10));
            }
            Await.until("three handler errors were counted", () -> server.counters().errors.get() == 3);

            // Topic counters are sampled on the conductor's heartbeat; wait for one that saw all five.
            Await.until("the topic counters were sampled", () ->
                CliRun.of("stat", "--once", "--dir", directory.toString(), "--node", "stat-server").out()
                    .matches("(?s).*topic stat\\.ticks published\\s+5\\b.*"));
            final CliRun run = CliRun.of("stat", "--once", "--dir", directory.toString(), "--node", "stat-server");
            assertThat(run.exitCode()).isZero();
            assertThat(run.out())
                .contains("node stat-server")
                .contains("alive")
                .containsPattern("frames received\\s+\\d+")
                .containsPattern("topic stat\\.ticks subscribers\\s+1\\b")
                .containsPattern("errors: UnsupportedOperationException\\s+3\\b")
                .contains("errors: 1 distinct")
                .containsPattern("\\s3x\\s+last .* java.lang.UnsupportedOperationException: fnf failed on purpose")
                .doesNotContain("node stat-client");

            final CliRun both = CliRun.of("stat", "--count", "2", "--interval", "50", "--dir", directory.toString());
            assertThat(both.exitCode()).isZero();
            assertThat(both.out()).contains("node stat-server").contains("node stat-client");
        }
    }

    @Test
    void saysSoWhenNoNodeRuns()
    {
        final CliRun run = CliRun.of("stat", "--once", "--dir", directory.resolve("none").toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains("no Rivulet node in " + directory.resolve("none"));
    }

    @Test
    void tellsACleanlyClosedNodeFromALiveOne() throws Exception
    {
        try (Rivulet node = Rivulet.launch(context("kept").deleteCountersOnClose(false)))
        {
            Await.until("the node file exists", () -> Files.exists(node.counters().nodeFile().file()));
        }
        final CliRun run = CliRun.of("stat", "--once", "--dir", directory.toString());
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("node kept").contains("CLOSED").doesNotContain("alive");
    }

    private Rivulet.Context context(final String name)
    {
        return new Rivulet.Context().transport(Transports.tcp()).nodeName(name).countersDirectory(directory.toString());
    }
}
