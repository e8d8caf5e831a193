package io.rivulet.spi;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;

/**
 * Parses and formats the {@code host:port} addresses of the transport SPI, shared by every transport
 * whose endpoints are IP addresses and ports (TCP, and RDMA through RDMA CM). IPv6 hosts are written in
 * brackets, as in {@code [::1]:7070}.
 *
 * <p>Stateless and thread-safe.
 */
public final class SocketAddresses
{
    private static final int MAX_PORT = 65535;

    private SocketAddresses()
    {
    }

    /**
     * Parses an address and resolves its host. IP literals resolve without any lookup; a host name may
     * block on DNS, which is acceptable only because listening and connecting are control-plane work.
     *
     * @param address {@code host:port} or {@code [v6]:port}; port 0 asks for an ephemeral port.
     * @return the resolved socket address.
     * @throws IllegalArgumentException when the text is not a valid address; the message names it.
     * @throws UnknownHostException     when the host cannot be resolved; the message names the address.
     */
    public static InetSocketAddress resolve(final String address) throws UnknownHostException
    {
        if (null == address)
        {
            throw new IllegalArgumentException("invalid address null: expected host:port");
        }

        final String host;
        final int portIndex;
        if (address.startsWith("["))
        {
            final int end = address.indexOf(']');
            if (end < 0 || end + 1 >= address.length() || address.charAt(end + 1) != ':')
            {
                throw invalid(address, "expected [ipv6]:port");
            }
            host = address.substring(1, end);
            if (host.indexOf(':') < 0)
            {
                throw invalid(address, "only an IPv6 literal may be written in brackets");
            }
            portIndex = end + 2;
        }
        else
        {
            final int colon = address.lastIndexOf(':');
            if (colon < 0)
            {
                throw invalid(address, "expected host:port");
            }
            host = address.substring(0, colon);
            if (host.indexOf(':') >= 0)
            {
                throw invalid(address, "an IPv6 host must be in brackets, as in [::1]:7070");
            }
            portIndex = colon + 1;
        }

        if (host.isEmpty() || !isHostText(host))
        {
            throw invalid(address, "missing or malformed host");
        }
        final int port = parsePort(address, portIndex);

        try
        {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        }
        catch (final UnknownHostException ex)
        {
            final UnknownHostException named = new UnknownHostException("unknown host in address " + address);
            named.initCause(ex);
            throw named;
        }
    }

    /**
     * The host part of an address as a link reports it, for an endpoint that resolves a peer's wildcard against
     * the host its connection came from. Lenient, since the text was made locally, not read from the network.
     *
     * @param address {@code host:port} or {@code [v6]:port}; text without a port is returned as it is.
     * @return the host without port or brackets ({@code 10.0.0.7}, {@code ::1}), or null for null.
     */
    public static String host(final String address)
    {
        if (null == address)
        {
            return null;
        }
        final int colon = address.lastIndexOf(':');
        final String host = colon > 0 ? address.substring(0, colon) : address;
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /**
     * @param socketAddress an {@link InetSocketAddress} as returned by a channel.
     * @return it as {@code host:port}, or {@code [v6]:port} for IPv6.
     */
    public static String format(final SocketAddress socketAddress)
    {
        if (!(socketAddress instanceof InetSocketAddress))
        {
            return String.valueOf(socketAddress);
        }

        final InetSocketAddress inetSocketAddress = (InetSocketAddress)socketAddress;
        final InetAddress inetAddress = inetSocketAddress.getAddress();
        final String host = null == inetAddress ? inetSocketAddress.getHostString() : inetAddress.getHostAddress();

        return inetAddress instanceof Inet6Address ?
            "[" + host + "]:" + inetSocketAddress.getPort() :
            host + ":" + inetSocketAddress.getPort();
    }

    private static int parsePort(final String address, final int portIndex)
    {
        final int length = address.length() - portIndex;
        if (length < 1 || length > 5)
        {
            throw invalid(address, "missing or malformed port");
        }

        int port = 0;
        for (int i = portIndex; i < address.length(); i++)
        {
            final char c = address.charAt(i);
            if (c < '0' || c > '9')
            {
                throw invalid(address, "missing or malformed port");
            }
            port = port * 10 + (c - '0');
        }

        if (port > MAX_PORT)
        {
            throw invalid(address, "port " + port + " is over " + MAX_PORT);
        }

        return port;
    }

    private static boolean isHostText(final String host)
    {
        // Reject spaces, slashes and the like early so the user sees their own text, not a resolver error.
        for (int i = 0; i < host.length(); i++)
        {
            final char c = host.charAt(i);
            final boolean valid = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '-' || c == '_' || c == ':' || c == '%';
            if (!valid)
            {
                return false;
            }
        }

        return true;
    }

    private static IllegalArgumentException invalid(final String address, final String reason)
    {
        return new IllegalArgumentException("invalid address '" + address + "': " + reason);
    }
}
