package io.rivulet.transport.rdma.soft;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A device's UD datagram engine: lays datagrams out, sends them through the {@link FaultInjector},
 * receives them from its {@link DatagramPort} and hands them to the addressed queue pair. NIC thread
 * only.
 *
 * <p>Datagram layout (little-endian):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                         magic "RVUD"                          |  0
 *  +---------------------------------------------------------------+
 *  |                    source queue pair number                   |  4
 *  +---------------------------------------------------------------+
 *  |                 destination queue pair number                 |  8
 *  +---------------------------------------------------------------+
 *  |                             qkey                              | 12
 *  +---------------------------------------------------------------+
 *  |                     flags (1 = immediate)                     | 16
 *  +---------------------------------------------------------------+
 *  |                        immediate data                         | 20
 *  +---------------------------------------------------------------+
 *  |                        payload length                         | 24
 *  +---------------------------------------------------------------+
 *  |       multicast group number (in process), else reserved      | 28
 *  +---------------------------------------------------------------+
 *  |                 source gid (16 bytes, as in a GRH)            | 32
 *  +---------------------------------------------------------------+
 *  |                          payload ...                          | 48
 * </pre>
 *
 * <p>Multicast (in process only): a send to a group's address handle writes one copy into the inbox of every device
 * with a queue pair attached to the group ({@link SoftMulticastGroup}), the sender's own included, with the group's
 * number at offset 28 and flag 2 on the sender's own copy. The sender's faults and bottleneck do not apply to it: each
 * receiving device applies its own ({@link SoftVerbsContext#faults()}, a second {@link FaultInjector} for its group
 * ingress) to its copy, as separate paths of a real fabric lose separately, then hands it to each of its queue pairs
 * attached to the group, except the sending queue pair itself. Across processes (UDP) there are no groups: a datagram
 * to QP 0xffffff finds no queue pair and is dropped.
 *
 * <p>Receivers get a 40-byte GRH before the payload, as on hardware: version 6, payload length,
 * next header 0x1B, hop limit, source gid and destination gid (IPv4-mapped for IPv4).
 */
final class SoftDatagrams implements DatagramPort.Handler
{
    static final int MAGIC = 0x44555652;
    static final int MAGIC_OFFSET = 0;
    static final int SOURCE_QPN_OFFSET = 4;
    static final int DESTINATION_QPN_OFFSET = 8;
    static final int QKEY_OFFSET = 12;
    static final int FLAGS_OFFSET = 16;
    static final int IMM_OFFSET = 20;
    static final int PAYLOAD_LENGTH_OFFSET = 24;
    static final int GROUP_OFFSET = 28;
    static final int SOURCE_GID_OFFSET = 32;
    static final int HEADER_LENGTH = 48;
    static final int FLAG_IMM = 1;
    /** On a group copy delivered back to the sending device: its sending queue pair does not receive it. */
    static final int FLAG_OWN_DEVICE = 2;
    private static final SoftUdQueuePair[] NO_QUEUE_PAIRS = new SoftUdQueuePair[0];

    /** Bytes of Global Routing Header in front of every UD receive, as hardware writes them. */
    static final int GRH_LENGTH = 40;

    private final SoftVerbsContext context;
    private final SoftNic nic;
    private final DatagramPort port;
    private final FaultInjector faults;
    /** This device's faults on the group copies it receives: their "port" hands them to the attached queue pairs. */
    private final FaultInjector groupIngress;
    /** Queue pairs attached per fabric group number. */
    private final org.agrona.collections.Int2ObjectHashMap<SoftUdQueuePair[]> attached =
        new org.agrona.collections.Int2ObjectHashMap<>();
    private final org.agrona.collections.Int2ObjectHashMap<SoftMulticastGroup> attachedGroups =
        new org.agrona.collections.Int2ObjectHashMap<>();
    private final UnsafeBuffer scratch;
    private final UnsafeBuffer localGid = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
    private final int mtu;

    SoftDatagrams(final SoftVerbsContext context, final SoftNic nic, final DatagramPort port, final int mtu)
    {
        this.context = context;
        this.nic = nic;
        this.port = port;
        this.mtu = mtu;
        faults = new FaultInjector(context, port, HEADER_LENGTH + mtu);
        groupIngress = new FaultInjector(context, new GroupIngress(), HEADER_LENGTH + mtu);
        scratch = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BitUtil.align(HEADER_LENGTH + mtu, 64), 64));
        final byte[] gid = Addresses.gidBytes(context.localAddress());
        localGid.putBytes(0, gid);
    }

    String gid()
    {
        return port.gid();
    }

    int mtu()
    {
        return mtu;
    }

    int doWork(final long nowNs)
    {
        return port.poll(this) + faults.doWork(nowNs, nic) + groupIngress.doWork(nowNs, nic);
    }

    /** Sends the datagram a validated UD work request describes. */
    void send(final SoftUdQueuePair source, final SendQueue.Slot slot)
    {
        final int payloadLength = (int)slot.totalLength;
        scratch.putInt(MAGIC_OFFSET, MAGIC, Frames.ORDER);
        scratch.putInt(SOURCE_QPN_OFFSET, source.qpNumber(), Frames.ORDER);
        scratch.putInt(DESTINATION_QPN_OFFSET, slot.remoteQpNumber, Frames.ORDER);
        scratch.putInt(QKEY_OFFSET, slot.remoteQkey, Frames.ORDER);
        scratch.putInt(FLAGS_OFFSET, slot.hasImm() ? FLAG_IMM : 0, Frames.ORDER);
        scratch.putInt(IMM_OFFSET, slot.hasImm() ? slot.imm : 0, Frames.ORDER);
        scratch.putInt(PAYLOAD_LENGTH_OFFSET, payloadLength, Frames.ORDER);
        scratch.putInt(GROUP_OFFSET, 0, Frames.ORDER);
        scratch.putBytes(SOURCE_GID_OFFSET, localGid, 0, Addresses.GID_LENGTH);
        ScatterGather.gather(slot, 0, scratch.addressOffset() + HEADER_LENGTH, payloadLength);

        final SoftMulticastGroup group = slot.addressHandle.group();
        if (null != group)
        {
            sendToGroup(group, slot.hasImm() ? FLAG_IMM : 0, HEADER_LENGTH + payloadLength);
            return;
        }
        final Object route = port.resolve(slot.addressHandle);
        faults.send(route, scratch, HEADER_LENGTH + payloadLength, nic.nowNs());
    }

    /** One copy into each attached device's inbox (no allocation: the members are an array). */
    private void sendToGroup(final SoftMulticastGroup group, final int flags, final int length)
    {
        scratch.putInt(GROUP_OFFSET, group.id(), Frames.ORDER);
        final MemoryDatagramPort[] members = group.members();
        for (final MemoryDatagramPort member : members)
        {
            scratch.putInt(FLAGS_OFFSET, member == port ? flags | FLAG_OWN_DEVICE : flags, Frames.ORDER);
            if (!member.sendGroupCopy(scratch, length))
            {
                context.onDatagramLost();
            }
        }
    }

    /** A group copy reached this device: through its own faults and bottleneck, then to its attached queue pairs. */
    @Override
    public void onGroupDatagram(final UnsafeBuffer buffer, final int offset, final int length)
    {
        if (offset != 0)
        {
            throw new IllegalArgumentException("group copies are handed over at offset 0");
        }
        groupIngress.send(null, buffer, length, nic.nowNs());
    }

    private void deliverToGroup(final UnsafeBuffer buffer, final int length)
    {
        if (length < HEADER_LENGTH ||
            buffer.getInt(MAGIC_OFFSET, Frames.ORDER) != MAGIC ||
            buffer.getInt(PAYLOAD_LENGTH_OFFSET, Frames.ORDER) != length - HEADER_LENGTH)
        {
            context.onDatagramMalformed();
            return;
        }
        final SoftUdQueuePair[] queuePairs = attached.get(buffer.getInt(GROUP_OFFSET, Frames.ORDER));
        if (null == queuePairs)
        {
            context.onDatagramNoQueuePair(); // detached while the copy was on its way
            return;
        }
        final int flags = buffer.getInt(FLAGS_OFFSET, Frames.ORDER);
        final int source = buffer.getInt(SOURCE_QPN_OFFSET, Frames.ORDER);
        for (final SoftUdQueuePair queuePair : queuePairs)
        {
            if ((flags & FLAG_OWN_DEVICE) != 0 && queuePair.qpNumber() == source)
            {
                continue; // not back to the sending queue pair
            }
            queuePair.onDatagram(this, source, buffer.getInt(QKEY_OFFSET, Frames.ORDER), (flags & FLAG_IMM) != 0,
                buffer.getInt(IMM_OFFSET, Frames.ORDER), buffer, 0, length - HEADER_LENGTH);
        }
    }

    /**
     * NIC thread: {@code queuePair} receives the group's datagrams; the device joins the group's members with its first
     * attached queue pair.
     *
     * @return false when it was attached already.
     */
    boolean attach(final SoftMulticastGroup group, final SoftUdQueuePair queuePair)
    {
        final SoftUdQueuePair[] current = attached.get(group.id());
        final SoftUdQueuePair[] existing = null == current ? NO_QUEUE_PAIRS : current;
        for (final SoftUdQueuePair member : existing)
        {
            if (member == queuePair)
            {
                return false;
            }
        }
        final SoftUdQueuePair[] grown = java.util.Arrays.copyOf(existing, existing.length + 1);
        grown[existing.length] = queuePair;
        attached.put(group.id(), grown);
        if (existing.length == 0)
        {
            attachedGroups.put(group.id(), group);
            context.fabric().attach(group, (MemoryDatagramPort)port);
        }
        return true;
    }

    /**
     * NIC thread: the reverse of {@link #attach}; the device leaves the group's members with its last queue pair.
     *
     * @return false when it was not attached.
     */
    boolean detach(final int groupId, final SoftUdQueuePair queuePair)
    {
        final SoftUdQueuePair[] current = attached.get(groupId);
        if (null == current)
        {
            return false;
        }
        int kept = 0;
        final SoftUdQueuePair[] shrunk = new SoftUdQueuePair[current.length];
        for (final SoftUdQueuePair member : current)
        {
            if (member != queuePair)
            {
                shrunk[kept++] = member;
            }
        }
        if (kept == current.length)
        {
            return false;
        }
        if (kept == 0)
        {
            attached.remove(groupId);
            final SoftMulticastGroup group = attachedGroups.remove(groupId);
            context.fabric().detach(group, (MemoryDatagramPort)port);
        }
        else
        {
            attached.put(groupId, java.util.Arrays.copyOf(shrunk, kept));
        }
        return true;
    }

    /** NIC thread: a queue pair being destroyed leaves every group it is attached to. */
    void detachEverywhere(final SoftUdQueuePair queuePair)
    {
        if (attached.isEmpty())
        {
            return;
        }
        final int[] groupIds = new int[attached.size()];
        int count = 0;
        for (final int id : attached.keySet())
        {
            groupIds[count++] = id;
        }
        for (int i = 0; i < count; i++)
        {
            detach(groupIds[i], queuePair);
        }
    }

    /** What the group ingress faults deliver to: this device's attached queue pairs. */
    private final class GroupIngress implements DatagramPort
    {
        @Override
        public String gid()
        {
            return port.gid();
        }

        @Override
        public Object resolve(final SoftAddressHandle addressHandle)
        {
            return null;
        }

        @Override
        public boolean send(final Object route, final UnsafeBuffer buffer, final int length)
        {
            deliverToGroup(buffer, length);
            return true;
        }

        @Override
        public int poll(final Handler handler)
        {
            return 0;
        }

        @Override
        public void close()
        {
        }
    }

    @Override
    public void onDatagram(final UnsafeBuffer buffer, final int offset, final int length)
    {
        if (length < HEADER_LENGTH ||
            buffer.getInt(offset + MAGIC_OFFSET, Frames.ORDER) != MAGIC ||
            buffer.getInt(offset + PAYLOAD_LENGTH_OFFSET, Frames.ORDER) != length - HEADER_LENGTH)
        {
            context.onDatagramMalformed();
            return;
        }
        final int destination = buffer.getInt(offset + DESTINATION_QPN_OFFSET, Frames.ORDER);
        final SoftUdQueuePair queuePair = nic.udQueuePair(destination);
        if (queuePair == null)
        {
            context.onDatagramNoQueuePair();
            return;
        }
        final int flags = buffer.getInt(offset + FLAGS_OFFSET, Frames.ORDER);
        queuePair.onDatagram(
            this,
            buffer.getInt(offset + SOURCE_QPN_OFFSET, Frames.ORDER),
            buffer.getInt(offset + QKEY_OFFSET, Frames.ORDER),
            (flags & FLAG_IMM) != 0,
            buffer.getInt(offset + IMM_OFFSET, Frames.ORDER),
            buffer,
            offset,
            length - HEADER_LENGTH);
    }

    /** Writes a GRH at {@code address} for a datagram laid out at {@code offset} of {@code datagram}. */
    void writeGrh(final long address, final UnsafeBuffer datagram, final int offset, final int payloadLength)
    {
        Memory.setMemory(address, GRH_LENGTH, (byte)0);
        Memory.putByte(address, (byte)0x60);
        Memory.putByte(address + 4, (byte)(payloadLength >>> 8));
        Memory.putByte(address + 5, (byte)payloadLength);
        Memory.putByte(address + 6, (byte)0x1B);
        Memory.putByte(address + 7, (byte)64);
        Memory.copy(datagram.addressOffset() + offset + SOURCE_GID_OFFSET, address + 8, Addresses.GID_LENGTH);
        Memory.copy(localGid.addressOffset(), address + 24, Addresses.GID_LENGTH);
    }

    void close()
    {
        faults.clear();
        groupIngress.clear();
        for (final int id : attachedGroups.keySet())
        {
            context.fabric().detach(attachedGroups.get(id), (MemoryDatagramPort)port);
        }
        attached.clear();
        attachedGroups.clear();
        port.close();
    }
}
