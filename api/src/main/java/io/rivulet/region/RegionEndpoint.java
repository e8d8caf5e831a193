package io.rivulet.region;

import io.rivulet.ConnectionClosedException;
import io.rivulet.RivuletException;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.spi.ConnectionExtension;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.OneSidedOperation;
import io.rivulet.spi.OneSidedPath;
import io.rivulet.spi.OneSidedTransport;
import io.rivulet.spi.Violation;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import reactor.core.publisher.MonoSink;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One connection's side of one-sided remote memory, both roles, on the conductor:
 *
 * <ul>
 *   <li>requester: region lookups (REGION_LOOKUP → REGION_INFO), then operations — posted on a
 *   {@link OneSidedPath} when both nodes are one-sided capable (opened lazily, replaced after an error), or sent as
 *   REGION_OP frames for the target's engine to apply;</li>
 *   <li>target: answers lookups, applies REGION_OPs to its regions (the engine, never the application), and sends
 *   REGION_REVOKED to a peer that looked up a region that is then revoked.</li>
 * </ul>
 *
 * <p>Threading: {@link #submit} from any thread; everything else on the conductor.
 */
public final class RegionEndpoint implements ConnectionExtension
{
    /** Emulated operations in flight per connection: bounds the replies the target may have to park. */
    static final int MAX_EMULATED_IN_FLIGHT = 256;
    /**
     * Replies a target parks while its outbound ring is full: what a well-behaved requester can have outstanding
     * (its operations plus some lookups). A peer that exceeds it, by sending without reading, breaks the protocol,
     * so parked memory stays bounded (at most this many frames).
     */
    static final int MAX_PARKED_REPLIES = MAX_EMULATED_IN_FLIGHT + 64;

    private final RegionRegistry registry;
    private final ConnectionServices link;
    private final FrameWriter writer = new FrameWriter();
    private final UnsafeBuffer scratch;
    /** Many producers; drained by the conductor, and by a producer that finds the endpoint closed. */
    private final ConcurrentLinkedQueue<Object> submissions = new ConcurrentLinkedQueue<>();

    // Conductor.
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();
    private final ArrayList<RegionOperation> retries = new ArrayList<>();
    private final Long2ObjectHashMap<Object> pending = new Long2ObjectHashMap<>();
    private final Int2ObjectHashMap<ArrayList<RemoteRegionHandle>> handles = new Int2ObjectHashMap<>();
    private final IntHashSet lookedUp = new IntHashSet();
    private final ArrayDeque<byte[]> parkedReplies = new ArrayDeque<>();
    private long nextRequestId = 1;
    private int emulatedInFlight;
    private OneSidedPath path;
    private String pathEndpoint;
    private RivuletException closedCause;
    private volatile boolean closed;

    RegionEndpoint(final RegionRegistry registry, final ConnectionServices link)
    {
        this.registry = registry;
        this.link = link;
        this.scratch = new UnsafeBuffer(new byte[link.maxFrameLength()]);
    }

    // ------------------------------------------------------------------------------------ requester API

    /**
     * Any thread: looks a region up on the peer.
     *
     * @param name the region's name.
     * @param sink completed on the conductor with the region, or a {@link RegionAccessException}.
     */
    public void lookup(final String name, final MonoSink<RemoteRegion> sink)
    {
        final byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < 1 || bytes.length > FrameReader.MAX_TOPIC_LENGTH)
        {
            sink.error(new IllegalArgumentException("region name must be 1 to " + FrameReader.MAX_TOPIC_LENGTH +
                " UTF-8 bytes: '" + name + "'"));
            return;
        }
        enqueue(new Lookup(name, bytes, sink));
    }

    /**
     * Any thread: a handle on a region known by its descriptor (from an earlier lookup, possibly by another
     * connection to the same node). The target checks the key and the bounds again.
     */
    public RemoteRegion attach(final RegionDescriptor descriptor)
    {
        final boolean oneSided = descriptor.oneSided() && registry.oneSided() != null;
        final RemoteRegionHandle handle = new RemoteRegionHandle(this, descriptor, oneSided,
            oneSided ? registry.oneSided().maxOperationLength() : emulatedMaxLength());
        enqueue(new Attach(handle));
        return handle;
    }

    /** Any thread: queues an operation for the conductor. */
    void submit(final RegionOperation operation)
    {
        enqueue(operation);
    }

    /** Conductor: a flushed one-sided operation, to post again on a new path ahead of later ones. */
    void retry(final RegionOperation operation)
    {
        retries.add(operation);
    }

    String remoteAddress()
    {
        return link.remoteAddress();
    }

    private void enqueue(final Object item)
    {
        if (closed)
        {
            fail(item, closedCause != null ? closedCause :
                new ConnectionClosedException("connection to " + link.remoteAddress() + " is closed"));
            return;
        }
        submissions.offer(item);
        if (closed)
        {
            // Raced with the close: whatever the conductor did not see fails here.
            Object late;
            while ((late = submissions.poll()) != null)
            {
                fail(late, closedCause != null ? closedCause :
                    new ConnectionClosedException("connection to " + link.remoteAddress() + " is closed"));
            }
        }
    }

    /** The longest READ result or WRITE a frame carries on this connection. */
    private int emulatedMaxLength()
    {
        return link.maxFrameLength() - Math.max(FrameWriter.regionOpLength(0), FrameWriter.regionOpResultLength(0));
    }

    // ------------------------------------------------------------------------------------ conductor: duty

    /**
     * Conductor: sends what waits, posts and reaps one-sided operations.
     *
     * @return work done.
     */
    @Override
    public int doWork(final long nowNs)
    {
        if (closed)
        {
            return 0;
        }
        int work = flushParkedReplies();
        Object item;
        while ((item = submissions.poll()) != null)
        {
            waiting.addLast(item);
            work++;
        }
        if (path != null)
        {
            work += path.poll();
            if (path.isBroken())
            {
                // An access error moved the queue pair to ERROR: its other operations came back flushed.
                path.close();
                path = null;
                work++;
            }
        }
        if (!retries.isEmpty())
        {
            for (int i = retries.size() - 1; i >= 0; i--)
            {
                waiting.addFirst(retries.get(i));
            }
            retries.clear();
        }
        while (!waiting.isEmpty())
        {
            if (!send(waiting.peekFirst()))
            {
                break;
            }
            waiting.pollFirst();
            work++;
        }
        return work;
    }

    /** @return true when the item is on its way (or failed); false to try again next cycle. */
    private boolean send(final Object item)
    {
        if (item instanceof Lookup lookup)
        {
            final long requestId = nextRequestId;
            final int length = writer.writeRegionLookup(scratch, 0, requestId, lookup.name);
            if (!link.sendControl(scratch, 0, length))
            {
                return false;
            }
            nextRequestId++;
            pending.put(requestId, lookup);
            return true;
        }
        if (item instanceof Attach attach)
        {
            registerHandle(attach.handle);
            return true;
        }
        final RegionOperation operation = (RegionOperation)item;
        if (operation.region.isRevoked())
        {
            operation.complete(new RegionAccessException(RegionAccessException.Reason.REVOKED,
                RegionOperation.opName(operation.op) + " of region '" + operation.region.name() + "' on " +
                link.remoteAddress() + ": the region was revoked"));
            return true;
        }
        return operation.region.isOneSided() ? post(operation) : sendEmulated(operation);
    }

    private boolean post(final RegionOperation operation)
    {
        final String endpoint = operation.region.descriptor().endpoint();
        if (path != null && !endpoint.equals(pathEndpoint))
        {
            // Another endpoint of the same peer (it restarted its listener): one path per connection at a time.
            if (path.inFlight() > 0)
            {
                return false;
            }
            path.close();
            path = null;
        }
        if (path == null)
        {
            try
            {
                path = registry.oneSided().openPath(link.link(), endpoint);
                pathEndpoint = endpoint;
            }
            catch (final IOException | RuntimeException ex)
            {
                operation.complete(new RegionAccessException(RegionAccessException.Reason.UNSUPPORTED,
                    "cannot open a one-sided path to " + endpoint + " for region '" + operation.region.name() + "': " +
                    ex.getMessage()));
                return true;
            }
        }
        if (!path.post(operation))
        {
            return false;
        }
        registry.opsPosted().incrementRelease();
        return true;
    }

    private boolean sendEmulated(final RegionOperation operation)
    {
        if (emulatedInFlight >= MAX_EMULATED_IN_FLIGHT)
        {
            return false;
        }
        final RegionDescriptor descriptor = operation.region.descriptor();
        final long requestId = nextRequestId;
        final int length = writer.writeRegionOp(scratch, 0, requestId, descriptor.regionId(), descriptor.rkey(),
            operation.op, operation.offset, operation.length, operation.compareAdd, operation.swap,
            operation.op == OneSidedOperation.WRITE ? operation.source : null, operation.sourceOffset,
            operation.op == OneSidedOperation.WRITE ? operation.length : 0);
        if (!link.sendControl(scratch, 0, length))
        {
            return false;
        }
        nextRequestId++;
        operation.requestId = requestId;
        pending.put(requestId, operation);
        emulatedInFlight++;
        return true;
    }

    private void registerHandle(final RemoteRegionHandle handle)
    {
        handles.computeIfAbsent(handle.descriptor().regionId(), id -> new ArrayList<>()).add(handle);
    }

    // ------------------------------------------------------------------------------------ conductor: frames

    /**
     * Conductor: a region frame from the peer. A frame that breaks the protocol is reported to the connection,
     * which closes.
     *
     * @param reader the validated frame.
     * @param nowNs  the cycle's clock.
     */
    @Override
    public void onFrame(final FrameReader reader, final long nowNs)
    {
        switch (reader.frameType())
        {
            case FrameType.REGION_LOOKUP:
                onLookup(reader);
                return;
            case FrameType.REGION_INFO:
                onInfo(reader);
                return;
            case FrameType.REGION_ERROR:
                onError(reader);
                return;
            case FrameType.REGION_REVOKED:
                onRevoked(reader.regionId());
                return;
            case FrameType.REGION_OP:
                onOperation(reader);
                return;
            case FrameType.REGION_OP_RESULT:
                onResult(reader);
                return;
            default:
                violation(Violation.UNEXPECTED_FRAME, "unexpected " + FrameType.name(reader.frameType()) +
                    " for the region layer");
        }
    }

    /** Reports a broken rule to the connection, which closes. @return false, for the handlers to return. */
    private boolean violation(final Violation reason, final String detail)
    {
        link.violation(reason, detail);
        return false;
    }

    private boolean onLookup(final FrameReader reader)
    {
        final String name = reader.text();
        final ExposedRegion region = registry.byName(name);
        if (region == null || region.isRevoked())
        {
            return replyError(reader.requestId(), RegionAccessException.Reason.NOT_FOUND,
                "no region '" + name + "' is exposed on this node");
        }
        String endpoint = null;
        if (registry.oneSided() != null)
        {
            try
            {
                endpoint = registry.oneSided().oneSidedEndpoint(link.link());
            }
            catch (final IOException ex)
            {
                endpoint = null; // the peer falls back to emulation
            }
        }
        final byte[] endpointBytes = endpoint == null ? new byte[0] : endpoint.getBytes(StandardCharsets.UTF_8);
        lookedUp.add(region.id());
        final int length = writer.writeRegionInfo(scratch, 0, reader.requestId(), region.id(), region.rkey(),
            endpoint == null ? 0 : region.address(), region.length(), region.accessBits(), endpointBytes);
        return reply(length);
    }

    private boolean onInfo(final FrameReader reader)
    {
        final Object request = pending.remove(reader.requestId());
        if (!(request instanceof Lookup lookup))
        {
            return violation(Violation.UNKNOWN_ID, "REGION_INFO for request " + reader.requestId() + ", which is no pending lookup");
        }
        final RegionDescriptor descriptor = new RegionDescriptor(lookup.nameText, reader.regionId(), reader.address(),
            reader.regionLength(), reader.rkey(), reader.access(), reader.text());
        final boolean oneSided = descriptor.oneSided() && registry.oneSided() != null;
        final RemoteRegionHandle handle = new RemoteRegionHandle(this, descriptor, oneSided,
            oneSided ? registry.oneSided().maxOperationLength() : emulatedMaxLength());
        registerHandle(handle);
        lookup.sink.success(handle);
        return true;
    }

    private boolean onError(final FrameReader reader)
    {
        final Object request = pending.remove(reader.requestId());
        if (request == null)
        {
            return violation(Violation.UNKNOWN_ID, "REGION_ERROR for request " + reader.requestId() + ", which is not pending");
        }
        final RegionAccessException error = new RegionAccessException(RegionAccessException.Reason.ofCode(
            reader.errorCode()), "region access refused by " + link.remoteAddress() + ": " + reader.text());
        if (request instanceof Lookup lookup)
        {
            lookup.sink.error(error);
        }
        else
        {
            emulatedInFlight--;
            ((RegionOperation)request).complete(error);
        }
        return true;
    }

    private void onRevoked(final int regionId)
    {
        final ArrayList<RemoteRegionHandle> revoked = handles.remove(regionId);
        if (revoked != null)
        {
            for (int i = 0; i < revoked.size(); i++)
            {
                revoked.get(i).markRevoked();
            }
        }
    }

    private boolean onResult(final FrameReader reader)
    {
        final Object request = pending.get(reader.requestId());
        if (!(request instanceof RegionOperation operation))
        {
            return violation(Violation.UNKNOWN_ID, "REGION_OP_RESULT for request " + reader.requestId() + ", which is no pending operation");
        }
        final int expected = operation.op == OneSidedOperation.READ ? operation.length : 0;
        if (reader.dataLength() != expected)
        {
            return violation(Violation.INVALID_VALUE, "REGION_OP_RESULT of " + reader.dataLength() + " bytes for a " + RegionOperation.opName(operation.op) +
                " of " + operation.length);
        }
        pending.remove(reader.requestId());
        emulatedInFlight--;
        switch (operation.op)
        {
            case OneSidedOperation.READ:
                operation.onRead(reader.buffer(), reader.dataOffset(), reader.dataLength());
                break;
            case OneSidedOperation.WRITE:
                operation.onWritten();
                break;
            default:
                operation.onAtomic(reader.value());
        }
        return true;
    }

    // ------------------------------------------------------------------------------------ target: emulation

    /** Applies a peer's operation to a local region: the engine does it, the application is never called. */
    private boolean onOperation(final FrameReader reader)
    {
        final long requestId = reader.requestId();
        final int op = reader.op();
        final long offset = reader.regionOffset();
        final int length = reader.opLength();
        final ExposedRegion region = registry.byId(reader.regionId());
        final String what = RegionOperation.opName(op) + " of " + length + " bytes at offset " + offset;
        if (region == null || region.isRevoked())
        {
            return registry.wasExposed(reader.regionId()) ?
                replyError(requestId, RegionAccessException.Reason.REVOKED, what + ": region " + reader.regionId() +
                    " was revoked") :
                replyError(requestId, RegionAccessException.Reason.NOT_FOUND, what + ": no region " + reader.regionId());
        }
        if (reader.rkey() != region.rkey())
        {
            return replyError(requestId, RegionAccessException.Reason.BAD_KEY, what + " of region '" + region.name() +
                "': wrong remote key");
        }
        final int needed = op == OneSidedOperation.READ ? RegionAccess.READ.bit() :
            op == OneSidedOperation.WRITE ? RegionAccess.WRITE.bit() : RegionAccess.ATOMIC.bit();
        if ((region.accessBits() & needed) == 0)
        {
            return replyError(requestId, RegionAccessException.Reason.PERMISSION, what + " of region '" + region.name() +
                "', which allows only " + region.access());
        }
        if (offset > region.length() - (long)length)
        {
            return replyError(requestId, RegionAccessException.Reason.OUT_OF_BOUNDS, what + " of region '" +
                region.name() + "': outside its " + region.length() + " bytes");
        }
        final int resultLength = FrameWriter.regionOpResultLength(op == OneSidedOperation.READ ? length : 0);
        if (resultLength > link.maxFrameLength())
        {
            return replyError(requestId, RegionAccessException.Reason.UNSUPPORTED, what + ": longer than one frame");
        }
        final int index = (int)offset;
        final org.agrona.concurrent.AtomicBuffer memory = region.buffer();
        final int frame;
        switch (op)
        {
            case OneSidedOperation.READ:
                frame = writer.writeRegionOpResult(scratch, 0, requestId, 0, memory, index, length);
                break;
            case OneSidedOperation.WRITE:
                memory.putBytes(index, reader.buffer(), reader.dataOffset(), length);
                frame = writer.writeRegionOpResult(scratch, 0, requestId, 0, null, 0, 0);
                break;
            default:
                if ((offset & (Long.BYTES - 1)) != 0)
                {
                    return replyError(requestId, RegionAccessException.Reason.MISALIGNED, what +
                        ": atomics need an offset that is a multiple of 8");
                }
                final long previous = op == OneSidedOperation.FETCH_AND_ADD ?
                    memory.getAndAddLong(index, reader.compareAdd()) :
                    compareAndSwap(memory, index, reader.compareAdd(), reader.swap());
                frame = writer.writeRegionOpResult(scratch, 0, requestId, previous, null, 0, 0);
        }
        registry.opsEmulated().incrementRelease();
        return reply(frame);
    }

    /** @return the previous value, as a NIC's compare-and-swap returns it. */
    private static long compareAndSwap(
        final org.agrona.concurrent.AtomicBuffer memory, final int index, final long expected, final long update)
    {
        while (true)
        {
            final long current = memory.getLongVolatile(index);
            if (current != expected)
            {
                return current;
            }
            if (memory.compareAndSetLong(index, expected, update))
            {
                return expected;
            }
        }
    }

    private boolean replyError(final long requestId, final RegionAccessException.Reason reason, final String message)
    {
        final byte[] text = FrameWriter.utf8(message, Math.min(512, link.maxFrameLength() - FrameWriter.regionErrorLength(0)));
        return reply(writer.writeRegionError(scratch, 0, requestId, reason.code(), text));
    }

    /** Sends the frame in {@link #scratch}, or parks a copy while the ring is full. */
    private boolean reply(final int length)
    {
        if (parkedReplies.isEmpty() && link.sendControl(scratch, 0, length))
        {
            return true;
        }
        if (parkedReplies.size() >= MAX_PARKED_REPLIES)
        {
            return violation(Violation.LIMIT_EXCEEDED, "more than " + MAX_PARKED_REPLIES + " region requests outstanding");
        }
        final byte[] copy = new byte[length];
        scratch.getBytes(0, copy);
        parkedReplies.addLast(copy);
        return true;
    }

    private int flushParkedReplies()
    {
        int work = 0;
        byte[] frame;
        while ((frame = parkedReplies.peekFirst()) != null && link.sendControl(new UnsafeBuffer(frame), 0, frame.length))
        {
            parkedReplies.pollFirst();
            work++;
        }
        return work;
    }

    /** Conductor: a local region this peer may know was revoked. */
    void onLocalRegionRevoked(final int regionId)
    {
        if (!closed && lookedUp.remove(regionId))
        {
            final int length = writer.writeRegionRevoked(scratch, 0, regionId);
            reply(length);
        }
    }

    // ------------------------------------------------------------------------------------ conductor: close

    /** Conductor: the connection closed; everything pending fails with its cause. */
    /** The peer looked up regions of this node: it may read them one-sided, with no frame on this connection. */
    @Override
    public boolean keepsConnection()
    {
        return !lookedUp.isEmpty();
    }

    @Override
    public void onClose(final RivuletException cause)
    {
        if (closed)
        {
            return;
        }
        closedCause = cause;
        closed = true; // volatile: publishes closedCause to producers
        registry.onEndpointClosed(this);
        if (path != null)
        {
            path.close(); // hands in-flight operations back as flushed: they fail below
            path = null;
        }
        for (final Object request : pending.values())
        {
            fail(request, cause);
        }
        pending.clear();
        for (final RegionOperation retry : retries)
        {
            fail(retry, cause);
        }
        retries.clear();
        Object item;
        while ((item = waiting.pollFirst()) != null)
        {
            fail(item, cause);
        }
        while ((item = submissions.poll()) != null)
        {
            fail(item, cause);
        }
    }

    private static void fail(final Object item, final RivuletException cause)
    {
        if (item instanceof Lookup lookup)
        {
            lookup.sink.error(cause);
        }
        else if (item instanceof RegionOperation operation)
        {
            operation.complete(cause);
        }
    }

    /** A lookup waiting to be sent or answered. */
    private static final class Lookup
    {
        final String nameText;
        final byte[] name;
        final MonoSink<RemoteRegion> sink;

        Lookup(final String nameText, final byte[] name, final MonoSink<RemoteRegion> sink)
        {
            this.nameText = nameText;
            this.name = name;
            this.sink = sink;
        }
    }

    /** A handle made from a descriptor, to hear of its revocation. */
    private record Attach(RemoteRegionHandle handle)
    {
    }
}
