package io.rivulet.transport.rdma;

import io.rivulet.spi.OneSidedOperation;
import io.rivulet.spi.OneSidedPath;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;

/**
 * A requester's reliable-connected queue pair to one peer's one-sided endpoint, apart from the messaging link.
 * Each operation takes one slot of a registered staging area (from the memory pool's user region): a WRITE's bytes
 * are copied there and the NIC reads them; a READ's bytes and an atomic's previous value land there. Every work
 * request is signalled; completions arrive in order.
 *
 * <p>An error completion (the target's NIC refused: wrong rkey, revoked, out of bounds, not permitted) fails that
 * operation and moves the queue pair to ERROR: the requests behind it come back flushed, never executed, and are
 * handed back to be posted on a new path. Operations still in flight when the path is lost any other way fail,
 * because they may or may not have been applied.
 *
 * <p>READs and atomics in flight are at most the smaller of what this device issues, what the target's device serves
 * and the slots ({@link RdmaOneSided#readAtomicLimit}): at the limit, {@link #post} hands a READ or an atomic back
 * (the caller posts it again later) while WRITEs, which take no responder resources, still go. Atomics between
 * devices of which one executes none fail at once, with the reason, and leave the path working.
 *
 * <p>Conductor thread only.
 */
final class RdmaOneSidedPath implements OneSidedPath
{
    /** Operations in flight at once (the send queue depth), and the most READs and atomics among them. */
    static final int SLOTS = 16;
    /** Longest READ or WRITE per operation; longer ones are split by the caller. */
    static final int SLOT_LENGTH = 8 * 1024;
    static final int STAGING_LENGTH = SLOTS * SLOT_LENGTH;
    /** How long connecting may take before the waiting operations fail. */
    static final long CONNECT_TIMEOUT_NS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

    private final String endpoint;
    private final CmConnection connection;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    private final RegisteredBuffer staging;
    private final UnsafeBuffer stagingBuffer;
    private final OneSidedOperation[] slots = new OneSidedOperation[SLOTS];
    private final int[] free = new int[SLOTS];
    private final SendWorkRequest request = new SendWorkRequest();
    private final WorkCompletion[] completions = new WorkCompletion[SLOTS];
    private final int readAtomicLimit;
    private final String noReadsRefusal;
    private final String atomicsRefusal;
    private int freeCount;
    private int inFlight;
    private int readAtomicsInFlight;
    private QueuePair queuePair;
    private boolean broken;
    private boolean refused;
    private boolean closed;
    private String connectFailure;
    private final long createdNs = System.nanoTime();

    RdmaOneSidedPath(
        final String endpoint,
        final CmConnection connection,
        final CompletionQueue sendCq,
        final CompletionQueue receiveCq,
        final RegisteredBuffer staging,
        final int readAtomicLimit,
        final String noReadsRefusal,
        final String atomicsRefusal)
    {
        if (readAtomicLimit < 0 || readAtomicLimit > SLOTS || (readAtomicLimit == 0 && null == noReadsRefusal))
        {
            throw new IllegalArgumentException("READs and atomics in flight must be 1-" + SLOTS + ", or 0 with the " +
                "reason: " + readAtomicLimit);
        }
        this.endpoint = endpoint;
        this.readAtomicLimit = readAtomicLimit;
        this.noReadsRefusal = noReadsRefusal;
        this.atomicsRefusal = atomicsRefusal;
        this.connection = connection;
        this.sendCq = sendCq;
        this.receiveCq = receiveCq;
        this.staging = staging;
        this.stagingBuffer = staging.buffer();
        for (int i = 0; i < SLOTS; i++)
        {
            free[i] = SLOTS - 1 - i;
            completions[i] = new WorkCompletion();
        }
        freeCount = SLOTS;
    }

    @Override
    public boolean post(final OneSidedOperation operation)
    {
        final int op = operation.op();
        final boolean readOrAtomic = op != OneSidedOperation.WRITE;
        if (readOrAtomic && op != OneSidedOperation.READ && atomicsRefusal != null)
        {
            operation.onFailed(false, atomicsRefusal); // a property of the two devices: no new path would help
            return true;
        }
        if (readOrAtomic && readAtomicLimit == 0)
        {
            operation.onFailed(false, noReadsRefusal);
            return true;
        }
        if (!connected() && connectFailure != null)
        {
            operation.onFailed(false, connectFailure); // fails once; the next operation opens a new path
            return true;
        }
        if (broken || closed || freeCount == 0 || queuePair == null)
        {
            return false;
        }
        if (readOrAtomic && readAtomicsInFlight >= readAtomicLimit)
        {
            return false; // the target serves no more at once: posted again once one completes
        }
        final int slot = free[--freeCount];
        final int offset = slot * SLOT_LENGTH;
        final long address = staging.address() + offset;
        request.clear().wrId(slot).flags(SendWorkRequest.SIGNALED).remote(operation.remoteAddress(), operation.rkey());
        switch (op)
        {
            case OneSidedOperation.READ:
                request.opcode(Opcode.RDMA_READ).addSge(address, operation.length(), staging.lkey());
                break;
            case OneSidedOperation.WRITE:
                stagingBuffer.putBytes(offset, operation.source(), operation.sourceOffset(), operation.length());
                request.opcode(Opcode.RDMA_WRITE).addSge(address, operation.length(), staging.lkey());
                break;
            case OneSidedOperation.COMPARE_AND_SWAP:
                request.opcode(Opcode.ATOMIC_CMP_AND_SWP).atomic(operation.compareAdd(), operation.swap())
                    .addSge(address, Long.BYTES, staging.lkey());
                break;
            default:
                request.opcode(Opcode.ATOMIC_FETCH_AND_ADD).atomic(operation.compareAdd(), 0)
                    .addSge(address, Long.BYTES, staging.lkey());
        }
        try
        {
            queuePair.postSend(request);
        }
        catch (final IOException | RuntimeException ex)
        {
            // The provider cannot post it (no atomics on this provider, a queue pair in error): fail it rather than
            // retry it for ever.
            free[freeCount++] = slot;
            broken = true;
            operation.onFailed(false, "cannot post to " + endpoint + ": " + ex.getMessage());
            return true;
        }
        slots[slot] = operation;
        inFlight++;
        if (readOrAtomic)
        {
            readAtomicsInFlight++;
        }
        return true;
    }

