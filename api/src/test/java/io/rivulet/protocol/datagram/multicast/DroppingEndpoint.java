package io.rivulet.protocol.datagram.multicast;

import io.rivulet.spi.MulticastEndpoint;
import org.agrona.DirectBuffer;

/**
 * A receiving node's endpoint with a rule that drops some of what arrives: a lossy last hop that only this receiver
 * sees, or a path cut for a while. Everything else is the wrapped endpoint's.
 */
final class DroppingEndpoint implements MulticastEndpoint
{
    private final MulticastEndpoint endpoint;
    private Rule rule;

    /** Which arriving datagrams are dropped. */
    static final class Rule
    {
        private final int every;
        private boolean stopped;
        private long seen;
        private long dropped;

        private Rule(final int every)
        {
            this.every = every;
        }

        boolean drop(final DirectBuffer buffer, final int offset)
        {
            if (stopped || MulticastHeader.type(buffer, offset) != MulticastHeader.TYPE_DATA)
            {
                return false;
            }
            if (++seen % every == 0)
            {
                dropped++;
                return true;
            }
            return false;
        }

        long dropped()
        {
            return dropped;
        }

        /** Nothing is dropped from now on. */
        void stop()
        {
            stopped = true;
        }
    }

    DroppingEndpoint(final MulticastEndpoint endpoint)
    {
        this.endpoint = endpoint;
    }

    /** Drops every {@code n}th DATA datagram that reaches the node. */
    static Rule everyNth(final MulticastHarness harness, final MulticastHarness.Node node, final int n)
    {
        final Rule rule = new Rule(n);
        node.endpoint().rule = rule;
        return rule;
    }

    /** Drops every DATA datagram that reaches the node until {@link Rule#stop()}. */
    static Rule all(final MulticastHarness harness, final MulticastHarness.Node node)
    {
        return everyNth(harness, node, 1);
    }

    @Override
    public int poll(final DatagramHandler handler, final int limit)
    {
        final Rule current = rule;
        if (current == null)
        {
            return endpoint.poll(handler, limit);
        }
        return endpoint.poll((peer, buffer, offset, length) ->
        {
            if (!current.drop(buffer, offset))
            {
                handler.onDatagram(peer, buffer, offset, length);
            }
        }, limit);
    }

    @Override
    public int maxDatagramLength()
    {
        return endpoint.maxDatagramLength();
    }

    @Override
    public String localAddress()
    {
        return endpoint.localAddress();
    }

    @Override
    public int resolve(final String address)
    {
        return endpoint.resolve(address);
    }

    @Override
    public boolean send(final int peer, final DirectBuffer buffer, final int offset, final int length)
    {
        return endpoint.send(peer, buffer, offset, length);
    }

    @Override
    public int joinGroup(final String group, final boolean receive)
    {
        return endpoint.joinGroup(group, receive);
    }

    @Override
    public int groupState(final int group)
    {
        return endpoint.groupState(group);
    }

    @Override
    public String groupFailure(final int group)
    {
        return endpoint.groupFailure(group);
    }

    @Override
    public void leaveGroup(final int group)
    {
        endpoint.leaveGroup(group);
    }

    @Override
    public void close()
    {
        endpoint.close();
    }
}
