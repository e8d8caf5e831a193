package io.rivulet.transport.rdma;

import io.rivulet.Rivulet;
import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicFanOutSuite;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The topic fan-out suite with every topic sent to a UD multicast group of the soft provider's fabric (every node
 * publishes to it and takes from it), with seeded loss, duplication and reordering on each device; subscribing,
 * joins and snapshots stay on the RC connections. After each test the nodes' counters must show that the group carried
 * the topics ({@link MulticastUse}).
 */
class RdmaMulticastTopicFanOutTest extends TopicFanOutSuite
{
    @TempDir
    Path counters;

    private final MulticastUse multicast = new MulticastUse(() -> counters);

    /** Runs before the suite's own {@code @AfterEach} closes the nodes. */
    @AfterEach
    void assertTheGroupCarriedTheTopics() throws IOException
    {
        multicast.assertGroupUsed();
    }

    @Override
    protected Transport transport()
    {
        return new RdmaTransport(UdTopics.provider());
    }

    @Override
    protected Rivulet.Context context()
    {
        return multicast.track(UdTopics.overMulticast(super.context()));
    }
}