    @Override
    public int poll()
    {
        if (closed || !connected())
        {
            return 0;
        }
        int work = 0;
        try
        {
            final int count = sendCq.poll(completions);
            for (int i = 0; i < count; i++)
            {
                onCompletion(completions[i]);
                work++;
            }
        }
        catch (final IOException ex)
        {
            broken = true;
        }
        if (connection.isDisconnected())
        {
            broken = true;
        }
        return work;
    }

    private void onCompletion(final WorkCompletion completion)
    {
        final int slot = (int)completion.wrId();
        final OneSidedOperation operation = slots[slot];
        if (operation == null)
        {
            return;
        }
        slots[slot] = null;
        free[freeCount++] = slot;
        inFlight--;
        if (operation.op() != OneSidedOperation.WRITE)
        {
            readAtomicsInFlight--;
        }
        final int offset = slot * SLOT_LENGTH;
        final WcStatus status = completion.status();
        if (status == WcStatus.SUCCESS)
        {
            switch (operation.op())
            {
                case OneSidedOperation.READ:
                    operation.onRead(stagingBuffer, offset, operation.length());
                    break;
                case OneSidedOperation.WRITE:
                    operation.onWritten();
                    break;
                default:
                    operation.onAtomic(stagingBuffer.getLong(offset));
            }
            return;
        }
        broken = true;
        if (status == WcStatus.WR_FLUSH_ERROR && refused)
        {
            operation.onFlushed(); // behind a refused request: never executed
            return;
        }
        refused = true;
        final boolean remoteAccess = status == WcStatus.REMOTE_ACCESS_ERROR ||
            status == WcStatus.REMOTE_INVALID_REQUEST_ERROR;
        operation.onFailed(remoteAccess, remoteAccess ?
            "the target's NIC refused the access (" + status + ": wrong rkey, revoked region, out of its bounds or not " +
            "permitted)" : "completion " + status + " from " + endpoint);
    }

    @Override
    public boolean isBroken()
    {
        return broken;
    }

    @Override
    public int inFlight()
    {
        return inFlight;
    }

    /** @return READs and atomics posted and not completed. */
    int readAtomicsInFlight()
    {
        return readAtomicsInFlight;
    }

    /** @return the most READs and atomics this path keeps in flight. */
    int readAtomicLimit()
    {
        return readAtomicLimit;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (int slot = 0; slot < SLOTS; slot++)
        {
            final OneSidedOperation operation = slots[slot];
            if (operation != null)
            {
                slots[slot] = null;
                if (refused)
                {
                    operation.onFlushed(); // behind the refused request on an RC queue pair: never executed
                }
                else
                {
                    operation.onFailed(false, "the one-sided path to " + endpoint + " was lost with the operation " +
                        "in flight; it may or may not have been applied");
                }
            }
        }
        inFlight = 0;
        readAtomicsInFlight = 0;
        RdmaTransportDriver.closeQuietly(connection);
        RdmaTransportDriver.closeQuietly(sendCq);
        RdmaTransportDriver.closeQuietly(receiveCq);
        staging.close();
    }

    /** @return true once the connection manager established the queue pair; a refusal breaks the path. */
    private boolean connected()
    {
        if (queuePair != null)
        {
            return true;
        }
        if (connectFailure != null)
        {
            return false;
        }
        try
        {
            queuePair = connection.poll();
            if (queuePair == null && System.nanoTime() - createdNs > CONNECT_TIMEOUT_NS)
            {
                connectFailure = "cannot connect a one-sided path to " + endpoint + ": timed out";
                broken = true;
            }
        }
        catch (final IOException ex)
        {
            connectFailure = "cannot connect a one-sided path to " + endpoint + ": " + ex.getMessage();
            broken = true;
        }
        return queuePair != null;
    }
}
