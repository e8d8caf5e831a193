package io.rivulet.transport.udp;

import io.rivulet.Rivulet;

/**
 * What the topic suites need to run their topic data as reliable datagrams over UDP on 127.0.0.1 beside TCP
 * connections: {@code topicDatagrams} with {@code rivulet.datagrams=udp}, every endpoint bound to loopback (tests never
 * bind the host's other interfaces), on UDP's own default timers.
 */
final class UdpTopics
{
    private UdpTopics()
    {
    }

    /** @return UDP datagrams bound to 127.0.0.1, any port. */
    static UdpDatagrams datagrams()
    {
        return new UdpDatagrams(new UdpSettings().bindAddress("127.0.0.1:0"));
    }

    /** @return the context with topic data as UDP datagrams. */
    static Rivulet.Context over(final Rivulet.Context context)
    {
        return context.topicDatagrams(true).datagrams(datagrams());
    }
}
