package io.rivulet.transport.udp;

import io.rivulet.ConfigurationException;
import io.rivulet.spi.PropertyValues;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;

/**
 * How a node's UDP datagram endpoints are made; the {@code rivulet.udp.*} system properties give the defaults:
 *
 * <ul>
 *   <li>{@code rivulet.udp.bind} ({@value #DEFAULT_BIND}): where each endpoint's unicast socket binds, an IPv4 or
 *       IPv6 literal or {@code localhost} and a port (0: any). A wildcard host offers "the host you reach me at"; the
 *       socket's family (IPv4 or IPv6) is the host's.</li>
 *   <li>{@code rivulet.udp.interface} (none): the interface multicast groups are joined and sent on, by name
 *       ({@code lo}, {@code eth0}) or by an address on it. Without it: the interface of a specific bind address, else
 *       the first interface (by index) that is up and supports multicast, a real link before loopback. Looked up when
 *       a group is joined, so a host without multicast still carries unicast datagrams.</li>
 *   <li>{@code rivulet.udp.ttl} (1): the multicast TTL (IPv6: hop limit), 0 to 255; 1 keeps groups on the link.</li>
 *   <li>{@code rivulet.udp.loopback} (true): IP_MULTICAST_LOOP, so endpoints on the sending host receive the group's
 *       datagrams too.</li>
 *   <li>{@code rivulet.udp.maxDatagram} ({@value #DEFAULT_MAX_DATAGRAM}): the longest datagram an endpoint may be
 *       asked to carry, 64 to {@value #MAX_DATAGRAM}: a 1500-byte Ethernet MTU less the IPv4 and UDP headers, so no
 *       datagram is fragmented. Loopback and jumbo frames carry more; a longer datagram the path cannot carry whole is
 *       fragmented by IP, and one lost fragment loses it.</li>
 *   <li>{@code rivulet.udp.socketSendBuffer}, {@code rivulet.udp.socketReceiveBuffer} (4m each): SO_SNDBUF and
 *       SO_RCVBUF asked for, 0 for the system's default. Linux caps them at {@code net.core.wmem_max} and
 *       {@code net.core.rmem_max} (often 208k) without an error; a small receive buffer drops datagrams while an
 *       engine parks, which the reliable protocols then repair.</li>
 * </ul>
 *
 * <p>A bad property fails the constructor with a {@link ConfigurationException} naming it; values set in code are
 * checked by {@link #validate()}.
 *
 * <p>Thread-safety: fluent and mutable, not thread-safe, until handed to {@link UdpDatagrams}, which takes a copy.
 */
public final class UdpSettings
{
    /** Default of {@code rivulet.udp.bind}: any address, any port. */
    public static final String DEFAULT_BIND = "0.0.0.0:0";
    /** Default of {@code rivulet.udp.maxDatagram}: 1500 - 20 (IPv4) - 8 (UDP). */
    public static final int DEFAULT_MAX_DATAGRAM = 1472;
    /** The longest UDP payload IPv4 can carry: 65535 - 20 - 8. */
    public static final int MAX_DATAGRAM = 65507;
    /** Shortest {@code rivulet.udp.maxDatagram}: room for a protocol header and some data. */
    public static final int MIN_DATAGRAM = 64;
    /** Default SO_SNDBUF and SO_RCVBUF asked for. */
    public static final int DEFAULT_SOCKET_BUFFER = 4 * 1024 * 1024;

    /** Every {@code rivulet.udp.*} property these settings read. */
    public static final Set<String> PROPERTIES = Set.of(
        "rivulet.udp.bind", "rivulet.udp.interface", "rivulet.udp.ttl", "rivulet.udp.loopback",
        "rivulet.udp.maxDatagram", "rivulet.udp.socketSendBuffer", "rivulet.udp.socketReceiveBuffer");

    private String bindAddress = bindProperty();
    private String multicastInterface = interfaceProperty();
    private int multicastTtl = ttlProperty();
    private boolean multicastLoopback = PropertyValues.flag("rivulet.udp.loopback", true);
    private int maxDatagram = PropertyValues.size("rivulet.udp.maxDatagram", DEFAULT_MAX_DATAGRAM);
    private int socketSendBufferLength = PropertyValues.size("rivulet.udp.socketSendBuffer", DEFAULT_SOCKET_BUFFER);
    private int socketReceiveBufferLength =
        PropertyValues.size("rivulet.udp.socketReceiveBuffer", DEFAULT_SOCKET_BUFFER);

