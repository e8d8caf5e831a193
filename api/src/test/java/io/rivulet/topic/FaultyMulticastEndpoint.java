package io.rivulet.topic;

import io.rivulet.protocol.datagram.multicast.MulticastHeader;
import io.rivulet.spi.MulticastEndpoint;
import org.agrona.DirectBuffer;

/**
 * A multicast endpoint with faults a test switches on: joins that fail (a fabric without multicast), and every
 * arriving DATA dropped (the group falls silent for this node while its connection lives).
 */
final class FaultyMulticastEndpoint implements MulticastEndpoint
{
    private final MulticastEndpoint endpoint;
    boolean failJoins;
    boolean dropData;
    /** Nothing this node sends gets out (its status messages and NAKs stop; the connection still works). */
    boolean dropSends;
    long dropped;

    FaultyMulticastEndpoint(final MulticastEndpoint endpoint)
    {
        this.endpoint = endpoint;
    }

    @Override
    public int joinGroup(final String group, final boolean receive)
    {
        return endpoint.joinGroup(group, receive);
    }

    @Override
    public int groupState(final int group)
    {
        return failJoins ? GROUP_FAILED : endpoint.groupState(group);
    }

    @Override
    public String groupFailure(final int group)
    {
        return failJoins ? "simulated: the fabric has no multicast" : endpoint.groupFailure(group);
    }

    @Override
    public void leaveGroup(final int group)
    {
        endpoint.leaveGroup(group);
    }

    @Override
    public int poll(final DatagramHandler handler, final int limit)
    {
        return endpoint.poll((peer, buffer, offset, length) ->
        {
            if (dropData && MulticastHeader.type(buffer, offset) == MulticastHeader.TYPE_DATA)
            {
                dropped++;
                return;
            }
            handler.onDatagram(peer, buffer, offset, length);
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
        if (dropSends)
        {
            dropped++;
            return true;
        }
        return endpoint.send(peer, buffer, offset, length);
    }

    @Override
    public void close()
    {
        endpoint.close();
    }
}
