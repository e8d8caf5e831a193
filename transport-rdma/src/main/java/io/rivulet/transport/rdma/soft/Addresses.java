package io.rivulet.transport.rdma.soft;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** Loopback checks and the text form of soft gids ({@code host:port}, {@code [v6]:port}). */
final class Addresses
{
    static final int GID_LENGTH = 16;

    private Addresses()
    {
    }

    static void checkLoopback(final InetAddress address, final String what) throws IOException
    {
        if (address == null || !address.isLoopbackAddress())
        {
            throw new IOException("soft runs on loopback only (127.0.0.0/8 or ::1): " + what + " " + address);
        }
    }

    static String gid(final InetSocketAddress address)
    {
        final InetAddress host = address.getAddress();
        if (host instanceof Inet6Address)
        {
            return "[" + host.getHostAddress() + "]:" + address.getPort();
        }
        return host.getHostAddress() + ":" + address.getPort();
    }

    /**
     * Parses a gid made by {@link #gid(InetSocketAddress)}; only literal addresses, no name lookup.
     */
    static InetSocketAddress parseGid(final String gid) throws IOException
    {
        if (gid == null)
        {
            throw new IOException("no gid");
        }
        final int colon = gid.lastIndexOf(':');
        if (colon <= 0 || colon == gid.length() - 1)
        {
            throw new IOException("not a soft gid (host:port): " + gid);
        }
        String host = gid.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        final int port;
        try
        {
            port = Integer.parseInt(gid.substring(colon + 1));
        }
        catch (final NumberFormatException ex)
        {
            throw new IOException("not a soft gid (host:port): " + gid, ex);
        }
        if (port <= 0 || port > 65535 || !isLiteral(host))
        {
            throw new IOException("not a soft gid (host:port): " + gid);
        }
        final InetAddress address;
        try
        {
            address = InetAddress.getByName(host);
        }
        catch (final UnknownHostException ex)
        {
            throw new IOException("not a soft gid (host:port): " + gid, ex);
        }
        checkLoopback(address, "gid");
        return new InetSocketAddress(address, port);
    }

    /** Writes the 16-byte GID form of an address: IPv4-mapped IPv6 for IPv4, as RoCE v2 does. */
    static byte[] gidBytes(final InetAddress address)
    {
        final byte[] gid = new byte[GID_LENGTH];
        final byte[] raw = address.getAddress();
        if (address instanceof Inet4Address)
        {
            gid[10] = (byte)0xFF;
            gid[11] = (byte)0xFF;
            System.arraycopy(raw, 0, gid, 12, 4);
        }
        else
        {
            System.arraycopy(raw, 0, gid, 0, GID_LENGTH);
        }
        return gid;
    }

    private static boolean isLiteral(final String host)
    {
        if (host.isEmpty())
        {
            return false;
        }
        if (host.indexOf(':') >= 0)
        {
            return true;
        }
        for (int i = 0; i < host.length(); i++)
        {
            final char c = host.charAt(i);
            if (c != '.' && (c < '0' || c > '9'))
            {
                return false;
            }
        }
        return true;
    }
}
