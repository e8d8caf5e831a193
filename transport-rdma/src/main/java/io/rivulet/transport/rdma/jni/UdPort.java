package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.verbs.VerbsException;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The device port a context's UD queue pairs and address handles use, and the address peers reach it at: the
 * port RDMA CM bound the context's address to, its LID, and the source GID index with its GID.
 *
 * <p>GID index: the configured one when set; otherwise the entry holding the context's address (IPv4 as
 * {@code ::ffff:a.b.c.d}) chosen by type with {@code ibv_query_gid_ex}: RoCE v2 before RoCE v1 and InfiniBand,
 * whatever their position in the table (kernels list both RoCE versions of each address, in no promised order).
 * On InfiniBand, where no entry holds an IP address, index 0 (the port GID).
 *
 * @param number     the port number (from 1).
 * @param gidIndex   the source GID index for address handles.
 * @param gid        the port's GID at that index with the port's LID.
 * @param gidType    {@link #GID_TYPE_IB}, {@link #GID_TYPE_ROCE_V1}, {@link #GID_TYPE_ROCE_V2}, or -1 when the
 *                   kernel cannot tell.
 * @param activeMtu  the active MTU in bytes: the largest UD payload.
 * @param linkLayer  {@link #LINK_LAYER_INFINIBAND} or {@link #LINK_LAYER_ETHERNET}.
 */
public record UdPort(int number, int gidIndex, Gid gid, int gidType, int activeMtu, int linkLayer)
{
    public static final int GID_TYPE_IB = 0;
    public static final int GID_TYPE_ROCE_V1 = 1;
    public static final int GID_TYPE_ROCE_V2 = 2;
    public static final int LINK_LAYER_INFINIBAND = 1;
    public static final int LINK_LAYER_ETHERNET = 2;

    /**
     * @param contextHandle   the {@code ibv_context} pointer.
     * @param port            the port the context's address is bound to (from its RDMA CM id), 0 for port 1.
     * @param localAddress    that address.
     * @param gidIndex        the configured GID index, or -1 to find it.
     * @param gidIndexSetting the setting that configures it, named when nothing fits.
     * @throws VerbsException naming the verb that failed, or the address no GID holds.
     */
    public static UdPort resolve(
        final long contextHandle,
        final int port,
        final InetAddress localAddress,
        final int gidIndex,
        final String gidIndexSetting) throws VerbsException
    {
        final int number = port > 0 ? port : 1;
        final ByteBuffer info = ByteBuffer.allocateDirect(Verbs.P_SIZE).order(ByteOrder.nativeOrder());
        Verbs.check("ibv_query_port (port " + number + ")", Verbs.queryPort(contextHandle, number, Verbs.addressOf(info)));
        final int lid = info.getInt(Verbs.P_LID);
        final int gidTableLength = info.getInt(Verbs.P_GID_TABLE);
        final int activeMtu = info.getInt(Verbs.P_ACTIVE_MTU);
        final int linkLayer = info.getInt(Verbs.P_LINK_LAYER);

        final ByteBuffer entry = ByteBuffer.allocateDirect(Verbs.G_SIZE).order(ByteOrder.nativeOrder());
        final long entryAddress = Verbs.addressOf(entry);
        int index = gidIndex;
        if (index >= gidTableLength)
        {
            throw new VerbsException(gidIndexSetting + " " + index + " is beyond port " + number + "'s GID table of " +
                gidTableLength + " entries");
        }
        if (index < 0)
        {
            index = find(contextHandle, number, gidTableLength, localAddress, entry, entryAddress);
            if (index < 0)
            {
                if (linkLayer != LINK_LAYER_INFINIBAND)
                {
                    throw new VerbsException("no GID of port " + number + " holds " + localAddress.getHostAddress() +
                        " (see 'ibv_devinfo -v' or /sys/class/infiniband/*/ports/" + number + "/gids): set " +
                        gidIndexSetting + " to the index of this interface's RoCE v2 GID");
                }
                index = 0;
            }
        }
        Verbs.check("ibv_query_gid (port " + number + ", index " + index + ")",
            Verbs.queryGid(contextHandle, number, index, entryAddress));
        final Gid gid = new Gid(bigEndian(entry, 0), bigEndian(entry, 8), lid);
        return new UdPort(number, index, gid, entry.getInt(Verbs.G_TYPE), activeMtu, linkLayer);
    }

    /** @return the best entry holding the address (RoCE v2 first, then the last of any other type), or -1. */
    private static int find(
        final long contextHandle,
        final int port,
        final int tableLength,
        final InetAddress localAddress,
        final ByteBuffer entry,
        final long entryAddress)
    {
        final Gid wanted = of(localAddress);
        if (null == wanted)
        {
            return -1;
        }
        int best = -1;
        int bestType = Integer.MIN_VALUE;
        for (int i = 0; i < tableLength; i++)
        {
            if (Verbs.queryGid(contextHandle, port, i, entryAddress) != 0 ||
                bigEndian(entry, 0) != wanted.high() || bigEndian(entry, 8) != wanted.low())
            {
                continue;
            }
            final int type = entry.getInt(Verbs.G_TYPE);
            final int rank = type == GID_TYPE_ROCE_V2 ? 2 : 1;
            if (best < 0 || rank >= bestType)
            {
                best = i;
                bestType = rank;
            }
        }
        return best;
    }

    /** @return the GID an IP address appears as in a GID table, or null for another kind of address. */
    static Gid of(final InetAddress address)
    {
        if (address instanceof Inet4Address)
        {
            return Gid.ipv4Mapped((Inet4Address)address);
        }
        if (address instanceof Inet6Address)
        {
            final byte[] bytes = address.getAddress();
            final ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
            return new Gid(buffer.getLong(0), buffer.getLong(8), 0);
        }
        return null;
    }

    private static long bigEndian(final ByteBuffer buffer, final int offset)
    {
        long value = 0;
        for (int i = 0; i < 8; i++)
        {
            value = value << 8 | (buffer.get(offset + i) & 0xffL);
        }
        return value;
    }

    /** @return "RoCE v2", "RoCE v1", "IB" or "unknown", for messages. */
    public String gidTypeName()
    {
        switch (gidType)
        {
            case GID_TYPE_IB:
                return "IB";
            case GID_TYPE_ROCE_V1:
                return "RoCE v1";
            case GID_TYPE_ROCE_V2:
                return "RoCE v2";
            default:
                return "unknown";
        }
    }
}
