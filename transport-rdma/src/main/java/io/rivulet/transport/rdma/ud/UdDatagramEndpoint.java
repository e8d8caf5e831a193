package io.rivulet.transport.rdma.ud;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Object2IntHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;

/**
 * A {@link DatagramEndpoint} over one UD queue pair: however many peers it reaches, a node needs one queue
 * pair, one receive region and one send region.
 *
 * <p>The receive region holds {@code receiveSlots} slots of {@code maxDatagramLength} plus the 40-byte GRH
 * a UD receive starts with; every slot stays posted and is reposted as soon as its datagram has been handed
 * to the handler. The send region holds {@code sendSlots} slots; {@link #send} copies into a free slot and
 * posts a signalled SEND, and the slot comes back when {@link #poll} reaps its completion. With no free slot
 * {@code send} returns false.
 *
 * <p>Stored once: {@link #allocateSendRegion} registers one more region (a publisher's ring); a
 * {@link #sendFromRegion} copies only the header into a send slot and posts a SEND of two scatter-gather entries,
 * the header then the payload where it lies in that region, so one stored message goes to every peer. Send
 * completions are reaped in posting order ({@link #sendsCompleted()}), which tells the ring when the device
 * has finished reading a slot.
 *
 * <p>Addresses are {@code gid/qpNumber/qkey} (the queue pair's {@link UdAddress}). {@link #resolve} makes one
 * address handle per distinct address. A received datagram is attributed to a peer by the source QP number
 * in its work completion; see {@link #poll} for the limits of that.
 *
 * <p>Single-threaded like the SPI; no allocation on {@link #send} or {@link #poll} after construction.
 */
public final class UdDatagramEndpoint implements DatagramEndpoint
{
    /** Bytes of Global Routing Header before the payload of every UD receive. */
    public static final int GRH_LENGTH = 40;

    private static final int COMPLETION_BATCH = 64;
    private static final int NO_PEER = -1;
    private static final int AMBIGUOUS_QPN = -2;

    private final VerbsContext context;
    private final int maxDatagramLength;
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
    private final ReceiveWorkRequest receiveRequest = new ReceiveWorkRequest();
    private final WorkCompletion[] sendCompletions;
    /** receiveCompletions[n] holds n shared completions, so poll can honour a limit without allocating. */
    private final WorkCompletion[][] receiveCompletions;
    private final int[] freeSendSlots;
    private int freeSendSlotCount;

    private final Object2IntHashMap<String> peerByAddress = new Object2IntHashMap<>(NO_PEER);
    private final Int2IntHashMap peerByQpNumber = new Int2IntHashMap(NO_PEER);
    private final ArrayList<AddressHandle> addressHandles = new ArrayList<>();
    private int[] peerQpNumber = new int[16];
    private int[] peerQkey = new int[16];
    private AddressHandle[] peerHandle = new AddressHandle[16];
    private int peerCount;

    private long datagramsSent;
    private long datagramsReceived;
    private long unknownPeerDatagrams;
    private long emptyDatagrams;
    private long sendErrors;
    private long sendsPosted;
    private long sendsCompleted;
    private long regionSends;
    /** The registered region {@link #sendFromRegion} posts payloads from; null until asked for. */
    private MemoryRegion payloadRegion;
    private long receiveErrors;
    private boolean closed;

