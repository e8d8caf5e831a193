package io.rivulet.transport.udp;

import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.spi.ReadinessWatch;
import org.agrona.DirectBuffer;
import org.agrona.collections.Object2IntHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ProtocolFamily;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A {@link MulticastEndpoint} over non-blocking {@link DatagramChannel}s: one unicast socket bound to
 * {@link UdpSettings#bindAddress()}, through which every datagram goes out (to peers and to groups), and one socket per
 * group this endpoint receives from.
 *
 * <p><b>Peers.</b> {@link #resolve} takes {@code host:port} or {@code [v6]:port} with an IPv4 or IPv6 literal or
 * {@code localhost}, parsed strictly since it comes from the network (never a name lookup on the caller's thread).
 * The same address gets the same handle. An endpoint bound to a wildcard offers {@code 0.0.0.0:port} (or
 * {@code [::]:port}), which means "the host you reach me at": {@link #resolve(String, String)} puts the connection's
 * remote host in its place; without one, or when that host is the other family's loopback, a wildcard means this
 * host, as the kernel reads it, and is sent to this socket's loopback address.
 *
 * <p><b>Sends.</b> {@link #send} copies into one reusable direct buffer and sends without blocking; a full socket
 * buffer sends nothing and returns false ({@link #sendBackPressure()}). An error the socket reports (no route, a
 * firewall's refusal) loses that datagram as the network would lose it: counted ({@link #sendErrors()}), logged at
 * most once a second, reported as sent, so that the reliable layer above repairs or gives up on the path instead of
 * retrying a send forever.
 *
 * <p><b>Receives.</b> {@link #poll} reads the unicast socket and every group socket into one direct buffer one byte
 * longer than {@link #maxDatagramLength()}: the kernel truncates a datagram longer than the buffer without a word, so
 * one that fills it was longer than allowed and is dropped ({@link #oversizeDatagrams()}), as are empty datagrams
 * ({@link #emptyDatagrams()}). Each poll reads each socket at most {@code limit} times whatever it drops, so a flood of
 * junk cannot hold the caller. A datagram is named by its source address: a resolved peer's handle, else
 * {@link #UNKNOWN_PEER}. A group's datagrams come from the sender's unicast socket, so they are named as its
 * unicast datagrams are (and an endpoint that receives a group it sends to, with loopback on, gets its own back).
 *
 * <p><b>Groups.</b> {@link #joinGroup} takes {@code 239.1.2.3:40456} or {@code [ff15::1]:40456}, the group's family
 * that of the unicast socket. Joining is done at once: the handle is {@link #GROUP_JOINED}, or {@link #GROUP_FAILED}
 * with the socket's error ({@link #groupFailure}). A receiving join opens a socket with SO_REUSEADDR bound to the
 * group's address and port (so several endpoints on one host each get every datagram, and unicast to that port or
 * other groups on it do not mix in; Linux and macOS allow binding to a group address) and joins on the multicast
 * interface ({@link UdpInterfaces}). Sends to groups leave through the unicast socket with IP_MULTICAST_IF set to
 * that interface, IP_MULTICAST_TTL and IP_MULTICAST_LOOP from the settings. On Linux IP_MULTICAST_LOOP does not stop
 * delivery on the loopback interface {@code lo} itself, whose every datagram comes back in.
 *
 * <p>Threading: one thread calls every method, as the SPI says; not thread-safe. No allocation on {@link #send} or
 * {@link #poll} once warm, beyond what the JDK does: it makes a new source address when a datagram's source differs
 * from the previous one's.
 */
public final class UdpEndpoint implements MulticastEndpoint
{
    private static final Logger LOG = LoggerFactory.getLogger(UdpEndpoint.class);
    private static final long WARNING_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);
    private static final int INITIAL_HANDLES = 16;
    /** One line per process about a capped receive buffer is enough. */
    private static volatile boolean receiveBufferCapReported;

    /** A joined group: its handle's target, its socket when it receives, and its state. */
    private static final class Group
    {
        final String name;
        final InetSocketAddress address;
        DatagramChannel channel;
        MembershipKey membership;
        int state = GROUP_JOINING;
        String failure;

        Group(final String name, final InetSocketAddress address)
        {
            this.name = name;
            this.address = address;
        }
    }

    private final UdpSettings settings;
    private final int maxDatagramLength;
    private final DatagramChannel unicast;
    private final InetSocketAddress boundAddress;
    private final String localAddress;
    /** What {@code localhost}, and a wildcard without a remote host, stand for: this socket's family's loopback. */
    private final InetAddress loopback;
    private final ByteBuffer sendBuffer;
    private final UnsafeBuffer sendView;
    private final ByteBuffer receiveBuffer;
    private final UnsafeBuffer receiveView;
    private final Object2IntHashMap<InetSocketAddress> peerByAddress = new Object2IntHashMap<>(UNKNOWN_PEER);

    /** Where each handle sends; null for a group left. */
    private InetSocketAddress[] targets = new InetSocketAddress[INITIAL_HANDLES];
    /** The group of each handle, null for a unicast peer. */
    private Group[] groups = new Group[INITIAL_HANDLES];
    private int handleCount;
    /** The unicast socket, then each receiving group's: what a poll reads. */
    private DatagramChannel[] receivers;
    private int receiverCount;
    private int nextReceiver;
    private NetworkInterface multicastInterface;
    private boolean closed;

    private long lastWarningNs;
    private long warningsSuppressed;
    private long datagramsSent;
    private long datagramsReceived;
    private long bytesSent;
    private long bytesReceived;
    private long sendBackPressure;
    private long sendErrors;
    private long receiveErrors;
    private long oversizeDatagrams;
    private long emptyDatagrams;
    private long unknownPeerDatagrams;
    private long groupsJoined;
    private long groupsFailed;
    /** Where its receiving sockets wake a sleeping engine, once the node asked ({@link #wakeWhenReadable}). */
    private ReadinessWatch watch;

    /**
     * Opens and binds the unicast socket.
     *
     * @param settings          validated settings: bind address, socket buffers, multicast options.
     * @param maxDatagramLength longest datagram sent or delivered, at most {@link UdpSettings#maxDatagram()}.
     * @throws IOException when the socket cannot be opened or bound (the address in use, not on this host).
     */
    public UdpEndpoint(final UdpSettings settings, final int maxDatagramLength) throws IOException
    {
        if (maxDatagramLength < 1 || maxDatagramLength > settings.maxDatagram())
        {
            throw new IllegalArgumentException("maxDatagramLength " + maxDatagramLength + " not in 1.." +
                settings.maxDatagram() + " (rivulet.udp.maxDatagram)");
        }
        this.settings = settings;
        this.maxDatagramLength = maxDatagramLength;
        final InetSocketAddress bind = settings.bindSocketAddress();
        final boolean ipv6 = bind.getAddress() instanceof Inet6Address;
        loopback = InetAddress.getByAddress(ipv6 ? new byte[]{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1} :
            new byte[]{127, 0, 0, 1});
        DatagramChannel channel = null;
        try
        {
            channel = open(ipv6 ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
            sizeBuffers(channel, true);
            channel.setOption(StandardSocketOptions.IP_MULTICAST_TTL, settings.multicastTtl());
            channel.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, settings.multicastLoopback());
            channel.bind(bind);
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(channel);
            throw new IOException("cannot open a UDP socket on " + settings.bindAddress() + ": " + ex.getMessage(), ex);
        }
        unicast = channel;
        boundAddress = (InetSocketAddress)channel.getLocalAddress();
        localAddress = UdpAddresses.format(boundAddress);
        sendBuffer = ByteBuffer.allocateDirect(maxDatagramLength).order(ByteOrder.nativeOrder());
        sendView = new UnsafeBuffer(sendBuffer);
        // One byte more than the longest datagram: a datagram that fills it was longer, and truncated.
        receiveBuffer = ByteBuffer.allocateDirect(maxDatagramLength + 1).order(ByteOrder.nativeOrder());
        receiveView = new UnsafeBuffer(receiveBuffer);
        receivers = new DatagramChannel[]{unicast, null, null, null};
        receiverCount = 1;
    }

    @Override
    public int maxDatagramLength()
    {
        return maxDatagramLength;
    }

    /** @return {@code host:port} as bound ({@code [v6]:port}); a wildcard host when bound to every interface. */
    @Override
    public String localAddress()
    {
        return localAddress;
    }

    /** @return the unicast socket's address as bound. */
    public InetSocketAddress boundAddress()
    {
        return boundAddress;
    }

    /**
     * {@inheritDoc}
     *
     * <p>A wildcard host means this host, as the kernel reads it: the loopback address.
     */
    @Override
    public int resolve(final String address)
    {
        return resolve(address, null);
    }

    /**
     * {@inheritDoc}
     *
     * @param remoteHost an IPv4 or IPv6 literal (brackets allowed) or {@code localhost}; null for this host.
     * @throws IllegalArgumentException when either is malformed, names a multicast address or a host this socket's
     *                                  family cannot reach.
     */
    @Override
    public int resolve(final String address, final String remoteHost)
    {
        checkOpen();
        InetSocketAddress target = UdpAddresses.parse(address, loopback, 1);
        if (UdpAddresses.isWildcard(target.getAddress()))
        {
            InetAddress host = null == remoteHost ? loopback : UdpAddresses.parseHost(remoteHost, loopback);
            if (UdpAddresses.isWildcard(host) || host.isMulticastAddress())
            {
                throw new IllegalArgumentException("the remote host " + UdpAddresses.shown(remoteHost) + " for " +
                    UdpAddresses.shown(address) + " is not a unicast host");
            }
            if (host.isLoopbackAddress() && host.getClass() != loopback.getClass())
            {
                // The peer is on this host, connected over the other family's loopback (a TCP connection over ::1):
                // its wildcard socket is reached at this socket's loopback.
                host = loopback;
            }
            target = new InetSocketAddress(host, target.getPort());
        }
        if (target.getAddress().isMulticastAddress())
        {
            throw UdpAddresses.invalid(address, "a multicast group is not a peer: join it with joinGroup");
        }
        if (!UdpAddresses.isReachableFamily(boundAddress.getAddress(), target.getAddress()))
        {
            throw UdpAddresses.invalid(address, (target.getAddress() instanceof Inet4Address ? "IPv4" : "IPv6") +
                ", which this endpoint's socket (bound to " + localAddress + ") cannot reach");
        }
        final int known = peerByAddress.getValue(target);
        if (known != UNKNOWN_PEER)
        {
            return known;
        }
        final int handle = newHandle(target, null);
        peerByAddress.put(target, handle);
        return handle;
    }

    /**
     * {@inheritDoc}
     *
     * <p>To a group, false until it is joined (never, when it failed).
     *
     * @throws IllegalArgumentException for a handle this endpoint did not give (or a group left), or a length outside
     *                                  1 to {@link #maxDatagramLength()}.
     */
    @Override
    public boolean send(final int peer, final DirectBuffer buffer, final int offset, final int length)
    {
        checkOpen();
        final InetSocketAddress target = target(peer);
        if (length < 1 || length > maxDatagramLength)
        {
            throw new IllegalArgumentException("datagram length " + length + " not in 1.." + maxDatagramLength);
        }
        final Group group = groups[peer];
        if (null != group && group.state != GROUP_JOINED)
        {
            return false;
        }
        sendView.putBytes(0, buffer, offset, length);
        sendBuffer.limit(length).position(0);
        try
        {
            if (unicast.send(sendBuffer, target) == 0)
            {
                sendBackPressure++;
                return false;
            }
        }
        catch (final IOException ex)
        {
            sendErrors++;
            if (shouldWarn())
            {
                LOG.warn("UDP endpoint {}: a datagram to {} is lost: {}{}", localAddress, UdpAddresses.format(target),
                    ex.toString(), suppressed());
            }
            return true; // lost, as the network loses datagrams: the reliable layer above repairs or gives up
        }
        datagramsSent++;
        bytesSent += length;
        return true;
    }

    /** Every send is copied before it returns: a send is complete as soon as it is accepted. */
    @Override
    public long sendsPosted()
    {
        return datagramsSent + sendErrors;
    }

    @Override
    public long sendsCompleted()
    {
        return datagramsSent + sendErrors;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Reads the sockets in turn, starting with the next one each call so that a busy group does not starve the
     * others; each at most {@code limit} times.
     */
    @Override
    public int poll(final DatagramHandler handler, final int limit)
    {
        checkOpen();
        final int start = nextReceiver;
        int delivered = 0;
        // receiverCount is read each turn: a handler may join, leave or close (same thread) while this runs.
        for (int i = 0; i < receiverCount && delivered < limit; i++)
        {
            delivered += drain(receivers[(start + i) % receiverCount], handler, limit - delivered);
        }
        nextReceiver = receiverCount == 0 ? 0 : (start + 1) % receiverCount;
        return delivered;
    }

    private int drain(final DatagramChannel channel, final DatagramHandler handler, final int limit)
    {
        int delivered = 0;
        for (int reads = 0; reads < limit; reads++)
        {
            receiveBuffer.clear();
            final SocketAddress source;
            try
            {
                source = channel.receive(receiveBuffer);
            }
            catch (final IOException ex)
            {
                receiveErrors++;
                if (shouldWarn())
                {
                    LOG.warn("UDP endpoint {}: a receive failed: {}{}", localAddress, ex.toString(), suppressed());
                }
                break;
            }
            if (null == source)
            {
                break;
            }
            final int length = receiveBuffer.position();
            if (length == 0)
            {
                emptyDatagrams++;
                continue;
            }
            if (length > maxDatagramLength)
            {
                oversizeDatagrams++; // truncated by the kernel: what is left is not the datagram
                continue;
            }
            final int peer = source instanceof InetSocketAddress ?
                peerByAddress.getValue((InetSocketAddress)source) : UNKNOWN_PEER;
            if (peer == UNKNOWN_PEER)
            {
                unknownPeerDatagrams++;
            }
            datagramsReceived++;
            bytesReceived += length;
            delivered++;
            handler.onDatagram(peer, receiveView, 0, length);
            if (!channel.isOpen())
            {
                break; // the handler left this group or closed the endpoint
            }
        }
        return delivered;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Done before this returns: {@link #GROUP_JOINED}, or {@link #GROUP_FAILED} with the reason (no multicast
     * interface, the socket refusing to bind or join, a group of the other IP family than the unicast socket's).
     */
    /** Its unicast socket and every group socket, now and as groups are joined; closing a socket ends its watch. */
    @Override
    public boolean wakeWhenReadable(final ReadinessWatch watch)
    {
        checkOpen();
        this.watch = watch;
        for (int i = 0; i < receiverCount; i++)
        {
            watch.watch(receivers[i]);
        }
        return true;
    }

    @Override
    public int joinGroup(final String group, final boolean receive)
    {
        checkOpen();
        final InetSocketAddress address = UdpAddresses.parseGroup(group);
        final Group joined = new Group(group, address);
        final int handle = newHandle(address, joined);
        final String failure = join(joined, receive);
        if (null == failure)
        {
            joined.state = GROUP_JOINED;
            groupsJoined++;
            if (null != joined.channel)
            {
                addReceiver(joined.channel);
            }
            LOG.debug("UDP endpoint {}: joined {} on {}{}", localAddress, group, multicastInterface.getName(),
                receive ? "" : " to send only");
        }
        else
        {
            joined.state = GROUP_FAILED;
            joined.failure = failure;
            groupsFailed++;
            LOG.warn("UDP endpoint {}: cannot join {}: {}", localAddress, group, failure);
        }
        return handle;
    }

    /** @return null when joined, else why not; whatever it opened is closed on failure. */
    private String join(final Group group, final boolean receive)
    {
        final InetAddress groupAddress = group.address.getAddress();
        final boolean ipv6 = groupAddress instanceof Inet6Address;
        if (ipv6 != boundAddress.getAddress() instanceof Inet6Address)
        {
            return "an " + (ipv6 ? "IPv6" : "IPv4") + " group is sent to through an " + (ipv6 ? "IPv6" : "IPv4") +
                " socket, and this endpoint's is bound to " + localAddress + " (rivulet.udp.bind)";
        }
        try
        {
            if (null == multicastInterface)
            {
                final NetworkInterface found = UdpInterfaces.find(settings.multicastInterface(),
                    boundAddress.getAddress());
                unicast.setOption(StandardSocketOptions.IP_MULTICAST_IF, found);
                multicastInterface = found;
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return "no multicast interface: " + ex.getMessage();
        }
        if (!receive)
        {
            return null;
        }
        DatagramChannel channel = null;
        try
        {
            channel = open(ipv6 ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            sizeBuffers(channel, false);
            channel.bind(group.address);
            group.membership = channel.join(groupAddress, multicastInterface);
            group.channel = channel;
            return null;
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(channel);
            return "cannot receive " + group.name + " on " + multicastInterface.getName() + ": " + ex;
        }
    }

    /** @throws IllegalArgumentException when the handle is not a group of this endpoint (or one left). */
    @Override
    public int groupState(final int group)
    {
        return group(group).state;
    }

    @Override
    public String groupFailure(final int group)
    {
        return group(group).failure;
    }

    /** Drops the membership and closes the group's socket; unknown, unicast and left handles are ignored. */
    @Override
    public void leaveGroup(final int group)
    {
        if (closed || group < 0 || group >= handleCount || null == groups[group] || null == targets[group])
        {
            return;
        }
        final Group left = groups[group];
        targets[group] = null;
        groups[group] = null;
        if (null != left.channel)
        {
            removeReceiver(left.channel);
            leave(left);
        }
    }

    /** @return the interface groups are joined and sent on, once a join found it; else null. */
    public NetworkInterface multicastInterface()
    {
        return multicastInterface;
    }

    /** @return groups held now (joined, failed or receiving), not yet left. */
    public int groupCount()
    {
        int count = 0;
        for (int i = 0; i < handleCount; i++)
        {
            count += null != groups[i] ? 1 : 0;
        }
        return count;
    }

    /** Closes every socket; idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (int i = 0; i < handleCount; i++)
        {
            final Group group = groups[i];
            if (null != group && null != group.channel)
            {
                leave(group);
            }
        }
        closeQuietly(unicast);
        receiverCount = 0;
    }

    /** @return whether {@link #close()} was called. */
    public boolean isClosed()
    {
        return closed;
    }

    /** @return SO_RCVBUF of the unicast socket as the kernel granted it (Linux reports twice what it holds). */
    public int socketReceiveBufferLength()
    {
        return socketOption(StandardSocketOptions.SO_RCVBUF);
    }

    /** @return SO_SNDBUF of the unicast socket as the kernel granted it. */
    public int socketSendBufferLength()
    {
        return socketOption(StandardSocketOptions.SO_SNDBUF);
    }

    /** @return datagrams handed to the kernel. */
    public long datagramsSent()
    {
        return datagramsSent;
    }

    /** @return datagrams delivered to a handler. */
    public long datagramsReceived()
    {
        return datagramsReceived;
    }

    /** @return bytes of the datagrams handed to the kernel. */
    public long bytesSent()
    {
        return bytesSent;
    }

    /** @return bytes of the datagrams delivered to a handler. */
    public long bytesReceived()
    {
        return bytesReceived;
    }

    /** @return sends refused because the socket's send buffer was full (nothing sent; {@link #send} returned false). */
    public long sendBackPressure()
    {
        return sendBackPressure;
    }

    /** @return sends the socket failed (no route, refused): lost. */
    public long sendErrors()
    {
        return sendErrors;
    }

    /** @return receives the socket failed. */
    public long receiveErrors()
    {
        return receiveErrors;
    }

    /** @return datagrams longer than {@link #maxDatagramLength()} received and dropped. */
    public long oversizeDatagrams()
    {
        return oversizeDatagrams;
    }

    /** @return empty datagrams received and dropped. */
    public long emptyDatagrams()
    {
        return emptyDatagrams;
    }

    /** @return datagrams delivered whose source is not a resolved peer. */
    public long unknownPeerDatagrams()
    {
        return unknownPeerDatagrams;
    }

    /** @return joins that succeeded, left since or not. */
    public long groupsJoined()
    {
        return groupsJoined;
    }

    /** @return joins that failed. */
    public long groupsFailed()
    {
        return groupsFailed;
    }

    @Override
    public String toString()
    {
        return "UdpEndpoint{" + localAddress + ", maxDatagramLength=" + maxDatagramLength + ", groups=" +
            groupCount() + (closed ? ", closed" : "") + "}";
    }

    // ---------------------------------------------------------------------------------------------- internals

    private static DatagramChannel open(final ProtocolFamily family) throws IOException
    {
        final DatagramChannel channel = DatagramChannel.open(family);
        try
        {
            channel.configureBlocking(false);
        }
        catch (final IOException ex)
        {
            closeQuietly(channel);
            throw ex;
        }
        return channel;
    }

    /** Asks for the settings' buffer sizes; the kernel may grant less (Linux: net.core.rmem_max), said once here. */
    private void sizeBuffers(final DatagramChannel channel, final boolean send) throws IOException
    {
        if (send && settings.socketSendBufferLength() > 0)
        {
            channel.setOption(StandardSocketOptions.SO_SNDBUF, settings.socketSendBufferLength());
        }
        if (settings.socketReceiveBufferLength() > 0)
        {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, settings.socketReceiveBufferLength());
            // Linux reports twice what it holds; less than asked means the kernel's cap.
            final int granted = channel.getOption(StandardSocketOptions.SO_RCVBUF);
            if (send && granted < settings.socketReceiveBufferLength() && !receiveBufferCapReported)
            {
                receiveBufferCapReported = true;
                LOG.info("UDP: asked for a receive buffer of {} bytes (rivulet.udp.socketReceiveBuffer), the kernel " +
                    "granted {} (raise net.core.rmem_max for more)", settings.socketReceiveBufferLength(), granted);
            }
        }
    }

    private int socketOption(final java.net.SocketOption<Integer> option)
    {
        checkOpen();
        try
        {
            return unicast.getOption(option);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private int newHandle(final InetSocketAddress target, final Group group)
    {
        if (handleCount == targets.length)
        {
            targets = Arrays.copyOf(targets, 2 * targets.length);
            groups = Arrays.copyOf(groups, 2 * groups.length);
        }
        final int handle = handleCount++;
        targets[handle] = target;
        groups[handle] = group;
        return handle;
    }

    private InetSocketAddress target(final int peer)
    {
        final InetSocketAddress target = peer >= 0 && peer < handleCount ? targets[peer] : null;
        if (null == target)
        {
            throw new IllegalArgumentException("unknown peer handle " + peer);
        }
        return target;
    }

    private Group group(final int handle)
    {
        final Group group = handle >= 0 && handle < handleCount ? groups[handle] : null;
        if (null == group)
        {
            throw new IllegalArgumentException("not a group of this endpoint: " + handle);
        }
        return group;
    }

    private void addReceiver(final DatagramChannel channel)
    {
        if (receiverCount == receivers.length)
        {
            receivers = Arrays.copyOf(receivers, 2 * receivers.length);
        }
        receivers[receiverCount++] = channel;
        if (null != watch)
        {
            watch.watch(channel);
        }
    }

    private void removeReceiver(final DatagramChannel channel)
    {
        for (int i = 1; i < receiverCount; i++)
        {
            if (receivers[i] == channel)
            {
                System.arraycopy(receivers, i + 1, receivers, i, receiverCount - i - 1);
                receivers[--receiverCount] = null;
                nextReceiver = 0;
                return;
            }
        }
    }

    private static void leave(final Group group)
    {
        if (null != group.membership)
        {
            group.membership.drop();
        }
        closeQuietly(group.channel);
        group.channel = null;
    }

    private static void closeQuietly(final DatagramChannel channel)
    {
        if (null != channel)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignore)
            {
                // Closing the rest matters more than one failure on the way down.
            }
        }
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("UDP endpoint " + localAddress + " closed");
        }
    }

    /** At most one warning a second: a flood of errors (a dead route, a hostile peer) must not flood the log. */
    private boolean shouldWarn()
    {
        final long nowNs = System.nanoTime();
        if (lastWarningNs != 0 && nowNs - lastWarningNs < WARNING_INTERVAL_NS)
        {
            warningsSuppressed++;
            return false;
        }
        lastWarningNs = nowNs == 0 ? 1 : nowNs;
        return true;
    }

    private String suppressed()
    {
        final long count = warningsSuppressed;
        warningsSuppressed = 0;
        return count == 0 ? "" : "; " + count + " similar warnings suppressed";
    }
}
