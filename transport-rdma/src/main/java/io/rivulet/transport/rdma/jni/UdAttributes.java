package io.rivulet.transport.rdma.jni;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * A UD destination's address attributes as RDMA CM hands them over ({@code struct rdma_ud_param}: the
 * {@code ibv_ah_attr}, the QP number and the Q_Key), in native memory this object owns: {@link RdmaCm#getEvent}
 * writes them for a MULTICAST_JOIN or MULTICAST_ERROR event ({@link CmEvent#copyUdTo}), and
 * {@link Verbs#createAhFromAttr} makes an address handle from exactly them, as librdmacm's own examples do with the
 * join event's {@code ah_attr}: on InfiniBand the group's SL, rate and flow label come from the subnet manager's
 * member record and a handle made from anything else may not be routed.
 *
 * <p>Layout (U_* in rivulet_verbs.h), one native-order int per field after the 16-byte destination GID:
 * <pre>
 *   0 dgid[16]  16 flow_label  20 sgid_index  24 hop_limit  28 traffic_class  32 dlid  36 sl
 *  40 src_path_bits  44 static_rate  48 is_global  52 port_num  56 qp_num  60 qkey        (64 bytes)
 * </pre>
 *
 * <p>Not thread-safe.
 */
public final class UdAttributes
{
    /** {@code RDMA_UDP_QKEY}: the Q_Key librdmacm gives UD ids (RDMA_PS_UDP) and the groups they join. */
    public static final int RDMA_UDP_QKEY = 0x01234567;

    static final int DGID = 0;
    static final int FLOW_LABEL = 16;
    static final int SGID_INDEX = 20;
    static final int HOP_LIMIT = 24;
    static final int TRAFFIC_CLASS = 28;
    static final int DLID = 32;
    static final int SL = 36;
    static final int IS_GLOBAL = 48;
    static final int PORT_NUM = 52;
    static final int QP_NUM = 56;
    static final int QKEY = 60;
    static final int SIZE = 64;

    private final UnsafeBuffer buffer =
        new UnsafeBuffer(BufferUtil.allocateDirectAligned(SIZE, 64).order(ByteOrder.nativeOrder()));

    void copyFrom(final DirectBuffer source, final int offset)
    {
        buffer.putBytes(0, source, offset, SIZE);
    }

    /** @return the native address of the attributes, for {@link Verbs#createAhFromAttr}. */
    public long address()
    {
        return buffer.addressOffset();
    }

    /** @return the destination GID (a multicast group's MGID) with the destination LID (its MLID; 0 on RoCE). */
    public Gid gid()
    {
        return new Gid(buffer.getLong(DGID, java.nio.ByteOrder.BIG_ENDIAN),
            buffer.getLong(DGID + 8, java.nio.ByteOrder.BIG_ENDIAN), dlid());
    }

    public int dlid()
    {
        return buffer.getInt(DLID);
    }

    public int serviceLevel()
    {
        return buffer.getInt(SL);
    }

    public int sgidIndex()
    {
        return buffer.getInt(SGID_INDEX);
    }

    public int hopLimit()
    {
        return buffer.getInt(HOP_LIMIT);
    }

    public int trafficClass()
    {
        return buffer.getInt(TRAFFIC_CLASS);
    }

    public int flowLabel()
    {
        return buffer.getInt(FLOW_LABEL);
    }

    public boolean isGlobal()
    {
        return buffer.getInt(IS_GLOBAL) != 0;
    }

    public int portNumber()
    {
        return buffer.getInt(PORT_NUM);
    }

    /** @return the destination QP number: 0xffffff for a multicast group. */
    public int qpNumber()
    {
        return buffer.getInt(QP_NUM);
    }

    public int qkey()
    {
        return buffer.getInt(QKEY);
    }

    @Override
    public String toString()
    {
        return "UdAttributes{dgid=" + gid().format() + ", sl=" + serviceLevel() + ", sgidIndex=" + sgidIndex() +
            ", hopLimit=" + hopLimit() + ", port=" + portNumber() + ", qpn=0x" + Integer.toHexString(qpNumber()) +
            ", qkey=0x" + Integer.toHexString(qkey()) + "}";
    }
}
