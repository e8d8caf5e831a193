package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.verbs.VerbsException;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The device port UD queue pairs of a context use, and the address peers reach it at: the port RDMA CM
 * bound the context's address to, its LID, and the source GID index with its GID.
 *
 * <p>GID index: {@link DisniSettings#gidIndex()} when set; otherwise the entry holding the context's
 * IPv4 address as {@code ::ffff:a.b.c.d} (RoCE; the last such entry, which on current kernels is the
 * RoCE v2 one), otherwise index 0 (InfiniBand's port GID).
 *
 * @param number       the port number (from 1).
 * @param gidIndex     the source GID index for address handles.
 * @param gid          the port's GID at that index with the port's LID.
 * @param activeMtu    the active MTU in bytes: the largest UD payload.
 * @param linkLayer    {@code IBV_LINK_LAYER_*} (1 InfiniBand, 2 Ethernet).
 */
record DisniUdPort(int number, int gidIndex, DisniGid gid, int activeMtu, int linkLayer)
{
    private static final int PORT_INFO_INTS = 6;

    /**
     * @param contextHandle the {@code ibv_context} pointer.
     * @param cmIdHandle    the {@code rdma_cm_id} pointer the context's address is bound to.
     * @param localAddress  that address.
     * @param gidIndex      the configured GID index, or -1 to find it.
     * @throws VerbsException naming the verb that failed.
     */
    static DisniUdPort resolve(
        final long contextHandle, final long cmIdHandle, final InetAddress localAddress, final int gidIndex)
        throws VerbsException
    {
        final int boundPort = NativeVerbs.cmIdPort(cmIdHandle);
        final int port = boundPort > 0 ? boundPort : 1;
        final ByteBuffer info = ByteBuffer.allocateDirect(PORT_INFO_INTS * Integer.BYTES).order(ByteOrder.nativeOrder());
        final long infoAddress = NativeVerbs.addressOf(info);
        NativeVerbs.check("ibv_query_port (port " + port + ")", NativeVerbs.queryPort(contextHandle, port, infoAddress));
        final int lid = info.getInt(4);
        final int gidTableLength = info.getInt(8);
        final int activeMtu = info.getInt(12);
        final int linkLayer = info.getInt(20);

        final ByteBuffer raw = ByteBuffer.allocateDirect(16).order(ByteOrder.BIG_ENDIAN);
        final long rawAddress = NativeVerbs.addressOf(raw);
        int index = gidIndex;
        if (index < 0)
        {
            index = 0;
            if (localAddress instanceof Inet4Address)
            {
                final DisniGid mapped = DisniGid.ipv4Mapped((Inet4Address)localAddress);
                for (int i = 0; i < gidTableLength; i++)
                {
                    if (NativeVerbs.queryGid(contextHandle, port, i, rawAddress) == 0 &&
                        raw.getLong(0) == mapped.high() && raw.getLong(8) == mapped.low())
                    {
                        index = i;
                    }
                }
            }
        }
        else if (index >= gidTableLength)
        {
            throw new VerbsException(DisniSettings.GID_INDEX_PROP + " " + index + " is beyond port " + port +
                "'s GID table of " + gidTableLength + " entries");
        }
        NativeVerbs.check("ibv_query_gid (port " + port + ", index " + index + ")",
            NativeVerbs.queryGid(contextHandle, port, index, rawAddress));
        final DisniGid gid = new DisniGid(raw.getLong(0), raw.getLong(8), lid);
        return new DisniUdPort(port, index, gid, activeMtu, linkLayer);
    }
}
