package io.rivulet.transport.udp;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Parses and formats the addresses UDP endpoints exchange: {@code a.b.c.d:port}, {@code [v6]:port} and
 * {@code localhost:port}. They come from the network (a peer's DATAGRAM_OFFER), so parsing is strict and never
 * resolves a name: IP literals are parsed here into bytes and handed to {@link InetAddress#getByAddress(byte[])},
 * which does no lookup, and the only name is {@code localhost}, which means the loopback address the caller gives.
 * No zone ids, no leading zeros in IPv4 parts (they read as octal elsewhere), no spaces, at most
 * {@value #MAX_ADDRESS_LENGTH} characters.
 *
 * <p>Thread-safe: stateless.
 */
final class UdpAddresses
{
    /** Longer than any {@code [v6]:port} (53 characters with an embedded IPv4 address). */
    static final int MAX_ADDRESS_LENGTH = 64;
    static final int MAX_PORT = 65535;
    static final String LOCALHOST = "localhost";

    private UdpAddresses()
    {
    }

    /**
     * @param address  {@code host:port} or {@code [v6]:port}, host an IPv4 or IPv6 literal or {@code localhost}.
     * @param loopback what {@code localhost} stands for.
     * @param minPort  the smallest port accepted: 0 to bind (any port), 1 to send.
     * @return the socket address, never unresolved.
     * @throws IllegalArgumentException naming the address and what is wrong.
     */
    static InetSocketAddress parse(final String address, final InetAddress loopback, final int minPort)
    {
        checkText(address, "host:port or [ipv6]:port");
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
        final InetAddress inetAddress = host(host, address, loopback);
        final int port = port(address, portIndex);
        if (port < minPort)
        {
            throw invalid(address, "port 0 cannot be sent to");
        }
        return new InetSocketAddress(inetAddress, port);
    }

    /**
     * @param group {@code address:port} or {@code [v6]:port} of an IPv4 (224.0.0.0/4) or IPv6 (ff00::/8) multicast
     *              group.
     * @return the group's socket address.
     * @throws IllegalArgumentException when it is not a multicast group and a port from 1 to 65535.
     */
    static InetSocketAddress parseGroup(final String group)
    {
        final InetSocketAddress address;
        try
        {
            // localhost is never a group: no loopback to stand for it.
            address = parse(group, null, 1);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("not a multicast group (address:port, as 239.1.2.3:40456 or " +
                "[ff15::1]:40456): " + ex.getMessage(), ex);
        }
        if (!address.getAddress().isMulticastAddress())
        {
            throw new IllegalArgumentException("not a multicast group (address:port, as 239.1.2.3:40456 or " +
                "[ff15::1]:40456): " + shown(group) + ": " + address.getAddress().getHostAddress() +
                " is not a multicast address");
        }
        return address;
    }

    /**
     * @param host     a host as a peer or a connection names it: an IPv4 or IPv6 literal (brackets allowed), or
     *                 {@code localhost}.
     * @param loopback what {@code localhost} stands for, or null to refuse it.
     * @return the address.
     * @throws IllegalArgumentException naming the host and what is wrong.
     */
    static InetAddress parseHost(final String host, final InetAddress loopback)
    {
        checkText(host, "an IPv4 or IPv6 literal or localhost");
        final String bare = host.length() > 2 && host.startsWith("[") && host.endsWith("]") ?
            host.substring(1, host.length() - 1) : host;
        return host(bare, host, loopback);
    }

    /**
     * @param address a socket address.
     * @return it as {@code host:port}, or {@code [v6]:port} for IPv6, without a zone id (which means nothing to a
     *         peer): what {@link #parse} reads back.
     */
    static String format(final InetSocketAddress address)
    {
        final InetAddress host = address.getAddress();
        if (host instanceof Inet6Address)
        {
            final String text = host.getHostAddress();
            final int zone = text.indexOf('%');
            return "[" + (zone < 0 ? text : text.substring(0, zone)) + "]:" + address.getPort();
        }
        return host.getHostAddress() + ":" + address.getPort();
    }

    private static InetAddress host(final String host, final String address, final InetAddress loopback)
    {
        if (host.isEmpty())
        {
            throw invalid(address, "no host");
        }
        if (host.equalsIgnoreCase(LOCALHOST))
        {
            if (null == loopback)
            {
                throw invalid(address, "localhost is not allowed here");
            }
            return loopback;
        }
        final byte[] bytes = host.indexOf(':') >= 0 ? ipv6(host) : ipv4(host, 0, host.length());
        if (null == bytes)
        {
            throw invalid(address, host.indexOf(':') >= 0 ? "not an IPv6 literal" : looksNumeric(host) ?
                "not an IPv4 literal (four decimal parts 0 to 255, no leading zeros)" :
                "a host must be an IP literal or localhost: names are not looked up");
        }
        try
        {
            return InetAddress.getByAddress(bytes);
        }
        catch (final UnknownHostException ex)
        {
            throw invalid(address, "not an IP address"); // not reached: the length is 4 or 16
        }
    }

    private static int port(final String address, final int portIndex)
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

    /** @return four bytes, or null unless {@code text[start, end)} is exactly a dotted quad without leading zeros. */
    static byte[] ipv4(final String text, final int start, final int end)
    {
        final byte[] bytes = new byte[4];
        int part = 0;
        int partStart = start;
        for (int i = start; i <= end; i++)
        {
            if (i == end || text.charAt(i) == '.')
            {
                final int length = i - partStart;
                if (part == 4 || length < 1 || length > 3 || (length > 1 && text.charAt(partStart) == '0'))
                {
                    return null;
                }
                int value = 0;
                for (int j = partStart; j < i; j++)
                {
                    final char c = text.charAt(j);
                    if (c < '0' || c > '9')
                    {
                        return null;
                    }
                    value = value * 10 + (c - '0');
                }
                if (value > 255)
                {
                    return null;
                }
                bytes[part++] = (byte)value;
                partStart = i + 1;
            }
        }
        return part == 4 ? bytes : null;
    }

    /**
     * @return sixteen bytes, or null unless {@code text} is an IPv6 literal: eight groups of one to four hex digits,
     *         at most one {@code ::} standing for one or more zero groups, optionally a dotted quad as the last 32 bits.
     */
    static byte[] ipv6(final String text)
    {
        if (text.length() < 2 || text.length() > 45)
        {
            return null;
        }
        final int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0)
        {
            return null;
        }
        final int[] words = new int[8];
        final int count;
        if (gap < 0)
        {
            count = groups(text, 0, text.length(), words, 0, true);
            if (count != 8)
            {
                return null;
            }
        }
        else
        {
            final int head = groups(text, 0, gap, words, 0, false);
            if (head < 0)
            {
                return null;
            }
            final int[] tailWords = new int[8];
            final int tail = groups(text, gap + 2, text.length(), tailWords, 0, true);
            if (tail < 0 || head + tail > 7)
            {
                return null;
            }
            System.arraycopy(tailWords, 0, words, 8 - tail, tail);
            count = 8;
        }
        final byte[] bytes = new byte[16];
        for (int i = 0; i < count; i++)
        {
            bytes[2 * i] = (byte)(words[i] >>> 8);
            bytes[2 * i + 1] = (byte)words[i];
        }
        return bytes;
    }

    /**
     * Parses the colon-separated groups of {@code text[start, end)} into {@code words} from {@code at}.
     *
     * @param last whether these groups end the address, so the final one may be a dotted quad (two words).
     * @return words parsed (0 for an empty range), or -1 when malformed.
     */
    private static int groups(final String text, final int start, final int end, final int[] words, final int at,
        final boolean last)
    {
        if (start == end)
        {
            return 0;
        }
        int count = at;
        int groupStart = start;
        for (int i = start; i <= end; i++)
        {
            if (i == end || text.charAt(i) == ':')
            {
                final int length = i - groupStart;
                if (length < 1)
                {
                    return -1;
                }
                if (i == end && last && text.indexOf('.', groupStart) >= 0)
                {
                    final byte[] quad = ipv4(text, groupStart, end);
                    if (null == quad || count + 2 > words.length)
                    {
                        return -1;
                    }
                    words[count++] = (quad[0] & 0xFF) << 8 | quad[1] & 0xFF;
                    words[count++] = (quad[2] & 0xFF) << 8 | quad[3] & 0xFF;
                    return count - at;
                }
                if (length > 4 || count == words.length)
                {
                    return -1;
                }
                int value = 0;
                for (int j = groupStart; j < i; j++)
                {
                    final int digit = Character.digit(text.charAt(j), 16);
                    if (digit < 0 || text.charAt(j) > 'f')
                    {
                        return -1; // Character.digit also takes non-ASCII digits
                    }
                    value = value << 4 | digit;
                }
                words[count++] = value;
                groupStart = i + 1;
            }
        }
        return count - at;
    }

    private static boolean looksNumeric(final String host)
    {
        for (int i = 0; i < host.length(); i++)
        {
            final char c = host.charAt(i);
            if ((c < '0' || c > '9') && c != '.')
            {
                return false;
            }
        }
        return true;
    }

    private static void checkText(final String text, final String expected)
    {
        if (null == text || text.isEmpty())
        {
            throw new IllegalArgumentException("invalid UDP address " + shown(text) + ": expected " + expected);
        }
        if (text.length() > MAX_ADDRESS_LENGTH)
        {
            throw invalid(text, "longer than " + MAX_ADDRESS_LENGTH + " characters");
        }
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c <= ' ' || c > '~')
            {
                throw invalid(text, "holds a space, a control or a non-ASCII character");
            }
        }
    }

    /** @return whether an endpoint whose socket has this local address must be told where peers reach it. */
    static boolean isWildcard(final InetAddress address)
    {
        return address.isAnyLocalAddress();
    }

    /** @return whether a socket of the family of {@code local} can send to {@code target}. */
    static boolean isReachableFamily(final InetAddress local, final InetAddress target)
    {
        if (local instanceof Inet4Address)
        {
            return target instanceof Inet4Address;
        }
        // An IPv6 socket bound to the wildcard is dual-stack: IPv4 peers are reached as mapped addresses.
        return target instanceof Inet6Address || local.isAnyLocalAddress();
    }

    static IllegalArgumentException invalid(final String address, final String reason)
    {
        return new IllegalArgumentException("invalid UDP address " + shown(address) + ": " + reason);
    }

    static String shown(final String text)
    {
        if (null == text)
        {
            return "null";
        }
        final StringBuilder shown = new StringBuilder(Math.min(text.length(), 80) + 2).append('\'');
        for (int i = 0; i < text.length() && i < 80; i++)
        {
            final char c = text.charAt(i);
            shown.append(c < ' ' || c > '~' ? '?' : c); // a hostile peer's bytes never reach a log as they are
        }
        return shown.append(text.length() > 80 ? "...'" : "'").toString();
    }
}
