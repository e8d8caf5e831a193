package io.rivulet.transport.udp;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;

/**
 * Finds the network interface an endpoint joins and sends groups on ({@code rivulet.udp.interface}): by name, by an
 * address on it, else the interface of the endpoint's specific bind address, else the first interface (by index) that
 * is up, supports multicast and has an address of the endpoint's family, a real link before loopback. Asks the kernel for its interfaces (no lookup on
 * the network), on the control plane, when a group is joined.
 *
 * <p>Thread-safe: stateless.
 */
final class UdpInterfaces
{
    private UdpInterfaces()
    {
    }

    /**
     * @param setting  {@code rivulet.udp.interface}: a name or an address on the interface, or null.
     * @param bindHost the endpoint's bound host (a wildcard when it binds to every interface).
     * @return the interface, up and supporting multicast.
     * @throws IOException saying why none fits, and which interfaces there are.
     */
    static NetworkInterface find(final String setting, final InetAddress bindHost) throws IOException
    {
        final boolean ipv6 = bindHost instanceof Inet6Address;
        if (null != setting)
        {
            NetworkInterface named = NetworkInterface.getByName(setting);
            if (null == named)
            {
                final InetAddress address = addressOrNull(setting);
                named = null == address ? null : NetworkInterface.getByInetAddress(address);
            }
            if (null == named)
            {
                throw new IOException("rivulet.udp.interface=" + setting + ": no such interface or address on one " +
                    "(interfaces: " + describeAll() + ")");
            }
            return usable(named, "rivulet.udp.interface=" + setting, ipv6);
        }
        if (!bindHost.isAnyLocalAddress())
        {
            final NetworkInterface bound = NetworkInterface.getByInetAddress(bindHost);
            if (null == bound)
            {
                throw new IOException("no interface holds the bind address " + bindHost.getHostAddress() +
                    " (interfaces: " + describeAll() + "); set rivulet.udp.interface");
            }
            return usable(bound, "the interface of the bind address " + bindHost.getHostAddress(), ipv6);
        }
        // In index order (the JDK lists them in no stated order), a real link before loopback: groups are for the LAN.
        NetworkInterface first = null;
        final Enumeration<NetworkInterface> all = NetworkInterface.getNetworkInterfaces();
        while (null != all && all.hasMoreElements())
        {
            final NetworkInterface candidate = all.nextElement();
            if (candidate.isUp() && candidate.supportsMulticast() && hasAddress(candidate, ipv6) &&
                (null == first || rank(candidate) < rank(first)))
            {
                first = candidate;
            }
        }
        if (null != first)
        {
            return first;
        }
        throw new IOException("no interface is up and supports multicast with an " + (ipv6 ? "IPv6" : "IPv4") +
            " address (interfaces: " + describeAll() + "); set rivulet.udp.interface");
    }

    /** @return loopback after every real link, then by index. */
    private static long rank(final NetworkInterface candidate) throws SocketException
    {
        return (candidate.isLoopback() ? 1L << 32 : 0) + (candidate.getIndex() & 0xFFFF_FFFFL);
    }

    private static NetworkInterface usable(final NetworkInterface candidate, final String what, final boolean ipv6)
        throws SocketException
    {
        if (!candidate.isUp())
        {
            throw new SocketException(what + ": interface " + candidate.getName() + " is down");
        }
        if (!candidate.supportsMulticast())
        {
            throw new SocketException(what + ": interface " + candidate.getName() + " does not support multicast " +
                "(no MULTICAST flag)");
        }
        if (!hasAddress(candidate, ipv6))
        {
            throw new SocketException(what + ": interface " + candidate.getName() + " has no " +
                (ipv6 ? "IPv6" : "IPv4") + " address");
        }
        return candidate;
    }

    private static boolean hasAddress(final NetworkInterface candidate, final boolean ipv6)
    {
        final Enumeration<InetAddress> addresses = candidate.getInetAddresses();
        while (addresses.hasMoreElements())
        {
            final InetAddress address = addresses.nextElement();
            if (ipv6 ? address instanceof Inet6Address : address instanceof Inet4Address)
            {
                return true;
            }
        }
        return false;
    }

    private static InetAddress addressOrNull(final String text)
    {
        try
        {
            return UdpAddresses.parseHost(text, null);
        }
        catch (final IllegalArgumentException ex)
        {
            return null;
        }
    }

    /** @return each interface with what keeps it from multicast, e.g. {@code lo (no multicast), eth0}. */
    static String describeAll()
    {
        final List<String> described = new ArrayList<>();
        try
        {
            final Enumeration<NetworkInterface> all = NetworkInterface.getNetworkInterfaces();
            while (null != all && all.hasMoreElements())
            {
                final NetworkInterface candidate = all.nextElement();
                final String state = !candidate.isUp() ? " (down)" : !candidate.supportsMulticast() ?
                    " (no multicast)" : "";
                described.add(candidate.getName() + state);
            }
        }
        catch (final SocketException ex)
        {
            return "cannot list them: " + ex.getMessage();
        }
        return described.isEmpty() ? "none" : String.join(", ", described);
    }
}
