package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.verbs.VerbsException;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What an RDMA CM id is bound to ({@link RdmaCm#idInfo}): its device context, port and both ends' addresses.
 * Control path: each {@link #of} reads once and allocates.
 *
 * @param verbs  the {@code ibv_context} of the id's device, 0 while it has none.
 * @param port   the device port, 0 while it has none.
 * @param local  the local address, or null.
 * @param remote the peer's address, or null.
 */
public record CmIdInfo(long verbs, int port, InetSocketAddress local, InetSocketAddress remote)
{
    /** @throws VerbsException when the id is not valid. */
    public static CmIdInfo of(final long id) throws VerbsException
    {
        final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(RdmaCm.I_SIZE).order(ByteOrder.nativeOrder()));
        Verbs.check("reading an RDMA CM id", RdmaCm.idInfo(id, out.addressOffset()));
        return new CmIdInfo(
            out.getLong(RdmaCm.I_VERBS),
            out.getInt(RdmaCm.I_PORT),
            address(out, RdmaCm.I_LOCAL_FAMILY, RdmaCm.I_LOCAL_PORT, RdmaCm.I_LOCAL_ADDR),
            address(out, RdmaCm.I_REMOTE_FAMILY, RdmaCm.I_REMOTE_PORT, RdmaCm.I_REMOTE_ADDR));
    }

    private static InetSocketAddress address(final UnsafeBuffer out, final int familyAt, final int portAt,
        final int addressAt)
    {
        final byte[] bytes = new byte[16];
        out.getBytes(addressAt, bytes);
        return RdmaCm.socketAddress(out.getInt(familyAt), out.getInt(portAt), bytes);
    }
}
