package io.rivulet.tools;

import io.rivulet.Connection;
import io.rivulet.Rivulet;
import io.rivulet.topic.TopicMessage;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code rivulet subscribe}: connects to a publishing node, subscribes to a topic or pattern and prints what
 * arrives (data, snapshots, gaps, session changes) until it has the requested number of messages.
 */
@Command(name = "subscribe", mixinStandardHelpOptions = true,
    description = "Subscribe to a topic or pattern on a publishing node and print what arrives.")
final class SubscribeCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    NodeOptions node;

    @Option(names = "--connect", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:7071",
        description = "the publishing node (default ${DEFAULT-VALUE})")
    String connect;

    @Option(names = "--topic", paramLabel = "PATTERN", defaultValue = "rivulet.demo",
        description = "a topic or pattern: * matches one token, > the rest (default ${DEFAULT-VALUE})")
    String pattern;

    @Option(names = "--count", paramLabel = "N", defaultValue = "100",
        description = "data messages to receive before exiting (default ${DEFAULT-VALUE})")
    long count;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60",
        description = "longest wait for them (default ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Option(names = "--quiet", description = "print only the summary")
    boolean quiet;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final AtomicLong received = new AtomicLong();
        try (Rivulet rivulet = Rivulet.launch(node.context()))
        {
            final Connection connection = rivulet.connect(connect).block(Duration.ofSeconds(timeoutSeconds));
            out.println("subscribe: node " + rivulet.context().nodeName() + " subscribed to " + pattern + " at " +
                connection.remoteAddress());
            out.flush();
            try
            {
                connection.subscribe(pattern)
                    .doOnNext(message ->
                    {
                        if (message.hasData() && message.kind() == TopicMessage.Kind.DATA)
                        {
                            received.incrementAndGet();
                        }
                        if (!quiet)
                        {
                            out.println(describe(message));
                            out.flush();
                        }
                    })
                    .takeUntil(message -> received.get() >= count)
                    .blockLast(Duration.ofSeconds(timeoutSeconds));
            }
            catch (final RuntimeException ex)
            {
                out.println("subscribe: stopped after " + received.get() + " of " + count + " message(s): " +
                    ex.getMessage());
                return 1;
            }
            out.println("subscribe: received " + received.get() + " message(s) on " + pattern);
            return received.get() >= count ? 0 : 1;
        }
    }

    private static String describe(final TopicMessage message)
    {
        switch (message.kind())
        {
            case DATA:
            case SNAPSHOT:
                return message.topic() + " #" + message.sequence() + " " + message.dataUtf8();
            case GAP:
                return message.topic() + " gap " + message.gapFrom() + ".." + message.gapTo() + " (" +
                    message.gapReason() + ")";
            default:
                return message.topic() + " " + message.kind() + " session " + message.sessionId() + " at #" +
                    message.sequence();
        }
    }
}
