package io.rivulet.transport.udp;

import io.rivulet.protocol.datagram.multicast.MulticastHeader;
import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.spi.ReadinessWatch;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;
import org.agrona.collections.LongHashSet;

import java.util.Random;

/**
 * A UDP multicast endpoint that drops a share of the datagrams it receives and of those it sends, each by its own
 * seeded {@link Random} (so two of them lose independently), and counts what passes by multicast type: DATA sent to a
 * group or to one peer, first sends apart from repairs ({@link MulticastHeader#FLAG_RETRANSMIT}) and heartbeats, NAKs,
 * status messages and LOST. For each session it also checks that the first sends to a group cover the stream's bytes
 * once, each starting where the one before ended: the proof that the data went to the group once, not per receiver.
 *
 * <p>Threading: one thread sends and polls (the endpoint's); counters are read by the test once the nodes are quiet
 * (or only for messages, where a stale value does no harm).
 */
final class LossyMulticastEndpoint implements MulticastEndpoint
{
    private final UdpEndpoint endpoint;
    private final double loss;
    private final Random random;
    private final IntHashSet groups = new IntHashSet();
    private final Int2ObjectHashMap<long[]> nextPositionBySession = new Int2ObjectHashMap<>();
    private final Dropping dropping = new Dropping();
    /** Positions of first sends dropped here, to count the distinct datagrams the group lost. */
    private final LongHashSet droppedPositions = new LongHashSet();

    volatile long firstDataToGroup;
    volatile long firstDataBytesToGroup;
    volatile long repairsToGroup;
    volatile long repairsToPeer;
    volatile long firstDataToPeer;
    volatile long heartbeatsSent;
    volatile long naksSent;
    volatile long statusSent;
    volatile long lostSent;
    volatile long sendsDropped;
    volatile long naksDropped;
    volatile long statusDropped;
    /** First sends to a group that did not start where the session's previous one ended. */
    volatile long discontiguousSends;

    volatile long dataReceived;
    volatile long dataBytesReceived;
    volatile long repairBytesReceived;
    volatile long repairsReceived;
    volatile long dataDropped;
    volatile long repairsDropped;
    volatile long controlReceived;
    volatile long controlDropped;

    /**
     * @param endpoint what carries the datagrams.
     * @param loss     the share of datagrams dropped each way, 0 to 1.
     * @param seed     of this endpoint's losses.
     */
    LossyMulticastEndpoint(final UdpEndpoint endpoint, final double loss, final long seed)
    {
        this.endpoint = endpoint;
        this.loss = loss;
        this.random = new Random(seed);
    }

    UdpEndpoint udp()
    {
        return endpoint;
    }

