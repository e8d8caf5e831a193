package io.rivulet.transport.rdma.ud;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.transport.rdma.jni.Gid;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.MulticastMembership;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Object2IntHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A {@link DatagramEndpoint} over one UD queue pair: however many peers it reaches, a node needs one queue
 * pair, one receive region and one send region.
 *
 * <p><b>Receives.</b> The receive region holds {@code receiveSlots} slots of the port's UD MTU
 * ({@link VerbsContext#udMtu()}) plus the 40-byte GRH a UD receive starts with, whatever {@code maxDatagramLength}
 * is: nothing the port can carry overruns a slot, so no peer, however configured or hostile, can fail a receive
 * (which would move the queue pair to ERROR). Every slot stays posted; the slots a poll hands to the handler go back
 * to the device as one chain of receives per batch of completions. A datagram longer than
 * {@code maxDatagramLength} is dropped and counted ({@link #longDatagrams()}).
 *
 * <p><b>Sends.</b> The send region holds {@code sendSlots} slots; {@link #send} copies into a free slot and posts a
 * signalled SEND, and the slot comes back when {@link #poll} reaps its completion. With no free slot {@code send}
 * returns false. Stored once: {@link #allocateSendRegion} registers one more region (a publisher's ring); a
 * {@link #sendFromRegion} copies only the header into a send slot and posts a SEND of two scatter-gather entries,
 * the header then the payload where it lies in that region, so one stored message goes to every peer. Send
 * completions are reaped in posting order ({@link #sendsCompleted()}), which tells the ring when the device has
 * finished reading a slot.
 *
 * <p><b>Peers.</b> Addresses are {@code gid/qpNumber/qkey/mtu}: the queue pair's {@link UdAddress} and the largest
 * datagram its receive slots take. The gid is provider text and may itself hold {@code /} (the LID of a hardware
 * gid), so an address is read from the right; it comes from the network and is parsed strictly. {@link #resolve}
 * hands out the peer's handle at once and makes its address handle on the executor given at construction
 * ({@code ibv_create_ah} may block for a RoCE peer's neighbour resolution, which is not for the conductor's duty
 * cycle): until it is made, sends to the peer return false (back-pressure). A peer whose address handle could not be
 * made, or a datagram longer than the peer's MTU, is never posted: such a datagram counts as sent and lost
 * ({@link #unreachableDatagrams()}, {@link #oversizeDatagrams()}, one warning per peer), like a UD datagram to a
 * host that does not answer, so that the reliable-datagram layer above sees a path that stops acknowledging and
 * closes its connection as lost, instead of an exception in the conductor's cycle. With a direct executor (the soft
 * provider) the address handle exists when {@code resolve} returns, and a failure is thrown from {@code resolve}.
 *
 * <p><b>Sources.</b> A received datagram is attributed to the resolved peer whose (source GID, QP number) it
 * carries: the GID from the GRH at the start of the receive slot when the completion says there is one (RoCE v2
 * over IPv4 puts an IPv4 header in the GRH's last 20 bytes; RoCE over IPv6, RoCE v1 and InfiniBand an IPv6-style
 * GRH; told apart as rdma-core's {@code ibv_init_ah_from_wc} does), else (InfiniBand within a subnet) the
 * completion's source LID. QP numbers alone repeat across hosts. Two resolved peers with the same key, or none,
 * give {@link #UNKNOWN_PEER}.
 *
 * <p><b>Errors.</b> A failed completion (a send to a bad route, a receive the device refused) moves a queue pair to
 * ERROR, after which the device flushes everything. The endpoint reports it ({@link #sendErrors()},
 * {@link #receiveErrors()}, a warning with the status and vendor error, at most one a second), brings the queue pair
 * back in place ({@link QueuePair#recover()}: its number and Q_Key stay, so peers keep reaching it), forgets every
 * send outstanding (their slots come back and {@link #sendsCompleted()} covers them), posts every receive slot again
 * and keeps serving ({@link #recoveries()}). Work request ids carry a generation, so completions of requests from
 * before a recovery are told from the new ones and ignored.
 *
 * <p>Threading: one thread (the conductor) calls every method, as the SPI says; the only other thread is the
 * executor's, which publishes each peer's address handle through a volatile field. No allocation on {@link #send},
 * {@link #sendFromRegion} or {@link #poll} after construction (recovery and its warnings aside).
 *
 * <p>{@link UdMulticastEndpoint} adds multicast groups as one more kind of peer handle (package-private hooks below):
 * a group's "peer" has no address to resolve and no source to be named by; its address handle is made from the join
 * event once the group is joined, on the same executor, and a left group's is destroyed once the sends posted before
 * the leave have completed.
 */
public class UdDatagramEndpoint implements DatagramEndpoint
{
    /** Bytes of Global Routing Header before the payload of every UD receive. */
    public static final int GRH_LENGTH = 40;
    /** Smallest MTU an address may name: InfiniBand's smallest. */
    public static final int MIN_MTU = 256;
    /** Largest MTU an address may name (a soft device may carry more than InfiniBand's 4096). */
    public static final int MAX_MTU = 65_536;

    private static final Logger LOG = LoggerFactory.getLogger(UdDatagramEndpoint.class);
    private static final int COMPLETION_BATCH = 64;
    private static final int NO_PEER = -1;
    private static final int NO_SLOT = -1;
    private static final int MAX_ADDRESS_LENGTH = 256;
    private static final long WARNING_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long RECOVERY_RETRY_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long CLOSE_WAIT_NS = TimeUnit.SECONDS.toNanos(10);
    /** Offsets in the GRH area: an IPv6-style GRH's source GID, and the IPv4 header RoCE v2 puts in its last 20 bytes. */
    private static final int GRH_SOURCE_GID = 8;
    private static final int GRH_IPV4_HEADER = 20;
    private static final int IPV4_SOURCE_ADDRESS = GRH_IPV4_HEADER + 12;
    private static final long IPV4_MAPPED_PREFIX = 0xFFFFL << 32;

    /** One resolved peer: where it is, how it names itself in datagrams, and its address handle once made. */
    private static final class Peer
    {
        final int handle;
        final String address;
        /** A group's is set when it is joined (conductor, before its address handle is asked for). */
        UdAddress remote;
        /** A multicast group's membership, once joined; null for a unicast peer. */
        MulticastMembership group;
        /** A group left: the handle is no longer valid. Under the lifecycle lock. */
        boolean retired;
        /** The longest datagram it takes: the smaller of this endpoint's and the MTU its address names. */
        final int maxDatagramLength;
        final long gidHigh;
        final long gidLow;
        final int lid;
        /**
         * Written once by the executor's thread, read by the conductor: the handle is published with its state. Both
         * null while the address handle is being made.
         */
        volatile AddressHandle route;
        volatile IOException failure;
        // Conductor only.
        boolean warnedUnreachable;
        boolean warnedOversize;

        Peer(final int handle, final String address, final UdAddress remote, final int mtu,
            final int localMaxDatagramLength, final Gid source)
        {
            this.handle = handle;
            this.address = address;
            this.remote = remote;
            this.maxDatagramLength = Math.min(localMaxDatagramLength, mtu);
            this.gidHigh = source.high();
            this.gidLow = source.low();
            this.lid = source.lid();
        }

        /** A multicast group: named by its address only; never a datagram's source. */
        Peer(final int handle, final String group, final int localMaxDatagramLength)
        {
            this.handle = handle;
            this.address = group;
            this.maxDatagramLength = localMaxDatagramLength;
            this.gidHigh = 0;
            this.gidLow = 0;
            this.lid = 0;
        }
    }

    /** A left group's address handle, destroyed once every send posted before the leave has completed. */
    private record RetiredRoute(AddressHandle route, long lastSend)
    {
    }

    private final VerbsContext context;
    private final Executor addressHandleExecutor;
    private final int maxDatagramLength;
    private final int mtu;
    private final int receiveSlots;
    private final int sendSlots;
    private final int receiveStride;
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    private final QueuePair queuePair;
    private final MemoryRegion receiveRegion;
    private final MemoryRegion sendRegion;
    private final UnsafeBuffer receiveBuffer;
    private final UnsafeBuffer sendBuffer;
    private final String localAddress;

    private final SendWorkRequest sendRequest = new SendWorkRequest();
    /** Freed receive slots, posted back as one chain per batch of completions (and all of them after a recovery). */
    private final ReceiveWorkRequest[] receiveChain;
    private int receiveChainLength;
    private final WorkCompletion[] sendCompletions;
    /** receiveCompletions[n] holds n shared completions, so poll can honour a limit without allocating. */
    private final WorkCompletion[][] receiveCompletions;
    private final WorkCompletion[] drained;
    private final int[] freeSendSlots;
    private int freeSendSlotCount;
    /** Sends accepted but never posted (lost on purpose) right after each slot's send: they complete with it. */
    private final int[] lostAfter;
    private int lastPostedSlot = NO_SLOT;
    /** Part of every work request id: completions of requests from before a recovery carry an older one. */
    private int generation;

    private final Object2IntHashMap<String> peerByAddress = new Object2IntHashMap<>(NO_PEER);
    /** Resolved peers by QP number; peers on different hosts may share one. */
    private final Int2ObjectHashMap<Peer[]> peersByQpNumber = new Int2ObjectHashMap<>();
    private Peer[] peers = new Peer[16];
    private int peerCount;

    /** Guards what the executor's thread and close() share: the address handles made, and those being made. */
    private final Object lifecycle = new Object();
    private final ArrayList<AddressHandle> addressHandles = new ArrayList<>();
    private int handlesInCreation;
    private boolean closed;

    private boolean recoveryNeeded;
    private boolean recoveryFailed;
    private long nextRecoveryNs;
    private long lastWarningNs;
    private long warningsSuppressed;
    /** The GRH source GID of the datagram being attributed: first and last eight bytes. */
    private final long[] sourceGid = new long[2];

    private long datagramsSent;
    private long datagramsReceived;
    private long unknownPeerDatagrams;
    private long emptyDatagrams;
    private long longDatagrams;
    private long sendErrors;
    private long receiveErrors;
    private long recoveries;
    private long staleCompletions;
    private long unreachableDatagrams;
    private long oversizeDatagrams;
    private long sendsPosted;
    private long sendsCompleted;
    private long regionSends;
    /** The registered region {@link #sendFromRegion} posts payloads from; null until asked for. */
    private MemoryRegion payloadRegion;
    /** Address handles of left groups still read by sends in flight (a device may read the AH when it sends). */
    private final ArrayList<RetiredRoute> retiredRoutes = new ArrayList<>();
    /** Multicast: a datagram from this queue pair itself is dropped (some devices loop a group send back to it). */
    private boolean dropOwnDatagrams;
    private long ownGidHigh;
    private long ownGidLow;
    private int ownLid;
    private long ownDatagrams;

    /**
     * An endpoint that makes address handles on the calling thread: for devices whose {@code ibv_create_ah} never
     * waits (the soft provider) and tests.
     *
     * @see #UdDatagramEndpoint(VerbsContext, int, int, int, int, Executor)
     */
    public UdDatagramEndpoint(
        final VerbsContext context,
        final int maxDatagramLength,
        final int receiveSlots,
        final int sendSlots,
        final int qkey) throws IOException
    {
        this(context, maxDatagramLength, receiveSlots, sendSlots, qkey, Runnable::run);
    }

    /**
     * Creates the queue pair, its completion queues and registered regions, and posts every receive slot.
     *
     * @param context               the device.
     * @param maxDatagramLength     longest datagram sent or delivered, at most the port's UD MTU.
     * @param receiveSlots          receive slots kept posted.
     * @param sendSlots             send slots, so sends in flight at once.
     * @param qkey                  Q_Key of this queue pair; peers send with the one in its address.
     * @param addressHandleExecutor where {@link #resolve} makes address handles: a thread that may block (hardware),
     *                              or {@code Runnable::run}.
     * @throws IOException when the device refuses a resource; whatever was made is released.
     */
    public UdDatagramEndpoint(
        final VerbsContext context,
        final int maxDatagramLength,
        final int receiveSlots,
        final int sendSlots,
        final int qkey,
        final Executor addressHandleExecutor) throws IOException
    {
        if (maxDatagramLength < 1 || receiveSlots < 1 || sendSlots < 1)
        {
            throw new IllegalArgumentException(
                "maxDatagramLength, receiveSlots and sendSlots must be positive: " + maxDatagramLength + ", " +
                receiveSlots + ", " + sendSlots);
        }
        final int mtu = context.udMtu();
        if (maxDatagramLength > mtu)
        {
            throw new IllegalArgumentException("datagrams of " + maxDatagramLength + " bytes do not fit the UD MTU of " +
                context.deviceName() + " (" + mtu + " bytes)");
        }
        if (mtu < MIN_MTU || mtu > MAX_MTU)
        {
            throw new IllegalArgumentException("UD MTU " + mtu + " of " + context.deviceName() + " outside [" + MIN_MTU +
                ", " + MAX_MTU + "]");
        }
        this.context = context;
        this.addressHandleExecutor = addressHandleExecutor;
        this.maxDatagramLength = maxDatagramLength;
        this.mtu = mtu;
        this.receiveSlots = receiveSlots;
        this.sendSlots = sendSlots;
        this.receiveStride = BitUtil.align(mtu + GRH_LENGTH, 64);

        ProtectionDomain pd = null;
        CompletionQueue sendCq = null;
        CompletionQueue receiveCq = null;
        QueuePair queuePair = null;
        MemoryRegion receiveRegion = null;
        MemoryRegion sendRegion = null;
        try
        {
            pd = context.allocateProtectionDomain();
            // Twice the requests: completions left from before a recovery must never overrun a queue.
            sendCq = context.createCompletionQueue(2 * sendSlots);
            receiveCq = context.createCompletionQueue(2 * receiveSlots);
            queuePair = context.createUdQueuePair(
                new QueuePairConfig(pd, sendCq, receiveCq, sendSlots, receiveSlots, 0, 0, 0, qkey));
            receiveRegion = pd.register(direct((long)receiveSlots * receiveStride), Access.LOCAL_WRITE);
            sendRegion = pd.register(direct((long)sendSlots * maxDatagramLength), Access.LOCAL_WRITE);
        }
        catch (final IOException | RuntimeException ex)
        {
            closeAll(queuePair, receiveRegion, sendRegion, sendCq, receiveCq, pd);
            throw ex;
        }
        this.pd = pd;
        this.sendCq = sendCq;
        this.receiveCq = receiveCq;
        this.queuePair = queuePair;
        this.receiveRegion = receiveRegion;
        this.sendRegion = sendRegion;
        receiveBuffer = new UnsafeBuffer(receiveRegion.buffer());
        sendBuffer = new UnsafeBuffer(sendRegion.buffer());
        final UdAddress address = queuePair.udAddress();
        localAddress = address.gid() + "/" + address.qpNumber() + "/" + Integer.toUnsignedString(address.qkey()) + "/" +
            mtu;

        sendCompletions = newCompletions(Math.min(COMPLETION_BATCH, sendSlots));
        final WorkCompletion[] shared = newCompletions(Math.min(COMPLETION_BATCH, receiveSlots));
        receiveCompletions = new WorkCompletion[shared.length + 1][];
        for (int n = 0; n <= shared.length; n++)
        {
            receiveCompletions[n] = Arrays.copyOf(shared, n);
        }
        drained = newCompletions(COMPLETION_BATCH);
        receiveChain = new ReceiveWorkRequest[Math.min(COMPLETION_BATCH, receiveSlots)];
        for (int i = 0; i < receiveChain.length; i++)
        {
            receiveChain[i] = new ReceiveWorkRequest();
        }
        freeSendSlots = new int[sendSlots];
        lostAfter = new int[sendSlots];
        reclaimSendSlots();

        try
        {
            postEveryReceive();
        }
        catch (final IOException ex)
        {
            close();
            throw ex;
        }
    }

    @Override
    public int maxDatagramLength()
    {
        return maxDatagramLength;
    }

    /** @return the largest datagram this endpoint's receive slots take: the port's UD MTU, named in its address. */
    public int mtu()
    {
        return mtu;
    }

    @Override
    public String localAddress()
    {
        return localAddress;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Hands out the handle at once; the address handle is made on the executor (see the class comment). An address
     * resolved before gets its handle again, and a new attempt if making its address handle failed.
     *
     * @throws IllegalArgumentException when the address is malformed (it comes from the network).
     * @throws UncheckedIOException     when the address handle could not be made before this returned (a direct
     *                                  executor, or the executor refused the task).
     */
    @Override
    public int resolve(final String address)
    {
        checkOpen();
        if (null == address)
        {
            throw malformed(null, "no address");
        }
        final int known = peerByAddress.getValue(address);
        final Peer peer;
        if (known != NO_PEER)
        {
            peer = peers[known];
            if (null == peer.failure)
            {
                return known; // made, or being made
            }
            peer.failure = null; // its task has ended: another chance, the neighbour may answer now
        }
        else
        {
            final UdAddress remote = parse(address);
            if (remote.qpNumber() == MulticastMembership.QP_NUMBER)
            {
                // A peer must not make this endpoint send to a multicast group: groups are joined, not resolved.
                throw malformed(address, "QP number 16777215 is the multicast destination, not a peer's queue pair");
            }
            final int mtu = parseMtu(address);
            final Gid source;
            try
            {
                source = context.udSourceOf(remote);
            }
            catch (final VerbsException | RuntimeException ex)
            {
                throw new IllegalArgumentException("not a UD address of this provider: " + shown(address) + ": " +
                    ex.getMessage(), ex);
            }
            peer = add(address, remote, mtu, source);
        }
        createRoute(peer);
        final IOException failure = peer.failure;
        if (null != failure)
        {
            throw new UncheckedIOException("cannot make an address handle for " + address + ": " + failure.getMessage(),
                failure);
        }
        return peer.handle;
    }

    @Override
    public boolean send(final int peer, final DirectBuffer buffer, final int offset, final int length)
    {
        final Peer target = peer(peer);
        if (length < 1 || length > maxDatagramLength)
        {
            throw new IllegalArgumentException("datagram length " + length + " not in 1.." + maxDatagramLength);
        }
        final AddressHandle route = target.route;
        if (null == route)
        {
            return null != target.failure && lose(target, true);
        }
        if (length > target.maxDatagramLength)
        {
            return lose(target, false);
        }
        if (recoveryFailed || freeSendSlotCount == 0)
        {
            return false;
        }
        final int slot = freeSendSlots[--freeSendSlotCount];
        final int slotOffset = slot * maxDatagramLength;
        sendBuffer.putBytes(slotOffset, buffer, offset, length);
        sendRequest.clear()
            .wrId(workRequestId(slot))
            .opcode(Opcode.SEND)
            .flags(SendWorkRequest.SIGNALED)
            .addSge(sendRegion.address() + slotOffset, length, sendRegion.lkey())
            .ud(route, target.remote.qpNumber(), target.remote.qkey());
        return post(slot);
    }

    /** Registers {@code length} bytes for {@link #sendFromRegion}; once per endpoint (null after that). */
    @Override
    public UnsafeBuffer allocateSendRegion(final int length)
    {
        checkOpen();
        if (payloadRegion != null || length < 1)
        {
            return null;
        }
        try
        {
            payloadRegion = pd.register(BufferUtil.allocateDirectAligned(BitUtil.align(length, 64), 64)
                .order(ByteOrder.nativeOrder()), Access.LOCAL_WRITE);
        }
        catch (final IOException ex)
        {
            return null; // the device refuses more memory: the publisher copies instead
        }
        return new UnsafeBuffer(payloadRegion.buffer());
    }

    @Override
    public boolean sendFromRegion(
        final int peer,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final int regionOffset,
        final int payloadLength)
    {
        if (payloadRegion == null)
        {
            throw new UnsupportedOperationException("no send region: call allocateSendRegion first");
        }
        final Peer target = peer(peer);
        final long length = (long)headerLength + payloadLength;
        if (headerLength < 0 || payloadLength < 0 || length < 1 || length > maxDatagramLength ||
            regionOffset < 0 || (long)regionOffset + payloadLength > payloadRegion.buffer().capacity())
        {
            throw new IllegalArgumentException("datagram of header " + headerLength + " and payload " + payloadLength +
                " at " + regionOffset + " does not fit " + maxDatagramLength + " bytes or the send region");
        }
        final AddressHandle route = target.route;
        if (null == route)
        {
            return null != target.failure && lose(target, true);
        }
        if (length > target.maxDatagramLength)
        {
            return lose(target, false);
        }
        if (recoveryFailed || freeSendSlotCount == 0)
        {
            return false;
        }
        final int slot = freeSendSlots[--freeSendSlotCount];
        final int slotOffset = slot * maxDatagramLength;
        sendBuffer.putBytes(slotOffset, header, headerOffset, headerLength);
        sendRequest.clear()
            .wrId(workRequestId(slot))
            .opcode(Opcode.SEND)
            .flags(SendWorkRequest.SIGNALED);
        if (headerLength > 0)
        {
            sendRequest.addSge(sendRegion.address() + slotOffset, headerLength, sendRegion.lkey());
        }
        if (payloadLength > 0)
        {
            sendRequest.addSge(payloadRegion.address() + regionOffset, payloadLength, payloadRegion.lkey());
        }
        sendRequest.ud(route, target.remote.qpNumber(), target.remote.qkey());
        if (!post(slot))
        {
            return false;
        }
        regionSends++;
        return true;
    }

    @Override
    public long sendsPosted()
    {
        return sendsPosted;
    }

    @Override
    public long sendsCompleted()
    {
        return sendsCompleted;
    }

    /** @return datagrams posted with their payload read from the send region (no copy). */
    public long regionSends()
    {
        return regionSends;
    }

    /**
     * Reaps send completions (freeing their slots), then delivers up to {@code limit} received datagrams, each with the
     * resolved peer whose source GID (or LID) and QP number it carries, else {@link #UNKNOWN_PEER}. An error
     * completion of either kind brings the queue pair back (see the class comment) before this returns.
     */
    @Override
    public int poll(final DatagramHandler handler, final int limit)
    {
        checkOpen();
        try
        {
            reapSends();
            if (!retiredRoutes.isEmpty())
            {
                closeRetiredRoutes();
            }
            if (recoveryNeeded)
            {
                recover();
            }
            int delivered = 0;
            while (delivered < limit && !recoveryNeeded)
            {
                final WorkCompletion[] batch =
                    receiveCompletions[Math.min(limit - delivered, receiveCompletions.length - 1)];
                final int count = receiveCq.poll(batch);
                int i = 0;
                try
                {
                    for (; i < count; i++)
                    {
                        delivered += onReceive(batch[i], handler);
                    }
                }
                finally
                {
                    // A handler that threw leaves the rest of the batch undelivered; their slots go back all the same.
                    for (i++; i < count; i++)
                    {
                        onReceive(batch[i], null);
                    }
                    postFreedReceives();
                }
                if (count < batch.length)
                {
                    break;
                }
            }
            if (recoveryNeeded)
            {
                recover();
            }
            return delivered;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("UD poll failed", ex);
        }
    }

    /** @return send slots free now. */
    public int freeSendSlots()
    {
        return freeSendSlotCount;
    }

    /** @return the number of this endpoint's queue pair. */
    public int qpNumber()
    {
        return queuePair.qpNumber();
    }

    /** @return peers resolved so far (each with its own address handle, once made). */
    public int peerCount()
    {
        return peerCount;
    }

    /**
     * @param peer a handle from {@link #resolve}.
     * @return true once the peer's address handle is made: sends to it are posted.
     */
    public boolean isReachable(final int peer)
    {
        return null != peer(peer).route;
    }

    /**
     * @param peer a handle from {@link #resolve}.
     * @return why the peer's address handle could not be made, or null.
     */
    public IOException unreachableCause(final int peer)
    {
        return peer(peer).failure;
    }

    /** @return datagrams posted for sending. */
    public long datagramsSent()
    {
        return datagramsSent;
    }

    /** @return datagrams delivered to a handler. */
    public long datagramsReceived()
    {
        return datagramsReceived;
    }

    /** @return delivered datagrams whose source was not a (distinguishable) resolved peer. */
    public long unknownPeerDatagrams()
    {
        return unknownPeerDatagrams;
    }

    /** @return receives that carried no payload (not delivered). */
    public long emptyDatagrams()
    {
        return emptyDatagrams;
    }

    /** @return receives longer than {@link #maxDatagramLength()} (not delivered): a peer with other settings, or forged. */
    public long longDatagrams()
    {
        return longDatagrams;
    }

    /** @return send completions with an error status (flushes included), and sends the device refused to post. */
    public long sendErrors()
    {
        return sendErrors;
    }

    /** @return receive completions with an error status (flushes included), and receives it refused to post. */
    public long receiveErrors()
    {
        return receiveErrors;
    }

    /** @return times the queue pair was brought back from ERROR. */
    public long recoveries()
    {
        return recoveries;
    }

    /** @return completions of requests posted before a recovery, ignored. */
    public long staleCompletions()
    {
        return staleCompletions;
    }

    /** @return datagrams accepted for a peer whose address handle could not be made, and dropped. */
    public long unreachableDatagrams()
    {
        return unreachableDatagrams;
    }

    /** @return datagrams from this endpoint's own queue pair (a group send looped back), dropped. */
    public long ownDatagrams()
    {
        return ownDatagrams;
    }

    /** @return datagrams accepted for a peer whose MTU is smaller than they are, and dropped. */
    public long oversizeDatagrams()
    {
        return oversizeDatagrams;
    }

    /**
     * Destroys the queue pair, then the address handles, regions, completion queues and protection domain. Waits, a
     * bounded time, for address handles still being made (they use the protection domain); one made later is
     * destroyed by its own task.
     */
    @Override
    public void close()
    {
        final ArrayList<AddressHandle> handles;
        final boolean stillCreating;
        synchronized (lifecycle)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            final long deadlineNs = System.nanoTime() + CLOSE_WAIT_NS;
            long waitNs;
            while (handlesInCreation > 0 && (waitNs = deadlineNs - System.nanoTime()) > 0)
            {
                try
                {
                    TimeUnit.NANOSECONDS.timedWait(lifecycle, waitNs);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            stillCreating = handlesInCreation > 0;
            handles = new ArrayList<>(addressHandles);
            addressHandles.clear();
        }
        closeAll(queuePair);
        for (int i = 0, n = handles.size(); i < n; i++)
        {
            closeAll(handles.get(i));
        }
        for (int i = 0, n = retiredRoutes.size(); i < n; i++)
        {
            closeAll(retiredRoutes.get(i).route()); // the queue pair is gone: nothing reads them any more
        }
        retiredRoutes.clear();
        closeAll(receiveRegion, sendRegion, payloadRegion, sendCq, receiveCq);
        if (stillCreating)
        {
            // ibv_create_ah is still using it: freeing it now would free memory a native call is reading.
            LOG.warn("UD endpoint {}: {} address handle(s) still being made after {} s; its protection domain is left " +
                "to the device's close", localAddress, handlesInCreation, TimeUnit.NANOSECONDS.toSeconds(CLOSE_WAIT_NS));
        }
        else
        {
            closeAll(pd);
        }
    }

    @Override
    public String toString()
    {
        return "UdDatagramEndpoint{" + localAddress + ", peers=" + peerCount + "}";
    }

    // ---------------------------------------------------------------------------------------------- peers

    private Peer add(final String address, final UdAddress remote, final int mtu, final Gid source)
    {
        final int handle = peerCount;
        if (handle == peers.length)
        {
            peers = Arrays.copyOf(peers, handle * 2);
        }
        final Peer peer = new Peer(handle, address, remote, mtu, maxDatagramLength, source);
        peers[handle] = peer;
        peerCount++;
        peerByAddress.put(address, handle);
        final Peer[] sameNumber = peersByQpNumber.get(remote.qpNumber());
        final Peer[] grown = null == sameNumber ? new Peer[1] : Arrays.copyOf(sameNumber, sameNumber.length + 1);
        grown[grown.length - 1] = peer;
        peersByQpNumber.put(remote.qpNumber(), grown);
        return peer;
    }

    /** Conductor: has the executor make the peer's address handle; with a direct executor it is made on return. */
    private void createRoute(final Peer peer)
    {
        try
        {
            addressHandleExecutor.execute(() -> makeRoute(peer));
        }
        catch (final RejectedExecutionException ex)
        {
            peer.failure = new IOException("the address handle executor refused the task: " + ex.getMessage(), ex);
        }
    }

    /** The executor's thread (or the conductor's, with a direct executor): {@code ibv_create_ah}, which may block. */
    private void makeRoute(final Peer peer)
    {
        synchronized (lifecycle)
        {
            if (closed)
            {
                return;
            }
            handlesInCreation++;
        }
        AddressHandle route = null;
        IOException failure = null;
        try
        {
            route = null == peer.group ? context.createAddressHandle(pd, peer.remote) :
                context.createAddressHandle(pd, peer.group);
        }
        catch (final IOException ex)
        {
            failure = ex;
        }
        catch (final RuntimeException ex)
        {
            failure = new IOException(ex.toString(), ex);
        }
        boolean orphan = false;
        synchronized (lifecycle)
        {
            handlesInCreation--;
            if (closed || peer.retired)
            {
                orphan = true;
            }
            else if (null != route)
            {
                addressHandles.add(route);
                peer.route = route; // volatile: the conductor sees a handle made whole
            }
            else
            {
                peer.failure = failure;
            }
            lifecycle.notifyAll();
        }
        if (orphan)
        {
            closeAll(route);
        }
        else if (null != failure)
        {
            LOG.warn("UD endpoint {}: no address handle for {}: {}; datagrams to it are dropped", localAddress,
                peer.address, failure.getMessage());
        }
    }

    private Peer peer(final int peer)
    {
        if (peer < 0 || peer >= peerCount || peers[peer].retired)
        {
            throw new IllegalArgumentException("no peer " + peer);
        }
        return peers[peer];
    }

    // ---------------------------------------------------------------------------------------------- groups (subclass)

    /** @return the device context (the conductor's, or a multicast endpoint's own). */
    final VerbsContext context()
    {
        return context;
    }

    /** @return the queue pair, to attach to and detach from groups. */
    final QueuePair queuePair()
    {
        return queuePair;
    }

    /**
     * Drops every received datagram whose source is this queue pair itself (a group send the device looped back).
     *
     * @throws IOException when the provider cannot tell this queue pair's own source GID.
     */
    final void dropOwnDatagrams() throws IOException
    {
        final Gid own = context.udSourceOf(queuePair.udAddress());
        ownGidHigh = own.high();
        ownGidLow = own.low();
        ownLid = own.lid();
        dropOwnDatagrams = true;
    }

    /**
     * A new peer handle for a multicast group: sends to it return false until {@link #routeGroup} made its address
     * handle. Never a datagram's source, and never found by address (each join is its own handle).
     *
     * @param group the group's text, for messages.
     */
    final int addGroupPeer(final String group)
    {
        checkOpen();
        final int handle = peerCount;
        if (handle == peers.length)
        {
            peers = Arrays.copyOf(peers, handle * 2);
        }
        peers[handle] = new Peer(handle, group, maxDatagramLength);
        peerCount++;
        return handle;
    }

    /** The group is joined: its address handle is made (on the executor) from the membership. */
    final void routeGroup(final int handle, final MulticastMembership membership)
    {
        final Peer peer = peer(handle);
        peer.remote = membership.destination();
        peer.group = membership;
        createRoute(peer);
    }

    /**
     * The group is left: its handle is no longer valid, and its address handle is destroyed once the sends posted so far
     * have completed (at once when none is outstanding).
     */
    final void retireGroupPeer(final int handle)
    {
        final Peer peer = peer(handle);
        final AddressHandle route;
        synchronized (lifecycle)
        {
            peer.retired = true;
            route = peer.route;
            peer.route = null;
            if (null != route)
            {
                addressHandles.remove(route);
            }
        }
        if (null != route)
        {
            retiredRoutes.add(new RetiredRoute(route, sendsPosted));
            closeRetiredRoutes();
        }
    }

    private void closeRetiredRoutes()
    {
        for (int i = retiredRoutes.size() - 1; i >= 0; i--)
        {
            final RetiredRoute retired = retiredRoutes.get(i);
            if (sendsCompleted >= retired.lastSend())
            {
                retiredRoutes.remove(i);
                closeAll(retired.route());
            }
        }
    }

    private boolean isOwn(final WorkCompletion completion, final int base)
    {
        if (completion.sourceQpNumber() != queuePair.qpNumber())
        {
            return false;
        }
        if (completion.hasGrh())
        {
            return readSourceGid(receiveBuffer, base, sourceGid) && sourceGid[0] == ownGidHigh &&
                sourceGid[1] == ownGidLow;
        }
        return completion.sourceLid() == ownLid;
    }

    /**
     * @return the resolved peer whose (source GID or LID, QP number) the receive in the slot at {@code base} carries,
     *         or {@link #UNKNOWN_PEER} for none or more than one.
     */
    private int sourceOf(final WorkCompletion completion, final int base)
    {
        final Peer[] candidates = peersByQpNumber.get(completion.sourceQpNumber());
        if (null == candidates)
        {
            return UNKNOWN_PEER;
        }
        final boolean byGid = completion.hasGrh();
        if (byGid && !readSourceGid(receiveBuffer, base, sourceGid))
        {
            return UNKNOWN_PEER;
        }
        final int lid = completion.sourceLid();
        int found = UNKNOWN_PEER;
        for (final Peer candidate : candidates)
        {
            final boolean match = byGid ?
                candidate.gidHigh == sourceGid[0] && candidate.gidLow == sourceGid[1] :
                candidate.lid == lid;
            if (match)
            {
                if (found != UNKNOWN_PEER)
                {
                    return UNKNOWN_PEER; // two resolved peers look alike: name neither
                }
                found = candidate.handle;
            }
        }
        return found;
    }

    /**
     * Reads the sender's GID from the 40 bytes before a UD receive's payload, telling the two layouts apart as
     * rdma-core's {@code get_grh_header_version} ({@code ibv_init_ah_from_wc}) does: an IPv4 header (RoCE v2 over
     * IPv4, source address at bytes 32..35) in bytes 20..39 when byte 0 is not IPv6's version 6 and byte 20 says
     * version 4, or when byte 0 does say 6 but bytes 20..39 are a 20-byte IPv4 header with a valid checksum (bytes
     * 0..19 are undefined then and may hold anything, an older datagram's GRH included); else an IPv6-style GRH (RoCE
     * over IPv6, RoCE v1, InfiniBand) with the source GID at bytes 8..23.
     *
     * @param grh    the receive buffer.
     * @param offset of the 40 bytes.
     * @param gid    receives the GID's first and last eight bytes, big-endian (IPv4 as {@code ::ffff:a.b.c.d}).
     * @return false when the bytes are neither (the sender cannot be named).
     */
    static boolean readSourceGid(final DirectBuffer grh, final int offset, final long[] gid)
    {
        final int ipv6Version = (grh.getByte(offset) & 0xF0) >>> 4;
        final int ipv4First = grh.getByte(offset + GRH_IPV4_HEADER) & 0xFF;
        final boolean ipv4;
        if (ipv6Version != 6)
        {
            if ((ipv4First >>> 4) != 4)
            {
                return false;
            }
            ipv4 = true;
        }
        else
        {
            ipv4 = (ipv4First & 0x0F) == 5 && isIpv4HeaderChecksumValid(grh, offset + GRH_IPV4_HEADER);
        }
        if (ipv4)
        {
            gid[0] = 0;
            gid[1] = IPV4_MAPPED_PREFIX | (grh.getInt(offset + IPV4_SOURCE_ADDRESS, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL);
        }
        else
        {
            gid[0] = grh.getLong(offset + GRH_SOURCE_GID, ByteOrder.BIG_ENDIAN);
            gid[1] = grh.getLong(offset + GRH_SOURCE_GID + 8, ByteOrder.BIG_ENDIAN);
        }
        return true;
    }

    /** @return true when the ones' complement sum of the 20-byte header's ten 16-bit words, checksum included, is all ones. */
    static boolean isIpv4HeaderChecksumValid(final DirectBuffer buffer, final int offset)
    {
        int sum = 0;
        for (int i = 0; i < 20; i += 2)
        {
            sum += buffer.getShort(offset + i, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        return sum == 0xFFFF;
    }

    // ---------------------------------------------------------------------------------------------- sends

    private long workRequestId(final int slot)
    {
        return ((long)generation << 32) | slot;
    }

    private boolean post(final int slot)
    {
        try
        {
            queuePair.postSend(sendRequest);
        }
        catch (final IOException ex)
        {
            freeSendSlots[freeSendSlotCount++] = slot;
            sendErrors++;
            onPostFailure("send", ex);
            return false; // nothing went out: the caller tries again once the queue pair is back
        }
        lostAfter[slot] = 0;
        lastPostedSlot = slot;
        datagramsSent++;
        sendsPosted++;
        return true;
    }

    /**
     * Accepts a datagram that must not be posted (no route to the peer, or longer than its MTU): it is lost, as the
     * network would lose it, and completes in posting order with the sends before it.
     */
    private boolean lose(final Peer target, final boolean unreachable)
    {
        sendsPosted++;
        if (freeSendSlotCount == sendSlots)
        {
            sendsCompleted++;
        }
        else
        {
            lostAfter[lastPostedSlot]++;
        }
        if (unreachable)
        {
            unreachableDatagrams++;
            if (!target.warnedUnreachable)
            {
                target.warnedUnreachable = true;
                LOG.warn("UD endpoint {}: dropping datagrams to {}: no address handle ({})", localAddress,
                    target.address, target.failure.getMessage());
            }
        }
        else
        {
            oversizeDatagrams++;
            if (!target.warnedOversize)
            {
                target.warnedOversize = true;
                LOG.warn("UD endpoint {}: dropping datagrams longer than the {} bytes {} takes (its MTU)", localAddress,
                    target.maxDatagramLength, target.address);
            }
        }
        return true;
    }

    private void reapSends() throws IOException
    {
        int count;
        do
        {
            count = sendCq.poll(sendCompletions);
            for (int i = 0; i < count; i++)
            {
                final WorkCompletion completion = sendCompletions[i];
                final long wrId = completion.wrId();
                if ((int)(wrId >>> 32) != generation)
                {
                    staleCompletions++; // its slot came back when the queue pair was recovered
                    continue;
                }
                if (completion.status() != WcStatus.SUCCESS)
                {
                    sendErrors++;
                    onErrorCompletion("send", completion);
                }
                final int slot = (int)wrId;
                // A queue pair's sends complete in the order they were posted, with the datagrams lost after each.
                sendsCompleted += 1 + lostAfter[slot];
                lostAfter[slot] = 0;
                freeSendSlots[freeSendSlotCount++] = slot;
            }
        }
        while (count == sendCompletions.length);
    }

    /** Every send slot free, every send accepted completed: nothing outstanding (at start, and after a recovery). */
    private void reclaimSendSlots()
    {
        for (int i = 0; i < sendSlots; i++)
        {
            freeSendSlots[i] = sendSlots - 1 - i;
            lostAfter[i] = 0;
        }
        freeSendSlotCount = sendSlots;
        lastPostedSlot = NO_SLOT;
        sendsCompleted = sendsPosted;
    }

    // ---------------------------------------------------------------------------------------------- receives

    /** @return 1 when the datagram was delivered to the handler (null: reclaim the slot only), else 0. */
    private int onReceive(final WorkCompletion completion, final DatagramHandler handler)
    {
        final long wrId = completion.wrId();
        if ((int)(wrId >>> 32) != generation)
        {
            staleCompletions++; // posted again when the queue pair was recovered
            return 0;
        }
        if (completion.status() != WcStatus.SUCCESS)
        {
            receiveErrors++;
            onErrorCompletion("receive", completion);
            return 0; // the recovery posts every slot again
        }
        final int slot = (int)wrId;
        queueReceive(slot);
        final int length = completion.byteLength() - GRH_LENGTH;
        if (length < 1)
        {
            emptyDatagrams++;
            return 0;
        }
        if (length > maxDatagramLength)
        {
            longDatagrams++;
            return 0;
        }
        if (null == handler)
        {
            return 0;
        }
        final int base = slot * receiveStride;
        if (dropOwnDatagrams && isOwn(completion, base))
        {
            ownDatagrams++;
            return 0;
        }
        final int peer = sourceOf(completion, base);
        if (peer == UNKNOWN_PEER)
        {
            unknownPeerDatagrams++;
        }
        datagramsReceived++;
        handler.onDatagram(peer, receiveBuffer, base + GRH_LENGTH, length);
        return 1;
    }

    private void queueReceive(final int slot)
    {
        receiveChain[receiveChainLength++].set(workRequestId(slot), receiveRegion.address() + (long)slot * receiveStride,
            receiveStride, receiveRegion.lkey());
    }

    /** Posts the slots this batch freed as one chain (one call into the device's library). */
    private void postFreedReceives()
    {
        final int count = receiveChainLength;
        receiveChainLength = 0;
        if (count == 0 || recoveryNeeded)
        {
            return; // a recovery posts every slot again
        }
        try
        {
            queuePair.postReceive(receiveChain, count);
        }
        catch (final IOException ex)
        {
            receiveErrors++;
            onPostFailure("receive", ex);
        }
    }

    private void postEveryReceive() throws IOException
    {
        receiveChainLength = 0;
        for (int slot = 0; slot < receiveSlots; slot++)
        {
            queueReceive(slot);
            if (receiveChainLength == receiveChain.length || slot == receiveSlots - 1)
            {
                final int count = receiveChainLength;
                receiveChainLength = 0;
                queuePair.postReceive(receiveChain, count);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- errors

    private void onErrorCompletion(final String kind, final WorkCompletion completion)
    {
        recoveryNeeded = true;
        if (shouldWarn())
        {
            LOG.warn("UD endpoint {}: a {} completed with {} (vendor error 0x{}); recovering the queue pair ({} send " +
                "and {} receive errors so far{})", localAddress, kind, completion.status(),
                Integer.toHexString(completion.vendorError()), sendErrors, receiveErrors, suppressed());
        }
    }

    private void onPostFailure(final String kind, final IOException ex)
    {
        recoveryNeeded = true;
        if (shouldWarn())
        {
            LOG.warn("UD endpoint {}: posting a {} failed: {}; recovering the queue pair{}", localAddress, kind,
                ex.getMessage(), suppressed());
        }
    }

    /** At most one warning a second: a flood of errors (a hostile sender, a failing device) must not flood the log. */
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

    /**
     * Brings the queue pair back from ERROR in place: RESET to RTS (number and Q_Key kept), the completions left in
     * both queues dropped, every send outstanding forgotten (the device no longer reads it), every receive slot posted
     * again under a new generation. A device that refuses is tried again a second later; meanwhile sends report
     * back-pressure.
     */
    private void recover()
    {
        final long nowNs = System.nanoTime();
        if (recoveryFailed && nowNs - nextRecoveryNs < 0)
        {
            return;
        }
        generation++;
        receiveChainLength = 0;
        try
        {
            queuePair.recover();
            drain(sendCq);
            drain(receiveCq);
            reclaimSendSlots();
            postEveryReceive();
        }
        catch (final IOException | RuntimeException ex)
        {
            reclaimSendSlots();
            recoveryFailed = true;
            nextRecoveryNs = nowNs + RECOVERY_RETRY_NS;
            LOG.error("UD endpoint {}: cannot recover the queue pair ({}); trying again in {} ms", localAddress,
                ex.getMessage(), TimeUnit.NANOSECONDS.toMillis(RECOVERY_RETRY_NS));
            return;
        }
        recoveries++;
        recoveryNeeded = false;
        recoveryFailed = false;
    }

    /** Drops what a completion queue holds (after a reset, completions of requests that no longer exist). */
    private void drain(final CompletionQueue cq) throws IOException
    {
        int count;
        do
        {
            count = cq.poll(drained);
            staleCompletions += count;
        }
        while (count == drained.length);
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("endpoint closed");
        }
    }

    // ---------------------------------------------------------------------------------------------- addresses

    /**
     * Parses the {@code gid/qpNumber/qkey} of {@code gid/qpNumber/qkey/mtu}, from the right: the gid may itself hold
     * {@code /}. Strict, as it comes from the network: decimal digits only (no sign, no spaces), QP number 2 to
     * 2^24 - 1, Q_Key an unsigned 32-bit number, a gid of printable ASCII; the provider reads the gid itself.
     *
     * @throws IllegalArgumentException naming what is wrong.
     */
    static UdAddress parse(final String address)
    {
        final int[] bounds = split(address);
        final long qpNumber = number(address, bounds[0] + 1, bounds[1], "QP number");
        final long qkey = number(address, bounds[1] + 1, bounds[2], "Q_Key");
        if (qpNumber < 2 || qpNumber > 0xFFFFFF)
        {
            throw malformed(address, "QP number " + qpNumber + " outside 2..16777215");
        }
        if (qkey > 0xFFFF_FFFFL)
        {
            throw malformed(address, "Q_Key " + qkey + " is not a 32-bit number");
        }
        return new UdAddress(address.substring(0, bounds[0]), (int)qpNumber, (int)qkey);
    }

    /** @return the MTU of {@code gid/qpNumber/qkey/mtu}, within [{@link #MIN_MTU}, {@link #MAX_MTU}]. */
    static int parseMtu(final String address)
    {
        final int[] bounds = split(address);
        final long mtu = number(address, bounds[2] + 1, address.length(), "MTU");
        if (mtu < MIN_MTU || mtu > MAX_MTU)
        {
            throw malformed(address, "MTU " + mtu + " outside " + MIN_MTU + ".." + MAX_MTU);
        }
        return (int)mtu;
    }

    /** @return the positions of the last three slashes, checked: a gid of printable ASCII before the first. */
    private static int[] split(final String address)
    {
        if (null == address || address.length() > MAX_ADDRESS_LENGTH)
        {
            throw malformed(address, "expected gid/qpNumber/qkey/mtu of at most " + MAX_ADDRESS_LENGTH + " characters");
        }
        final int third = address.lastIndexOf('/');
        final int second = third <= 0 ? -1 : address.lastIndexOf('/', third - 1);
        final int first = second <= 0 ? -1 : address.lastIndexOf('/', second - 1);
        if (first <= 0)
        {
            throw malformed(address, "expected gid/qpNumber/qkey/mtu");
        }
        for (int i = 0; i < first; i++)
        {
            final char c = address.charAt(i);
            if (c <= ' ' || c > '~')
            {
                throw malformed(address, "the gid holds a character that is not printable ASCII");
            }
        }
        return new int[] {first, second, third};
    }

    private static long number(final String address, final int start, final int end, final String what)
    {
        if (start >= end || end - start > 10)
        {
            throw malformed(address, "the " + what + " must be 1 to 10 decimal digits");
        }
        long value = 0;
        for (int i = start; i < end; i++)
        {
            final char c = address.charAt(i);
            if (c < '0' || c > '9')
            {
                throw malformed(address, "the " + what + " must be decimal digits only");
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static IllegalArgumentException malformed(final String address, final String why)
    {
        return new IllegalArgumentException("not a UD address (gid/qpNumber/qkey/mtu): " + shown(address) + ": " + why);
    }

    private static String shown(final String address)
    {
        return null == address ? "null" : address.length() > 80 ? "'" + address.substring(0, 80) + "...'" :
            "'" + address + "'";
    }

    private static ByteBuffer direct(final long length)
    {
        if (length > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("region of " + length + " bytes is too large");
        }
        return ByteBuffer.allocateDirect((int)length).order(ByteOrder.nativeOrder());
    }

    private static WorkCompletion[] newCompletions(final int count)
    {
        final WorkCompletion[] completions = new WorkCompletion[count];
        for (int i = 0; i < count; i++)
        {
            completions[i] = new WorkCompletion();
        }
        return completions;
    }

    private static void closeAll(final AutoCloseable... resources)
    {
        for (final AutoCloseable resource : resources)
        {
            if (resource != null)
            {
                try
                {
                    resource.close();
                }
                catch (final Exception ignore)
                {
                    // Closing the rest matters more than one failure on the way down.
                }
            }
        }
    }
}