    /**
     * Creates the queue pair, its completion queues and registered regions, and posts every receive slot.
     *
     * @param context           the device.
     * @param maxDatagramLength longest datagram, at most the path MTU.
     * @param receiveSlots      receive slots kept posted.
     * @param sendSlots         send slots, so sends in flight at once.
     * @param qkey              Q_Key of this queue pair; peers send with the one in its address.
     * @throws IOException when the device refuses a resource; whatever was made is released.
     */
    public UdDatagramEndpoint(
        final VerbsContext context,
        final int maxDatagramLength,
        final int receiveSlots,
        final int sendSlots,
        final int qkey) throws IOException
    {
        if (maxDatagramLength < 1 || receiveSlots < 1 || sendSlots < 1)
        {
            throw new IllegalArgumentException(
                "maxDatagramLength, receiveSlots and sendSlots must be positive: " + maxDatagramLength + ", " +
                receiveSlots + ", " + sendSlots);
        }
        this.context = context;
        this.maxDatagramLength = maxDatagramLength;
        this.receiveSlots = receiveSlots;
        this.sendSlots = sendSlots;
        this.receiveStride = maxDatagramLength + GRH_LENGTH;

        ProtectionDomain pd = null;
        CompletionQueue sendCq = null;
        CompletionQueue receiveCq = null;
        QueuePair queuePair = null;
        MemoryRegion receiveRegion = null;
        MemoryRegion sendRegion = null;
        try
        {
            pd = context.allocateProtectionDomain();
            sendCq = context.createCompletionQueue(sendSlots);
            receiveCq = context.createCompletionQueue(receiveSlots);
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
        localAddress = address.gid() + "/" + address.qpNumber() + "/" + address.qkey();

        sendCompletions = newCompletions(Math.min(COMPLETION_BATCH, sendSlots));
        final WorkCompletion[] shared = newCompletions(Math.min(COMPLETION_BATCH, receiveSlots));
        receiveCompletions = new WorkCompletion[shared.length + 1][];
        for (int n = 0; n <= shared.length; n++)
        {
            receiveCompletions[n] = java.util.Arrays.copyOf(shared, n);
        }
        freeSendSlots = new int[sendSlots];
        for (int i = 0; i < sendSlots; i++)
        {
            freeSendSlots[i] = sendSlots - 1 - i;
        }
        freeSendSlotCount = sendSlots;

        try
        {
            for (int slot = 0; slot < receiveSlots; slot++)
            {
                postReceive(slot);
            }
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

    @Override
    public String localAddress()
    {
        return localAddress;
    }

    @Override
    public int resolve(final String address)
    {
        checkOpen();
        final int known = peerByAddress.getValue(address);
        if (known != NO_PEER)
        {
            return known;
        }
        final UdAddress remote = parse(address);
        final AddressHandle handle;
        try
        {
            handle = context.createAddressHandle(pd, remote);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot make an address handle for " + address, ex);
        }
        addressHandles.add(handle);
        final int peer = peerCount++;
        if (peer == peerHandle.length)
        {
            peerHandle = java.util.Arrays.copyOf(peerHandle, peer * 2);
            peerQpNumber = java.util.Arrays.copyOf(peerQpNumber, peer * 2);
            peerQkey = java.util.Arrays.copyOf(peerQkey, peer * 2);
        }
        peerHandle[peer] = handle;
        peerQpNumber[peer] = remote.qpNumber();
        peerQkey[peer] = remote.qkey();
        peerByAddress.put(address, peer);
        // Two peers with one QP number (on different devices) cannot be told apart by it: report neither.
        final int previous = peerByQpNumber.get(remote.qpNumber());
        peerByQpNumber.put(remote.qpNumber(), previous == NO_PEER ? peer : AMBIGUOUS_QPN);
        return peer;
    }

    @Override
    public boolean send(final int peer, final DirectBuffer buffer, final int offset, final int length)
    {
        if (peer < 0 || peer >= peerCount)
        {
            throw new IllegalArgumentException("no peer " + peer);
        }
        if (length < 1 || length > maxDatagramLength)
        {
            throw new IllegalArgumentException("datagram length " + length + " not in 1.." + maxDatagramLength);
        }
        if (freeSendSlotCount == 0)
        {
            return false;
        }
        final int slot = freeSendSlots[--freeSendSlotCount];
        final int slotOffset = slot * maxDatagramLength;
        sendBuffer.putBytes(slotOffset, buffer, offset, length);
        sendRequest.clear()
            .wrId(slot)
            .opcode(Opcode.SEND)
            .flags(SendWorkRequest.SIGNALED)
            .addSge(sendRegion.address() + slotOffset, length, sendRegion.lkey())
            .ud(peerHandle[peer], peerQpNumber[peer], peerQkey[peer]);
        try
        {
            queuePair.postSend(sendRequest);
        }
        catch (final IOException ex)
        {
            freeSendSlots[freeSendSlotCount++] = slot;
            throw new UncheckedIOException("UD send failed", ex);
        }
        datagramsSent++;
        sendsPosted++;
        return true;
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
        if (peer < 0 || peer >= peerCount)
        {
            throw new IllegalArgumentException("no peer " + peer);
        }
        final long length = (long)headerLength + payloadLength;
        if (headerLength < 0 || payloadLength < 0 || length < 1 || length > maxDatagramLength ||
            regionOffset < 0 || (long)regionOffset + payloadLength > payloadRegion.buffer().capacity())
        {
            throw new IllegalArgumentException("datagram of header " + headerLength + " and payload " + payloadLength +
                " at " + regionOffset + " does not fit " + maxDatagramLength + " bytes or the send region");
        }
        if (freeSendSlotCount == 0)
        {
            return false;
        }
        final int slot = freeSendSlots[--freeSendSlotCount];
        final int slotOffset = slot * maxDatagramLength;
        sendBuffer.putBytes(slotOffset, header, headerOffset, headerLength);
        sendRequest.clear()
            .wrId(slot)
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
        sendRequest.ud(peerHandle[peer], peerQpNumber[peer], peerQkey[peer]);
        try
        {
            queuePair.postSend(sendRequest);
        }
        catch (final IOException ex)
        {
            freeSendSlots[freeSendSlotCount++] = slot;
            throw new UncheckedIOException("UD send failed", ex);
        }
        datagramsSent++;
        sendsPosted++;
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
     * Reaps send completions (freeing their slots), then delivers up to {@code limit} received datagrams.
     * The peer is the resolved peer whose QP number is the completion's source QP number; two resolved
     * peers on different devices that share a QP number are both reported as {@link #UNKNOWN_PEER}
     * (the GRH source gid would tell them apart on hardware, but the soft provider gives every device on a
     * host the same one).
     */
    @Override
    public int poll(final DatagramHandler handler, final int limit)
    {
        checkOpen();
        try
        {
            reapSends();
            int delivered = 0;
            while (delivered < limit)
            {
                final WorkCompletion[] batch =
                    receiveCompletions[Math.min(limit - delivered, receiveCompletions.length - 1)];
                final int count = receiveCq.poll(batch);
                for (int i = 0; i < count; i++)
                {
                    if (deliver(batch[i], handler))
                    {
                        delivered++;
                    }
                }
                if (count < batch.length)
                {
                    break;
                }
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

    /** @return peers resolved so far (each with its own address handle). */
    public int peerCount()
    {
        return peerCount;
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

    /** @return send completions with an error status. */
    public long sendErrors()
    {
        return sendErrors;
    }

    /** @return receive completions with an error status. */
    public long receiveErrors()
    {
        return receiveErrors;
    }

    /** Destroys the queue pair, then the address handles, regions, completion queues and protection domain. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        closeAll(queuePair);
        for (int i = 0, n = addressHandles.size(); i < n; i++)
        {
            closeAll(addressHandles.get(i));
        }
        addressHandles.clear();
        closeAll(receiveRegion, sendRegion, payloadRegion, sendCq, receiveCq, pd);
    }

    @Override
    public String toString()
    {
        return "UdDatagramEndpoint{" + localAddress + ", peers=" + peerCount + "}";
    }

    private boolean deliver(final WorkCompletion completion, final DatagramHandler handler) throws IOException
    {
        final int slot = (int)completion.wrId();
        if (completion.status() != WcStatus.SUCCESS)
        {
            receiveErrors++;
            return false; // a flushed or failed receive: the queue pair is in error, reposting would fail
        }
        final int length = completion.byteLength() - GRH_LENGTH;
        if (length < 1 || length > maxDatagramLength)
        {
            emptyDatagrams++;
            postReceive(slot);
            return false;
        }
        int peer = peerByQpNumber.get(completion.sourceQpNumber());
        if (peer < 0)
        {
            peer = UNKNOWN_PEER;
            unknownPeerDatagrams++;
        }
        datagramsReceived++;
        try
        {
            handler.onDatagram(peer, receiveBuffer, slot * receiveStride + GRH_LENGTH, length);
        }
        finally
        {
            postReceive(slot);
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
                if (completion.status() != WcStatus.SUCCESS)
                {
                    sendErrors++;
                }
                freeSendSlots[freeSendSlotCount++] = (int)completion.wrId();
                sendsCompleted++; // a queue pair's sends complete in the order they were posted
            }
        }
        while (count == sendCompletions.length);
    }

    private void postReceive(final int slot) throws IOException
    {
        queuePair.postReceive(receiveRequest.set(
            slot, receiveRegion.address() + (long)slot * receiveStride, receiveStride, receiveRegion.lkey()));
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("endpoint closed");
        }
    }

    /** Parses {@code gid/qpNumber/qkey}; the gid may itself hold colons and brackets but not a slash. */
    static UdAddress parse(final String address)
    {
        if (address == null)
        {
            throw new IllegalArgumentException("no address");
        }
        final int second = address.lastIndexOf('/');
        final int first = second <= 0 ? -1 : address.lastIndexOf('/', second - 1);
        if (first <= 0)
        {
            throw new IllegalArgumentException("not a UD address (gid/qpNumber/qkey): " + address);
        }
        try
        {
            final int qpNumber = Integer.parseInt(address, first + 1, second, 10);
            final int qkey = Integer.parseUnsignedInt(address, second + 1, address.length(), 10);
            if (qpNumber < 2 || qpNumber > 0xFFFFFF)
            {
                throw new IllegalArgumentException("QP number out of range in " + address);
            }
            return new UdAddress(address.substring(0, first), qpNumber, qkey);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("not a UD address (gid/qpNumber/qkey): " + address, ex);
        }
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