    @Override
    public int joinGroup(final String group, final boolean receive)
    {
        final int handle = endpoint.joinGroup(group, receive);
        groups.add(handle);
        return handle;
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
    public int resolve(final String address, final String remoteHost)
    {
        return endpoint.resolve(address, remoteHost);
    }

    @Override
    public boolean send(final int peer, final DirectBuffer buffer, final int offset, final int length)
    {
        final int type = length >= MulticastHeader.SESSION_OFFSET ? MulticastHeader.type(buffer, offset) : 0;
        if (loss > 0 && random.nextDouble() < loss)
        {
            sendsDropped++;
            if (type == MulticastHeader.TYPE_NAK)
            {
                naksDropped++;
            }
            else if (type == MulticastHeader.TYPE_STATUS)
            {
                statusDropped++;
            }
            return true; // lost on the wire, as far as the sender can tell
        }
        if (!endpoint.send(peer, buffer, offset, length))
        {
            return false;
        }
        countSent(type, peer, buffer, offset);
        return true;
    }

    private void countSent(final int type, final int peer, final DirectBuffer buffer, final int offset)
    {
        switch (type)
        {
            case MulticastHeader.TYPE_DATA ->
            {
                final int dataLength = MulticastHeader.dataLength(buffer, offset);
                final boolean repair = (MulticastHeader.flags(buffer, offset) & MulticastHeader.FLAG_RETRANSMIT) != 0;
                final boolean toGroup = groups.contains(peer);
                if (dataLength == 0 && !repair)
                {
                    heartbeatsSent++;
                }
                else if (repair)
                {
                    if (toGroup)
                    {
                        repairsToGroup++;
                    }
                    else
                    {
                        repairsToPeer++;
                    }
                }
                else if (toGroup)
                {
                    firstDataToGroup++;
                    firstDataBytesToGroup += dataLength;
                    checkContiguous(buffer, offset, dataLength);
                }
                else
                {
                    firstDataToPeer++;
                }
            }
            case MulticastHeader.TYPE_NAK -> naksSent++;
            case MulticastHeader.TYPE_STATUS -> statusSent++;
            case MulticastHeader.TYPE_LOST -> lostSent++;
            default ->
            {
                // not a multicast datagram: nothing to count
            }
        }
    }

    private void checkContiguous(final DirectBuffer buffer, final int offset, final int dataLength)
    {
        final int session = MulticastHeader.sessionId(buffer, offset);
        final long position = MulticastHeader.position(buffer, offset);
        final long[] next = nextPositionBySession.get(session);
        if (null == next)
        {
            nextPositionBySession.put(session, new long[]{position + dataLength});
            return;
        }
        if (next[0] != position)
        {
            discontiguousSends++;
        }
        next[0] = position + dataLength;
    }

    @Override
    public int poll(final DatagramHandler handler, final int limit)
    {
        dropping.handler = handler;
        return endpoint.poll(dropping, limit);
    }

    /** As the real endpoint: its sockets wake a sleeping engine; a datagram it then drops woke it for nothing. */
    @Override
    public boolean wakeWhenReadable(final ReadinessWatch watch)
    {
        return endpoint.wakeWhenReadable(watch);
    }

    @Override
    public long sendsPosted()
    {
        return endpoint.sendsPosted();
    }

    @Override
    public long sendsCompleted()
    {
        return endpoint.sendsCompleted();
    }

    @Override
    public void close()
    {
        endpoint.close();
    }

    /** @return positions of the first sends dropped here; read once the endpoint's thread is quiet. */
    LongHashSet droppedPositions()
    {
        return droppedPositions;
    }

    /** @return datagrams lost on receipt, of every type. */
    long receivesDropped()
    {
        return dataDropped + repairsDropped + controlDropped;
    }

    @Override
    public String toString()
    {
        return "LossyMulticastEndpoint{" + endpoint.localAddress() + ", loss " + loss + ", sent: data " +
            firstDataToGroup + " to groups (" + firstDataBytesToGroup + " bytes) and " + firstDataToPeer +
            " to peers, repairs " + repairsToGroup + "+" + repairsToPeer + ", heartbeats " + heartbeatsSent +
            ", naks " + naksSent + ", status " + statusSent + ", lost " + lostSent + ", dropped " + sendsDropped +
            " (naks " + naksDropped + ", status " + statusDropped + "); received: data " + dataReceived + ", repairs " +
            repairsReceived + ", control " + controlReceived + ", dropped data " + dataDropped + ", repairs " +
            repairsDropped + ", control " + controlDropped + "}";
    }

    /** Drops on receipt, then hands the rest on; one instance, so that a poll allocates nothing. */
    private final class Dropping implements DatagramHandler
    {
        DatagramHandler handler;

        @Override
        public void onDatagram(final int peer, final DirectBuffer buffer, final int offset, final int length)
        {
            final int type = length >= MulticastHeader.SESSION_OFFSET ? MulticastHeader.type(buffer, offset) : 0;
            final boolean data = type == MulticastHeader.TYPE_DATA;
            final boolean repair = data &&
                (MulticastHeader.flags(buffer, offset) & MulticastHeader.FLAG_RETRANSMIT) != 0;
            if (loss > 0 && random.nextDouble() < loss)
            {
                if (repair)
                {
                    repairsDropped++;
                }
                else if (data)
                {
                    dataDropped++;
                    if (MulticastHeader.dataLength(buffer, offset) > 0) // not a heartbeat
                    {
                        droppedPositions.add(MulticastHeader.position(buffer, offset));
                    }
                }
                else
                {
                    controlDropped++;
                }
                return;
            }
            if (repair)
            {
                repairsReceived++;
                repairBytesReceived += length - MulticastHeader.DATA_HEADER_LENGTH;
            }
            else if (data)
            {
                dataReceived++;
                dataBytesReceived += length - MulticastHeader.DATA_HEADER_LENGTH;
            }
            else
            {
                controlReceived++;
            }
            handler.onDatagram(peer, buffer, offset, length);
        }
    }
}
