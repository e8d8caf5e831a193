package io.rivulet.transport.rdma.disni;

import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicMessage;
import io.rivulet.topic.TopicOptions;
import io.rivulet.transport.rdma.RdmaTransport;
import io.rivulet.transport.rdma.jni.NativeLibraryTestSupport;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.BaseSubscriber;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Topics over a real UD queue pair: two nodes on the DiSNI provider with {@code rivulet.topicDatagrams}, the
 * publisher's data as reliable datagrams through the JNI extension, cut to the port's active MTU. Needs libdisni,
 * librivulet-verbs and an RDMA device; skipped with the reason otherwise (see {@link DisniHardwareTest} for how to
 * run the hardware group, with {@code -Drivulet.rdma.localAddress=<ip of the RDMA interface>}).
 */
@Tag("rdma-hardware")
@ScaledTimeout(120)
class DisniUdTopicHardwareTest
{
    private static final int COUNT = 100_000;

    private final List<Rivulet> nodes = new ArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    @AfterEach
    void close()
    {
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    @Test
    void shouldDeliverEveryMessageOnceInOrderOverAUdQueuePair() throws Exception
    {
        final DisniVerbsProvider provider = new DisniVerbsProvider();
        final var availability = provider.availability();
        assumeTrue(availability.available(), () -> "disni unavailable: " + availability.reason());
        NativeLibraryTestSupport.requireLibrary();
        final InetAddress address = DisniVerbsProvider.rdmaInterfaceAddress().orElse(null);
        assumeTrue(address != null, "no IPv4 address of an RDMA interface found");

        final Rivulet publisherNode = launch(provider);
        final Rivulet subscriberNode = launch(provider);
        final String bound = publisherNode.bind(address.getHostAddress() + ":0", Responder.none()).block().localAddress();
        final Publication publication = publisherNode.publication("md.hw", TopicOptions.block());
        final Connection connection = subscriberNode.connect(bound).block();
        final List<String> problems = new CopyOnWriteArrayList<>();
        final long[] last = new long[1];
        connection.subscribe("md.hw").subscribe(new BaseSubscriber<TopicMessage>()
        {
            @Override
            protected void hookOnNext(final TopicMessage item)
            {
                if (item.kind() == TopicMessage.Kind.DATA)
                {
                    if (item.sequence() != last[0] + 1 || item.data().getInt(0) != (int)item.sequence())
                    {
                        problems.add("got " + item.sequence() + " after " + last[0]);
                    }
                    last[0] = item.sequence();
                }
            }
        });
        Await.until("subscribed", () -> publication.subscriberCount() == 1);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[10_000]);
        for (int sequence = 1; sequence <= COUNT; sequence++)
        {
            final int length = sequence % 101 == 0 ? 9_000 : 64; // some longer than any UD MTU
            message.putInt(0, sequence);
            final int current = sequence;
            Await.until("offer", () -> publication.offer(message, 0, length) == current);
        }
        Await.until("every message delivered", () -> last[0] == COUNT || !problems.isEmpty());
        assertThat(problems).isEmpty();
        assertThat(errors).isEmpty();
    }

    private Rivulet launch(final DisniVerbsProvider provider)
    {
        final Rivulet node = Rivulet.launch(new Rivulet.Context()
            .transport(new RdmaTransport(provider))
            .topicDatagrams(true)
            .countersFile(false)
            .errorHandler(errors::add));
        nodes.add(node);
        return node;
    }
}
