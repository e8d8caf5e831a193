package io.rivulet.transport.rdma;

import io.rivulet.Rivulet;
import io.rivulet.transport.rdma.soft.SoftFaults;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;

/**
 * What the topic suites need to run their topic data over the soft provider's UD queue pairs: a context with
 * {@code topicDatagrams} (the soft provider's own datagram timers apply), and a provider whose UD
 * datagrams are lost, duplicated and reordered (seeded), so that the suites also exercise recovery.
 */
final class UdTopics
{
    /** Seeded faults on every device's UD egress; reliable connections are not touched. */
    static final SoftFaults FAULTS = SoftFaults.seeded(20261130L).drop(0.01).duplicate(0.01).reorder(0.02);

    private UdTopics()
    {
    }

    /** @return the soft provider on the shared in-process fabric, with {@link #FAULTS} on UD. */
    static SoftVerbsProvider provider()
    {
        return RdmaTestSupport.provider().withFaults(FAULTS);
    }

    /**
     * @return the context with topic data as datagrams, on the soft provider's default timers (SoftDatagramDefaults:
     *         milliseconds, for real time on a loaded machine).
     */
    static Rivulet.Context over(final Rivulet.Context context)
    {
        return context.topicDatagrams(true);
    }

    /** The UD multicast group every topic of {@link #overMulticast} goes to. */
    static final String GROUP = "239.7.40.1";

    /**
     * @return the context with every topic published to {@link #GROUP} and taken from groups, on the provider's
     *         multicast timers.
     */
    static Rivulet.Context overMulticast(final Rivulet.Context context)
    {
        return context.topicMulticast(io.rivulet.topic.TopicGroups.parse(">=" + GROUP)).topicMulticastReceive(true);
    }
}
