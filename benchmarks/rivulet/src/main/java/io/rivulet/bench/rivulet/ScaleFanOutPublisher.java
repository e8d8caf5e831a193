package io.rivulet.bench.rivulet;

import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.bench.harness.Line;
import io.rivulet.bench.harness.Pacer;
import io.rivulet.bench.harness.ReplySlot;
import io.rivulet.bench.harness.ScaleFanOut;
import io.rivulet.topic.TopicOptions;

import java.time.Duration;

/**
 * Rivulet's publisher in the fan-out-at-scale benchmark ({@link ScaleFanOut}): one node serving on 127.0.0.1, the
 * topic {@value FanOutPublisher#TOPIC} (policy BLOCK, default log), published on this process's main thread, which
 * parks {@value FanOutPublisher#PARK_NS} ns at a time while the log is full. How the topic travels is the node's
 * configuration, given as {@code rivulet.*} system properties by the coordinator: over each subscriber's TCP
 * connection (the default), per path over UDP ({@code rivulet.datagrams=udp}, {@code rivulet.topicDatagrams=true}),
 * or to a UDP multicast group ({@code rivulet.topicMulticast=bench.>=GROUP}).
 *
 * <p>Arguments: the message size in bytes.
 */
public final class ScaleFanOutPublisher
{
    private ScaleFanOutPublisher()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int size = Integer.parseInt(args[0]);
        try (Rivulet node = Rivulet.launch(new Rivulet.Context().nodeName("fanout-publisher")))
        {
            final FanOutPublisher publisher = new FanOutPublisher(
                node.publication(FanOutPublisher.TOPIC, TopicOptions.block()), ReplySlot.PARK);
            final Server server = node.bind("127.0.0.1:0", Responder.none()).block(Duration.ofSeconds(10));
            final String address = server.localAddress();
            Line.of(Line.READY, "port", address.substring(address.lastIndexOf(':') + 1)).print(System.out);
            ScaleFanOut.runPublisher((count, rate) -> publisher.run(size, count,
                Pacer.inTicks(rate, ScaleFanOut.PACING_TICK_NS)));
            publisher.close();
        }
    }
}