    /**
     * Reads the defaults from the {@code rivulet.udp.*} properties.
     *
     * @throws ConfigurationException naming a property whose value is not valid.
     */
    public UdpSettings()
    {
        check(maxDatagram >= MIN_DATAGRAM && maxDatagram <= MAX_DATAGRAM, "rivulet.udp.maxDatagram",
            "must be within [" + MIN_DATAGRAM + ", " + MAX_DATAGRAM + "] bytes");
    }

    /** Where each endpoint's unicast socket binds: {@code host:port} or {@code [v6]:port} ({@code rivulet.udp.bind}). */
    public UdpSettings bindAddress(final String bindAddress)
    {
        this.bindAddress = bindAddress;
        return this;
    }

    public String bindAddress()
    {
        return bindAddress;
    }

    /**
     * The interface groups are joined and sent on, by name or by an address on it; null for the default
     * ({@code rivulet.udp.interface}).
     */
    public UdpSettings multicastInterface(final String multicastInterface)
    {
        this.multicastInterface = multicastInterface;
        return this;
    }

    public String multicastInterface()
    {
        return multicastInterface;
    }

    /** Multicast TTL or hop limit, 0 to 255 ({@code rivulet.udp.ttl}, 1). */
    public UdpSettings multicastTtl(final int multicastTtl)
    {
        this.multicastTtl = multicastTtl;
        return this;
    }

    public int multicastTtl()
    {
        return multicastTtl;
    }

    /** Whether the sending host receives its own group datagrams: IP_MULTICAST_LOOP ({@code rivulet.udp.loopback}, true). */
    public UdpSettings multicastLoopback(final boolean multicastLoopback)
    {
        this.multicastLoopback = multicastLoopback;
        return this;
    }

    public boolean multicastLoopback()
    {
        return multicastLoopback;
    }

    /** Longest datagram an endpoint may be asked to carry ({@code rivulet.udp.maxDatagram}, 1472). */
    public UdpSettings maxDatagram(final int maxDatagram)
    {
        this.maxDatagram = maxDatagram;
        return this;
    }

    public int maxDatagram()
    {
        return maxDatagram;
    }

    /** SO_SNDBUF asked for, 0 for the system's ({@code rivulet.udp.socketSendBuffer}, 4m). */
    public UdpSettings socketSendBufferLength(final int socketSendBufferLength)
    {
        this.socketSendBufferLength = socketSendBufferLength;
        return this;
    }

    public int socketSendBufferLength()
    {
        return socketSendBufferLength;
    }

    /** SO_RCVBUF asked for, 0 for the system's ({@code rivulet.udp.socketReceiveBuffer}, 4m). */
    public UdpSettings socketReceiveBufferLength(final int socketReceiveBufferLength)
    {
        this.socketReceiveBufferLength = socketReceiveBufferLength;
        return this;
    }

    public int socketReceiveBufferLength()
    {
        return socketReceiveBufferLength;
    }

    /**
     * @return the bind address, parsed (no lookup: a literal or {@code localhost}).
     * @throws ConfigurationException when it is not a valid bind address.
     */
    public InetSocketAddress bindSocketAddress()
    {
        try
        {
            return UdpAddresses.parse(bindAddress, InetAddress.getLoopbackAddress(), 0);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigurationException("rivulet.udp.bind=" + bindAddress + ": " + ex.getMessage() +
                "; write an IP literal or localhost and a port, e.g. 0.0.0.0:0 or [::]:40123");
        }
    }

