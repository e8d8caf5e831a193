package io.rivulet.transport.rdma;

import io.rivulet.Rivulet;
import io.rivulet.counters.CounterTypes;
import io.rivulet.counters.NodeDirectory;
import io.rivulet.counters.NodeFile;
import io.rivulet.tck.Await;
import io.rivulet.tck.TestTime;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Proof, after a topic suite's traffic, that its topics went through a multicast group rather than per path (the
 * suite's own checks, every message once and in order, pass either way). Each node the suite launches is given a name
 * and a node file in a directory of the test's own; afterwards, while the nodes are still open, the first node (the
 * publisher: every test of {@code TopicFanOutSuite} launches it first) must have sent stream bytes to a group
 * ({@link CounterTypes#MULTICAST_DATAGRAMS_SENT}, {@link CounterTypes#MULTICAST_BYTES_SENT}: new bytes of the log, not
 * heartbeats nor repairs) and every other node (the subscribers) must have taken new stream bytes into a multicast
 * image ({@link CounterTypes#MULTICAST_BYTES_RECEIVED}: heartbeats and duplicates bring none). A node whose topics
 * fell back to its connection or to per-path datagrams has no such counters, or zeros. The counters are sampled
 * about every 100 ms, so they are awaited.
 */
final class MulticastUse
{
    private final Supplier<Path> directory;
    private final List<String> names = new ArrayList<>();

    /**
     * @param directory where the node files go, asked for when the first node is launched (a JUnit
     *                  {@code @TempDir}).
     */
    MulticastUse(final Supplier<Path> directory)
    {
        this.directory = directory;
    }

    /** @return the context with a node name of its own and its node file in the test's directory. */
    Rivulet.Context track(final Rivulet.Context context)
    {
        final String name = "multicast-node-" + names.size();
        names.add(name);
        return context.nodeName(name).countersFile(true).countersDirectory(directory.get().toString());
    }

    /**
     * Asserts that the publisher sent to a group and every subscriber node took data from an image; nothing when the
     * test launched no node (it was skipped before, e.g. without a device).
     */
    void assertGroupUsed() throws IOException
    {
        if (names.isEmpty())
        {
            return;
        }
        assertThat(names).as("a publisher node and at least one subscriber node").hasSizeGreaterThan(1);
        final List<NodeFile> files = new ArrayList<>();
        try
        {
            for (final String name : names)
            {
                files.add(NodeFile.open(NodeDirectory.fileFor(directory.get(), name)));
            }
            final NodeFile publisher = files.get(0);
            final List<NodeFile> subscribers = files.subList(1, files.size());
            Await.until(TestTime.seconds(30),
                () -> publisher.sum(CounterTypes.MULTICAST_DATAGRAMS_SENT) > 0 &&
                    publisher.sum(CounterTypes.MULTICAST_BYTES_SENT) > 0 &&
                    subscribers.stream().allMatch(file -> file.sum(CounterTypes.MULTICAST_BYTES_RECEIVED) > 0),
                () -> "the publisher sent its log to a multicast group and every subscriber node took it from an " +
                    "image: " + describe(files));
            System.out.println("multicast use: " + describe(files));
        }
        finally
        {
            for (final NodeFile file : files)
            {
                file.close();
            }
        }
    }

    private String describe(final List<NodeFile> files)
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < files.size(); i++)
        {
            final NodeFile file = files.get(i);
            text.append(i == 0 ? "publisher " : ", subscriber ").append(names.get(i))
                .append(": log ").append(file.sum(CounterTypes.TOPIC_LOG_BYTES))
                .append(" B, to groups ").append(file.sum(CounterTypes.MULTICAST_BYTES_SENT))
                .append(" B in ").append(file.sum(CounterTypes.MULTICAST_DATAGRAMS_SENT))
                .append(" datagrams (repairs ").append(file.sum(CounterTypes.MULTICAST_REPAIR_DATAGRAMS))
                .append("), into images ").append(file.sum(CounterTypes.MULTICAST_BYTES_RECEIVED))
                .append(" B from ").append(file.sum(CounterTypes.MULTICAST_DATAGRAMS_RECEIVED))
                .append(" datagrams, images ").append(file.sum(CounterTypes.MULTICAST_IMAGES));
        }
        return text.toString();
    }
}
