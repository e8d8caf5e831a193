package io.rivulet.bench.rivulet;

import io.rivulet.Connection;
import io.rivulet.Rivulet;
import io.rivulet.bench.harness.FanOutReceiver;
import io.rivulet.bench.harness.Line;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.ScaleFanOut;
import io.rivulet.topic.TopicHandler;
import io.rivulet.topic.TopicItem;
import io.rivulet.topic.TopicMessage;
import org.agrona.DirectBuffer;
import reactor.core.publisher.Sinks;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Rivulet's subscribers in the fan-out-at-scale benchmark ({@link ScaleFanOut}): one node, {@code N} connections to
 * the publisher, each subscribing to {@value FanOutPublisher#TOPIC} with a {@link TopicHandler} (items in place, as
 * Aeron's {@code FragmentHandler}), every one of which must get every message in order. With
 * {@code rivulet.topicMulticastReceive=true} each connection's subscription takes the stream from the group (an image
 * of its own on the node's one receiving endpoint, so the publisher hears N receivers); else per path or over the
 * connection, as the publisher's node says.
 *
 * <p>Arguments: the publisher's port, the number of subscribers.
 */
public final class ScaleFanOutSubscribers
{
    private ScaleFanOutSubscribers()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String address = "127.0.0.1:" + args[0];
        final int subscribers = Integer.parseInt(args[1]);
        try (Rivulet node = Rivulet.launch(new Rivulet.Context().nodeName("fanout-subscribers")))
        {
            final List<Connection> connections = new ArrayList<>();
            final List<FanOutReceiver> receivers = new ArrayList<>();
            for (int i = 0; i < subscribers; i++)
            {
                final Connection connection = node.connect(address).block(Duration.ofSeconds(10));
                connections.add(connection);
                final FanOutReceiver receiver = new FanOutReceiver("subscriber " + i);
                receivers.add(receiver);
                subscribe(connection, receiver).block(Duration.ofSeconds(30));
            }
            Line.of(Line.READY, "subscribers", subscribers).print(System.out);
            ScaleFanOut.runSubscribers(receivers, () -> LockSupport.parkNanos(100_000));
            connections.forEach(Connection::close);
        }
    }

    /** @return completes when the subscription has joined the topic. */
    private static reactor.core.publisher.Mono<Boolean> subscribe(
        final Connection connection, final FanOutReceiver receiver)
    {
        final Sinks.One<Boolean> joined = Sinks.one();
        connection.subscribe(FanOutPublisher.TOPIC, new TopicHandler()
        {
            @Override
            public void onItem(final TopicItem item)
            {
                if (item.kind() == TopicMessage.Kind.DATA)
                {
                    final DirectBuffer data = item.data();
                    receiver.onMessage(data.getInt(Payloads.SEQ_OFFSET, ByteOrder.LITTLE_ENDIAN),
                        data.getLong(Payloads.VALUE_OFFSET, ByteOrder.LITTLE_ENDIAN), System.nanoTime());
                }
                else if (item.kind() == TopicMessage.Kind.JOINED)
                {
                    joined.tryEmitValue(true);
                }
                else
                {
                    receiver.onError("unexpected " + item);
                }
            }

            @Override
            public void onError(final Throwable error)
            {
                receiver.onError(String.valueOf(error));
                joined.tryEmitError(error);
            }
        });
        return joined.asMono();
    }
}
