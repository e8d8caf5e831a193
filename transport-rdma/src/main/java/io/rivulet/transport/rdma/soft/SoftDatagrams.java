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
 *  |                           reserved                            | 28
 *  +---------------------------------------------------------------+
 *  |                 source gid (16 bytes, as in a GRH)            | 32
 *  +---------------------------------------------------------------+
 *  |                          payload ...                          | 48
 * </pre>
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
    static final int SOURCE_GID_OFFSET = 32;
    static final int HEADER_LENGTH = 48;
    static final int FLAG_IMM = 1;

    /** Bytes of Global Routing Header in front of every UD receive, as hardware writes them. */
    static final int GRH_LENGTH = 40;

    private final SoftVerbsContext context;
    private final SoftNic nic;
    private final DatagramPort port;
    private final FaultInjector faults;
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
        return port.poll(this) + faults.doWork(nowNs, nic);
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
        scratch.putInt(PAYLOAD_LENGTH_OFFSET + 4, 0, Frames.ORDER);
        scratch.putBytes(SOURCE_GID_OFFSET, localGid, 0, Addresses.GID_LENGTH);
        ScatterGather.gather(slot, 0, scratch.addressOffset() + HEADER_LENGTH, payloadLength);

        final Object route = port.resolve(slot.addressHandle);
        faults.send(route, scratch, HEADER_LENGTH + payloadLength, nic.nowNs());
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
        port.close();
    }
}
