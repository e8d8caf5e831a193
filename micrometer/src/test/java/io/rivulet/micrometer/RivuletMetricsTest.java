package io.rivulet.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.Transports;
import io.rivulet.tck.Await;
import io.rivulet.topic.Publication;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The binder registers the node's counters as meters, reads live values, and follows connections and topics: by
 * itself over a node of this process, with {@code refresh()} over a reader it cannot follow.
 */
class RivuletMetricsTest
{
    private static final int REQUESTS = 30;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void registersAndReadsTheNodesCountersWithTags() throws Exception
    {
        try (Rivulet server = Rivulet.launch(context("metrics-server"));
             Rivulet client = Rivulet.launch(context("metrics-client")))
        {
            final Server bound = server.bind("127.0.0.1:0", Responder.builder().requestResponse(Mono::just).build())
                .block(Duration.ofSeconds(10));
            final Publication publication = server.publication("metrics.ticks");
            final Connection connection = client.connect(bound.localAddress()).block(Duration.ofSeconds(10));
            final Disposable subscription = connection.subscribe("metrics.ticks").subscribe();
            for (int i = 0; i < REQUESTS; i++)
            {
                connection.requestResponse(Message.of("m" + i)).block(Duration.ofSeconds(10));
            }
            Await.until(TIMEOUT, () -> publication.subscriberCount() == 1, () -> "the subscriber attached");

            final SimpleMeterRegistry registry = new SimpleMeterRegistry();
            final RivuletMetrics metrics = RivuletMetrics.of(server).remoteAddressTags(true);
            metrics.bindTo(registry);

            final FunctionCounter messagesIn = registry.get("rivulet.connection.messages.in")
                .tag("node", "metrics-server").functionCounter();
            assertThat(messagesIn.count()).isEqualTo(REQUESTS);
            assertThat(messagesIn.getId().getTag("connection")).isNotBlank();
            assertThat(messagesIn.getId().getTag("remote")).startsWith("127.0.0.1:").isNotEqualTo(bound.localAddress());
            assertThat(registry.get("rivulet.frames.received").functionCounter().count())
                .isGreaterThanOrEqualTo(REQUESTS);
            assertThat(registry.get("rivulet.connections.opened").functionCounter().count()).isEqualTo(1);

            // Topic counters appear once the conductor has sampled the new publication.
            Await.until(TIMEOUT, () -> metrics.refresh() > 0 && registry.find("rivulet.topic.subscribers")
                .tag("topic", "metrics.ticks").gauge() != null
                && registry.get("rivulet.topic.subscribers").gauge().value() == 1,
                () -> "the topic subscriber gauge sampled");
            final Gauge subscribers = registry.get("rivulet.topic.subscribers").tag("topic", "metrics.ticks").gauge();
            assertThat(subscribers.value()).isEqualTo(1);

            // More traffic shows without re-binding.
            connection.requestResponse(Message.of("one more")).block(Duration.ofSeconds(10));
            Await.until(TIMEOUT, () -> messagesIn.count() == REQUESTS + 1, () -> "the extra request counted");

            // A closed connection's meters go away on refresh; the node totals stay.
            subscription.dispose();
            connection.close();
            Await.until(TIMEOUT, () -> server.counters().connectionsClosed.get() == 1, () -> "the connection closed");
            Await.until(TIMEOUT, () ->
            {
                metrics.refresh();
                return registry.find("rivulet.connection.messages.in").functionCounter() == null;
            }, () -> "the closed connection's meters removed");
            assertThat(registry.get("rivulet.connections.closed").functionCounter().count()).isEqualTo(1);
        }
    }