    /**
     * @return this, when every value is in range.
     * @throws ConfigurationException naming the first bad value.
     */
    public UdpSettings validate()
    {
        if (null == bindAddress)
        {
            throw new ConfigurationException("rivulet.udp.bind must be set, e.g. " + DEFAULT_BIND);
        }
        final InetSocketAddress bind = bindSocketAddress();
        if (bind.getAddress().isMulticastAddress())
        {
            throw new ConfigurationException("rivulet.udp.bind=" + bindAddress + ": a multicast address; endpoints " +
                "bind to a unicast address and join groups");
        }
        if (null != multicastInterface && (multicastInterface.isBlank() || multicastInterface.length() > 64))
        {
            throw new ConfigurationException("rivulet.udp.interface=" + multicastInterface +
                ": an interface name (lo, eth0) or an address on it, at most 64 characters");
        }
        require(multicastTtl >= 0 && multicastTtl <= 255, "rivulet.udp.ttl must be within [0, 255]: " + multicastTtl);
        require(maxDatagram >= MIN_DATAGRAM && maxDatagram <= MAX_DATAGRAM, "rivulet.udp.maxDatagram must be within [" +
            MIN_DATAGRAM + ", " + MAX_DATAGRAM + "]: " + maxDatagram);
        require(socketSendBufferLength >= 0, "rivulet.udp.socketSendBuffer must not be negative: " +
            socketSendBufferLength);
        require(socketReceiveBufferLength >= 0, "rivulet.udp.socketReceiveBuffer must not be negative: " +
            socketReceiveBufferLength);
        return this;
    }

    /** @return a copy, so that what a transport uses does not change under it. */
    public UdpSettings copy()
    {
        return new UdpSettings(this);
    }

    private UdpSettings(final UdpSettings from)
    {
        bindAddress = from.bindAddress;
        multicastInterface = from.multicastInterface;
        multicastTtl = from.multicastTtl;
        multicastLoopback = from.multicastLoopback;
        maxDatagram = from.maxDatagram;
        socketSendBufferLength = from.socketSendBufferLength;
        socketReceiveBufferLength = from.socketReceiveBufferLength;
    }

    private static String bindProperty()
    {
        final String raw = System.getProperty("rivulet.udp.bind");
        if (null == raw)
        {
            return DEFAULT_BIND;
        }
        final String value = raw.trim();
        try
        {
            UdpAddresses.parse(value, InetAddress.getLoopbackAddress(), 0);
        }
        catch (final IllegalArgumentException ex)
        {
            throw PropertyValues.invalid("rivulet.udp.bind", raw, ex.getMessage() +
                "; write an IP literal or localhost and a port, e.g. 0.0.0.0:0 or [::]:40123");
        }
        return value;
    }

    private static String interfaceProperty()
    {
        final String raw = System.getProperty("rivulet.udp.interface");
        if (null == raw)
        {
            return null;
        }
        final String value = raw.trim();
        if (value.isEmpty() || value.length() > 64)
        {
            throw PropertyValues.invalid("rivulet.udp.interface", raw,
                "an interface name (lo, eth0) or an address on it, at most 64 characters");
        }
        return value;
    }

    private static int ttlProperty()
    {
        final String raw = System.getProperty("rivulet.udp.ttl");
        if (null == raw)
        {
            return 1;
        }
        final String value = raw.trim();
        if (value.length() >= 1 && value.length() <= 3 && value.chars().allMatch(c -> c >= '0' && c <= '9'))
        {
            final int ttl = Integer.parseInt(value);
            if (ttl <= 255)
            {
                return ttl;
            }
        }
        throw PropertyValues.invalid("rivulet.udp.ttl", raw, "a TTL is a whole number from 0 to 255, e.g. 1");
    }

    private static void check(final boolean condition, final String property, final String problem)
    {
        if (!condition)
        {
            throw PropertyValues.invalid(property, String.valueOf(System.getProperty(property)), problem);
        }
    }

    private static void require(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new ConfigurationException(message);
        }
    }

    @Override
    public String toString()
    {
        return "UdpSettings{bind=" + bindAddress + ", interface=" + (null == multicastInterface ? "default" :
            multicastInterface) + ", ttl=" + multicastTtl + ", loopback=" + multicastLoopback + ", maxDatagram=" +
            maxDatagram + ", socketSendBuffer=" + PropertyValues.describeSize(socketSendBufferLength) +
            ", socketReceiveBuffer=" + PropertyValues.describeSize(socketReceiveBufferLength) + "}";
    }
}
