package io.rivulet.tools;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.Transports;
import io.rivulet.counters.HistogramSnapshot;
import io.rivulet.tck.Await;
import io.rivulet.topic.Publication;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code rivulet stat} prints a node's request-response round-trip percentiles from its histogram, and per-topic and
 * per-connection rates measured between two samples, with nodes in this JVM writing their node files to a temporary
 * directory.
 */
class StatLatencyAndRatesTest
{
    @TempDir
    Path directory;

    @Test
    void printsRoundTripPercentilesOfTheRequesterAndTopicAndConnectionRates() throws Exception
    {
        try (Rivulet server = Rivulet.launch(context("rates-server"));
             Rivulet client = Rivulet.launch(context("rates-client")))
        {
            final Server bound = server.bind("127.0.0.1:0", Responder.builder()
                .requestResponse(request -> Mono.just(Message.of("re: " + request.dataUtf8())))
                .build()).block(Duration.ofSeconds(10));
            final Connection connection = client.connect(bound.localAddress()).block(Duration.ofSeconds(10));
            for (int i = 0; i < 20; i++)
            {
                assertThat(connection.requestResponse(Message.of("q" + i)).block(Duration.ofSeconds(10)).dataUtf8())
                    .isEqualTo("re: q" + i);
            }
            assertThat(client.counters().requestLatency.snapshot().count()).as("recorded by the requester")
                .isEqualTo(20);
            assertThat(server.counters().requestLatency.snapshot().count()).as("the responder records none").isZero();

            final CliRun quiet = CliRun.of("stat", "--once", "--interval", "50", "--dir", directory.toString(),
                "--node", "rates-client");
            assertThat(quiet.exitCode()).isZero();
            final Matcher percentiles = Pattern.compile("request-response round trip \\(requester: request sent to " +
                "reply received\\): 20 replies\\R\\s+p50 <= (\\S+ \\S+)\\s+p90 <= \\S+ \\S+\\s+p99 <= \\S+ \\S+\\s+" +
                "p99\\.9 <= \\S+ \\S+\\s+max (\\S+ \\S+)\\R\\s+\\(percentiles are bucket upper bounds, at most 12.5% above")
                .matcher(quiet.out());
            assertThat(percentiles.find()).as(quiet.out()).isTrue();
            final HistogramSnapshot recorded = client.counters().requestLatency.snapshot();
            assertThat(percentiles.group(1)).as("read from the node file as recorded")
                .isEqualTo(StatReport.duration(recorded.percentileNs(50)));
            assertThat(percentiles.group(2)).isEqualTo(StatReport.duration(recorded.maxNs()));
            assertThat(quiet.out()).as("the client's connection, with its rates")
                .containsPattern("connection\\s+msgs in/s\\s+bytes in/s\\s+msgs out/s\\s+bytes out/s")
                .containsPattern("\\d+ " + Pattern.quote(bound.localAddress()) + "(\\s+[\\d,]+){4}\\n");
            assertThat(CliRun.of("stat", "--once", "--interval", "50", "--dir", directory.toString(), "--node",
                "rates-server").out()).contains("request-response round trip (requester: request sent to reply " +
                "received): no replies yet");

            final Publication publication = server.publication("rates.ticks");
            connection.subscribe("rates.*").subscribe(message -> { }, error -> { }); // ends with the node
            Await.until("the subscriber attached", () -> publication.subscriberCount() == 1);
            final AtomicBoolean publishing = new AtomicBoolean(true);
            final Thread publisher = new Thread(() ->
            {
                final UnsafeBuffer tick = new UnsafeBuffer(new byte[100]);
                while (publishing.get())
                {
                    publication.offer(tick, 0, tick.capacity());
                    try
                    {
                        Thread.sleep(1);
                    }
                    catch (final InterruptedException ex)
                    {
                        return;
                    }
                }
            });
            publisher.start();
            try
            {
                // Topic counters are sampled on the conductor's heartbeat (~100 ms): measure over 600 ms.
                Await.until("the topic's rates show", () ->
                {
                    final String out = CliRun.of("stat", "--once", "--interval", "600", "--dir", directory.toString(),
                        "--node", "rates-server").out();
                    return topicRow(out).find();
                });
                final CliRun run = CliRun.of("stat", "--once", "--interval", "600", "--dir", directory.toString(),
                    "--node", "rates-server");
                assertThat(run.out())
                    .containsPattern("topic \\(publisher side\\)\\s+subscribers\\s+messages/s\\s+bytes/s");
                final Matcher row = topicRow(run.out());
                assertThat(row.find()).as(run.out()).isTrue();
                final long messagesPerSecond = Long.parseLong(row.group(1).replace(",", ""));
                final long bytesPerSecond = Long.parseLong(row.group(2).replace(",", ""));
                assertThat(bytesPerSecond).as("each message is 100 bytes and its headers")
                    .isGreaterThanOrEqualTo(messagesPerSecond * 100);
            }
            finally
            {
                publishing.set(false);
                publisher.join(10_000);
            }
        }
    }

    @Test
    void theFirstSampleOfTheWatchHasNoRatesYet() throws Exception
    {
        try (Rivulet node = Rivulet.launch(context("watched")))
        {
            node.publication("watched.topic");
            Await.until("the topic has counters", () -> CliRun.of("stat", "--count", "1", "--dir",
                directory.toString()).out().contains("topic watched.topic published"));
            final CliRun run = CliRun.of("stat", "--count", "1", "--dir", directory.toString());
            assertThat(run.out()).containsPattern("watched\\.topic\\s+0\\s+-\\s+-");
        }
    }

    private static Matcher topicRow(final String out)
    {
        return Pattern.compile("\\n  rates\\.ticks\\s+1\\s+([1-9][\\d,]*)\\s+([1-9][\\d,]*)\\n").matcher(out);
    }

    private Rivulet.Context context(final String name)
    {
        return new Rivulet.Context().transport(Transports.tcp()).nodeName(name).countersDirectory(directory.toString());
    }
}