    @Test
    void followsConnectionsOpenedAndClosedAfterBindingWithoutRefresh() throws Exception
    {
        try (Rivulet server = Rivulet.launch(context("follow-server"));
             Rivulet client = Rivulet.launch(context("follow-client")))
        {
            final SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (RivuletMetrics metrics = RivuletMetrics.of(server))
            {
                metrics.bindTo(registry);
                assertThat(registry.find("rivulet.connection.messages.in").functionCounter()).isNull();

                final Server bound = server.bind("127.0.0.1:0", Responder.builder().requestResponse(Mono::just)
                    .build()).block(Duration.ofSeconds(10));
                final Connection connection = client.connect(bound.localAddress()).block(Duration.ofSeconds(10));
                connection.requestResponse(Message.of("hello")).block(Duration.ofSeconds(10));

                // The connection's meters are there, counting, with no refresh(); remote addresses untagged.
                Await.until(TIMEOUT, () -> registry.find("rivulet.connection.messages.in").functionCounter() != null &&
                    registry.get("rivulet.connection.messages.in").functionCounter().count() == 1,
                    () -> "the new connection's meters registered and counting");
                final FunctionCounter messagesIn = registry.get("rivulet.connection.messages.in").functionCounter();
                assertThat(messagesIn.getId().getTag("connection")).isNotBlank();
                assertThat(messagesIn.getId().getTag("remote")).isNull();

                connection.close();
                Await.until(TIMEOUT, () -> registry.find("rivulet.connection.messages.in").functionCounter() == null,
                    () -> "the closed connection's meters removed");
                assertThat(registry.get("rivulet.connections.closed").functionCounter().count()).isEqualTo(1);
            }
        }
    }

    @Test
    void followsTopicsPublishedAndClosedAfterBindingWithoutRefresh() throws Exception
    {
        try (Rivulet server = Rivulet.launch(context("topic-follow-server")))
        {
            final SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (RivuletMetrics metrics = RivuletMetrics.of(server))
            {
                metrics.bindTo(registry);
                assertThat(registry.find("rivulet.topic.subscribers").gauge()).isNull();

                final Publication publication = server.publication("follow.ticks");
                Await.until(TIMEOUT, () -> registry.find("rivulet.topic.subscribers").tag("topic", "follow.ticks")
                    .gauge() != null, () -> "the new topic's meters registered");

                publication.close();
                Await.until(TIMEOUT, () -> registry.find("rivulet.topic.subscribers").gauge() == null,
                    () -> "the closed topic's meters removed");
            }
        }
    }

    @Test
    void remoteAddressTagsAreOffByDefaultAndOnWhenAsked() throws Exception
    {
        try (Rivulet server = Rivulet.launch(context("tags-server"));
             Rivulet client = Rivulet.launch(context("tags-client")))
        {
            final Server bound = server.bind("127.0.0.1:0", Responder.builder().requestResponse(Mono::just).build())
                .block(Duration.ofSeconds(10));
            final Connection connection = client.connect(bound.localAddress()).block(Duration.ofSeconds(10));
            connection.requestResponse(Message.of("hello")).block(Duration.ofSeconds(10));

            final SimpleMeterRegistry plain = new SimpleMeterRegistry();
            final SimpleMeterRegistry tagged = new SimpleMeterRegistry();
            try (RivuletMetrics byDefault = RivuletMetrics.of(server);
                 RivuletMetrics withAddresses = RivuletMetrics.of(server).remoteAddressTags(true))
            {
                byDefault.bindTo(plain);
                withAddresses.bindTo(tagged);

                assertThat(plain.get("rivulet.connection.messages.in").functionCounter().getId().getTag("remote"))
                    .isNull();
                assertThat(tagged.get("rivulet.connection.messages.in").functionCounter().getId().getTag("remote"))
                    .startsWith("127.0.0.1:");
                assertThat(plain.get("rivulet.connection.messages.in").functionCounter().count()).isEqualTo(1);
            }
            connection.close();
        }
    }

    @Test
    void aReaderItCannotFollowIsRefreshed() throws Exception
    {
        try (Rivulet server = Rivulet.launch(context("refresh-server")))
        {
            final SimpleMeterRegistry registry = new SimpleMeterRegistry();
            final RivuletMetrics metrics = new RivuletMetrics(server.counters().reader(), "refresh-server");
            metrics.bindTo(registry);
            server.publication("refresh.ticks");
            Await.until(TIMEOUT, () -> metrics.refresh() > 0 && registry.find("rivulet.topic.subscribers")
                .tag("topic", "refresh.ticks").gauge() != null, () -> "the topic's meters registered on refresh");
        }
    }

    private static Rivulet.Context context(final String name)
    {
        return new Rivulet.Context().transport(Transports.tcp()).nodeName(name).countersFile(false);
    }
}
