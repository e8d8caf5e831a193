package io.rivulet.tools;

import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.topic.Publication;
import org.agrona.concurrent.UnsafeBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code rivulet publish}: starts a node that listens, publishes one topic, waits for subscribers, then sends
 * numbered text messages at a steady interval. Subscribers connect with {@code rivulet subscribe}.
 */
@Command(name = "publish", mixinStandardHelpOptions = true,
    description = "Publish numbered text messages on a topic, for subscribers that connect to this node.")
final class PublishCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    NodeOptions node;

    @Option(names = "--bind", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:7071",
        description = "where subscribers connect (default ${DEFAULT-VALUE}; port 0 picks one)")
    String bind;

    @Option(names = "--topic", paramLabel = "NAME", defaultValue = "rivulet.demo",
        description = "the topic (default ${DEFAULT-VALUE})")
    String topic;

    @Option(names = "--count", paramLabel = "N", defaultValue = "100",
        description = "messages to publish (default ${DEFAULT-VALUE})")
    long count;

    @Option(names = "--interval", paramLabel = "MS", defaultValue = "100",
        description = "milliseconds between messages (default ${DEFAULT-VALUE})")
    long intervalMs;

    @Option(names = "--text", paramLabel = "TEXT", defaultValue = "message",
        description = "message text; the sequence number is appended (default ${DEFAULT-VALUE})")
    String text;

    @Option(names = "--subscribers", paramLabel = "N", defaultValue = "1",
        description = "subscribers to wait for before publishing (default ${DEFAULT-VALUE})")
    int subscribers;

    @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "60",
        description = "longest wait for subscribers and for back-pressure to clear (default ${DEFAULT-VALUE})")
    long waitSeconds;

    @Option(names = "--linger", paramLabel = "MS", defaultValue = "1000",
        description = "milliseconds to stay up after the last message, so subscribers receive it (default ${DEFAULT-VALUE})")
    long lingerMs;

    @Override
    public Integer call() throws InterruptedException
    {
        final PrintWriter out = spec.commandLine().getOut();
        try (Rivulet rivulet = Rivulet.launch(node.context()))
        {
            final Server server = rivulet.bind(bind, Responder.none()).block(Duration.ofSeconds(10));
            final Publication publication = rivulet.publication(topic);
            out.println("publish: node " + rivulet.context().nodeName() + " publishing " + topic + " on " +
                server.localAddress() + "; waiting for " + subscribers + " subscriber(s)");
            out.flush();
            final long waitDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(waitSeconds);
            while (publication.subscriberCount() < subscribers)
            {
                if (System.nanoTime() - waitDeadline > 0)
                {
                    out.println("publish: only " + publication.subscriberCount() + " of " + subscribers +
                        " subscriber(s) after " + waitSeconds + " s");
                    return 1;
                }
                TimeUnit.MILLISECONDS.sleep(10);
            }
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[publication.maxMessageLength()]);
            for (long i = 1; i <= count; i++)
            {
                final byte[] bytes = (text + " " + i).getBytes(StandardCharsets.UTF_8);
                buffer.putBytes(0, bytes);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(waitSeconds);
                long result;
                while ((result = publication.offer(buffer, 0, bytes.length)) == Publication.BACK_PRESSURED)
                {
                    if (System.nanoTime() - deadline > 0)
                    {
                        out.println("publish: back-pressured for " + waitSeconds + " s at message " + i);
                        return 1;
                    }
                    TimeUnit.MILLISECONDS.sleep(1);
                }
                if (result < 0)
                {
                    out.println("publish: offer failed with " + result + " at message " + i);
                    return 1;
                }
                if (intervalMs > 0 && i < count)
                {
                    TimeUnit.MILLISECONDS.sleep(intervalMs);
                }
            }
            out.println("publish: published " + count + " message(s) on " + topic);
            out.flush();
            TimeUnit.MILLISECONDS.sleep(lingerMs);
            publication.close();
            return 0;
        }
    }
}
