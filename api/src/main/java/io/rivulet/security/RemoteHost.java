package io.rivulet.security;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * Turns a peer's {@code host:port} (as {@code io.rivulet.spi.SocketAddresses.format} writes it, {@code [v6]:port}
 * for IPv6) into the key a per-source defence counts under: the IPv4 address, or the IPv6 /64 prefix (one host is
 * usually given a whole /64, so counting single IPv6 addresses would let it rotate through 2^64 of them). The port
 * never counts: every connection has a new one. Never resolves a name: a bracketed IPv6 literal is parsed without
 * a lookup, and any other host text is used as written.
 *
 * <p>Stateless and thread-safe.
 */
final class RemoteHost
{
    private static final String UNKNOWN = "unknown";

    private RemoteHost()
    {
    }

    /**
     * @param remoteAddress {@code host:port}, {@code [v6]:port}, or null.
     * @return the key: {@code 192.0.2.7}, {@code 2001:db8:0:1::/64}, or the host text when it is not an IP literal.
     */
    static String key(final String remoteAddress)
    {
        if (remoteAddress == null || remoteAddress.isEmpty())
        {
            return UNKNOWN;
        }
        if (remoteAddress.charAt(0) == '[')
        {
            final int end = remoteAddress.indexOf(']');
            if (end <= 1)
            {
                return remoteAddress; // malformed: counted as written rather than guessed at
            }
            return ipv6Key(remoteAddress.substring(1, end));
        }
        final int colon = remoteAddress.lastIndexOf(':');
        if (colon < 0)
        {
            return remoteAddress.toLowerCase(Locale.ROOT);
        }
        if (remoteAddress.indexOf(':') != colon)
        {
            // Unbracketed IPv6 (not how our transports write it): the last group cannot be told from a port.
            return ipv6Key(remoteAddress);
        }
        return colon == 0 ? UNKNOWN : remoteAddress.substring(0, colon).toLowerCase(Locale.ROOT);
    }

    private static String ipv6Key(final String host)
    {
        final InetAddress address;
        try
        {
            // In brackets the JDK accepts only an IPv6 literal and never asks DNS.
            address = InetAddress.getByName("[" + host + "]");
        }
        catch (final UnknownHostException | RuntimeException ex)
        {
            return host.toLowerCase(Locale.ROOT);
        }
        if (address instanceof Inet4Address)
        {
            return address.getHostAddress(); // an IPv4-mapped address is that IPv4 host
        }
        if (!(address instanceof Inet6Address))
        {
            return host.toLowerCase(Locale.ROOT);
        }
        final byte[] bytes = address.getAddress();
        final StringBuilder prefix = new StringBuilder(24);
        for (int group = 0; group < 4; group++)
        {
            final int value = ((bytes[2 * group] & 0xFF) << 8) | (bytes[2 * group + 1] & 0xFF);
            prefix.append(Integer.toHexString(value)).append(':');
        }
        return prefix.append(":/64").toString();
    }
}
