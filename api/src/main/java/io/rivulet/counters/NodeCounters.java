package io.rivulet.counters;

import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The node's counters, kept in the Agrona counters region of the node file ({@link NodeFileWriter}) so that
 * tools read them from outside the process: node-wide totals here, per-connection sets from
 * {@link #connectionCounters(long, String)}, errors by exception type from {@link #onError(Throwable)}.
 * Incrementing is allocation-free.
 *
 * <p>Thread-safe for reading; each counter has the writers named in its javadoc.
 */
public final class NodeCounters implements AutoCloseable
{
    /** Distinct exception types that get a counter of their own; later ones count under "other". */
    private static final int MAX_ERROR_TYPES = 32;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(NodeCounters.class);

    private final NodeFileWriter nodeFile;
    private final ConcurrentHashMap<String, AtomicCounter> errorsByType = new ConcurrentHashMap<>();
    private final AtomicLong nextConnectionId = new AtomicLong(1);
    private volatile boolean warnedFull;
    /** The overflow region's slots: its heartbeat and the one shared set of a connection's counters. */
    private static final int OVERFLOW_SLOTS = 1 + ConnectionCounters.COUNTERS;
    /**
     * Where the connections the node file has no slots for count, made once: direct memory, since Agrona prints a
     * line for every counters region on a heap {@code byte[]}, and one set, since a region per connection was made
     * and printed once per connection under churn.
     */
    private final NodeFileWriter overflow;
    private final ConnectionCounters overflowCounters;

    /** Frames written to links (sender). */
    public final AtomicCounter framesSent;
    /** Bytes of frames written to links (sender). */
    public final AtomicCounter bytesSent;
    /** Frames read from links (conductor). */
    public final AtomicCounter framesReceived;
    /** Bytes of frames read from links (conductor). */
    public final AtomicCounter bytesReceived;
    /** Fire-and-forget messages handed to a responder (conductor). */
    public final AtomicCounter messagesReceived;
    /** Times a producer used up the credits its peer had granted (producer threads). */
    public final AtomicCounter creditStalls;
    /** Writes that found an outbound ring full (any thread). */
    public final AtomicCounter backPressureEvents;
    /** Connections closed for a protocol violation or rejected set-up (conductor). */
    public final AtomicCounter protocolErrors;
    /** Connections lost to I/O errors or keepalive timeouts (conductor). */
    public final AtomicCounter connectionsLost;
    /** Connections opened, either side (conductor). */
    public final AtomicCounter connectionsOpened;
    /** Connections fully closed, either side (conductor). */
    public final AtomicCounter connectionsClosed;
    /** Errors passed to the error handler (any thread). */
    public final AtomicCounter errors;
    /** Connections refused by the authenticator at SETUP (conductor). */
    public final AtomicCounter setupsRejected;
    /** Accepted connections closed for sending no SETUP in time (conductor). */
    public final AtomicCounter setupTimeouts;
    /** Connections, streams or sends refused for crossing a configured limit (conductor, producer threads). */
    public final AtomicCounter limitRejections;
    /** Accepted links dropped before they came up, such as a failed TLS handshake (conductor). */
    public final AtomicCounter linksRejected;
    /** Region operations this node's engine applied for peers: TCP emulation, never on RDMA (conductor). */
    public final AtomicCounter regionOpsEmulated;
    /** One-sided region operations this node posted to peers' memory (conductor). */
    public final AtomicCounter regionOpsPosted;
    /** Idle sleeps in the transport's selector of a SHARED engine on the default back-off (engine, or borrower). */
    public final AtomicCounter engineSleeps;
    /** Loans of that engine's duty cycle to callers blocked on a reply (engine). */
    public final AtomicCounter engineLoans;
    /**
     * Requester-side request-response round trips, from the request written into the outbound ring to its reply
     * handed over, in the node file's histogram region (conductor, the single writer).
     */
    public final LatencyHistogram requestLatency;

    /** Counters in a private in-memory region: for unit tests and benchmarks that run without a node. */
    public NodeCounters()
    {
        this(NodeFileWriter.inMemory("detached", 256, 64 * 1024));
    }

    /**
     * @param nodeFile where the counters live; closed by {@link #close()}.
     */
    public NodeCounters(final NodeFileWriter nodeFile)
    {
        this.nodeFile = nodeFile;
        framesSent = node(CounterTypes.NODE_FRAMES_SENT, "frames sent");
        bytesSent = node(CounterTypes.NODE_BYTES_SENT, "bytes sent");
        framesReceived = node(CounterTypes.NODE_FRAMES_RECEIVED, "frames received");
        bytesReceived = node(CounterTypes.NODE_BYTES_RECEIVED, "bytes received");
        messagesReceived = node(CounterTypes.NODE_FNF_RECEIVED, "fire-and-forget messages received");
        creditStalls = node(CounterTypes.NODE_CREDIT_STALLS, "credit stalls");
        backPressureEvents = node(CounterTypes.NODE_BACK_PRESSURE, "back-pressure events");
        protocolErrors = node(CounterTypes.NODE_PROTOCOL_ERRORS, "protocol errors");
        connectionsLost = node(CounterTypes.NODE_CONNECTIONS_LOST, "connections lost");
        connectionsOpened = node(CounterTypes.NODE_CONNECTIONS_OPENED, "connections opened");
        connectionsClosed = node(CounterTypes.NODE_CONNECTIONS_CLOSED, "connections closed");
        errors = node(CounterTypes.NODE_ERRORS, "errors");
        setupsRejected = node(CounterTypes.NODE_SETUPS_REJECTED, "setups rejected");
        setupTimeouts = node(CounterTypes.NODE_SETUP_TIMEOUTS, "setup timeouts");
        limitRejections = node(CounterTypes.NODE_LIMIT_REJECTIONS, "limit rejections");
        linksRejected = node(CounterTypes.NODE_LINKS_REJECTED, "links rejected");
        regionOpsEmulated = node(CounterTypes.NODE_REGION_OPS_EMULATED, "region ops emulated");
        regionOpsPosted = node(CounterTypes.NODE_REGION_OPS_POSTED, "region ops posted one-sided");
        engineSleeps = node(CounterTypes.NODE_ENGINE_SLEEPS, "engine sleeps in the transport");
        engineLoans = node(CounterTypes.NODE_ENGINE_LOANS, "engine cycles lent to blocked callers");
        requestLatency = nodeFile.histogram(NodeFileLayout.HISTOGRAM_REQUEST_RESPONSE);
        overflow = NodeFileWriter.inMemory(nodeFile.nodeName() + " overflow", OVERFLOW_SLOTS, 4096);
        overflowCounters = newConnectionCounters(CounterTypes.NO_OWNER, "connections beyond the node file's slots",
            overflow);
    }

    /** @return a reader over every counter, for tools and tests. */
    public CountersReader reader()
    {
        return nodeFile.countersReader();
    }

    /** @return the node file (or in-memory region) these counters live in. */
    public NodeFileWriter nodeFile()
    {
        return nodeFile;
    }

    /** @return the factory transports and topics allocate their counters from. */
    public CounterFactory factory()
    {
        return nodeFile;
    }

    /** @return a fresh connection id, unique in this node (any thread). */
    public long nextConnectionId()
    {
        return nextConnectionId.getAndIncrement();
    }

    /** @return the counters of a new connection whose remote address is not known (unit tests). */
    public ConnectionCounters connectionCounters()
    {
        return connectionCounters(nextConnectionId(), "unknown");
    }

    /**
     * Allocates a connection's own counters (labelled with its id and remote address), which also add to the
     * node-wide totals. Close the result when the connection finishes: its slots are free for the next connection at
     * once. A connection the node file has no room for gets the overflow set every such connection shares
     * ({@link #overflowRegion()}): its own values are then those of all of them, and tools do not see them.
     *
     * @param connectionId  from {@link #nextConnectionId()}.
     * @param remoteAddress the peer, for the label and tag.
     * @return the connection's counters.
     */
    public ConnectionCounters connectionCounters(final long connectionId, final String remoteAddress)
    {
        // Room is checked before allocating: a full region would otherwise throw for every new connection under churn.
        // The catch is for another thread taking the room in between (what the connection took is freed again).
        if (nodeFile.availableCounters() >= ConnectionCounters.COUNTERS)
        {
            try
            {
                return newConnectionCounters(connectionId, remoteAddress, nodeFile);
            }
            catch (final IllegalStateException full)
            {
                // taken meanwhile: on to the overflow set
            }
        }
        // The node file is full (rivulet.maxCounters): the connection still works and still adds to the node totals;
        // its own counters are the overflow set every such connection shares.
        if (!warnedFull)
        {
            warnedFull = true;
            LOG.warn("node {}: counters region full ({} slots, rivulet.maxCounters); connection {} to {} and " +
                "later ones are not counted individually", nodeFile.nodeName(), reader().maxCounterId() + 1,
                connectionId, remoteAddress);
        }
        return new ConnectionCounters(connectionId, remoteAddress, overflowCounters);
    }

    private ConnectionCounters newConnectionCounters(
        final long connectionId, final String remoteAddress, final NodeFileWriter region)
    {
        return new ConnectionCounters(connectionId, remoteAddress, region, framesReceived, bytesReceived,
            messagesReceived, creditStalls, backPressureEvents, protocolErrors, connectionsLost, connectionsClosed,
            setupsRejected, setupTimeouts, limitRejections, requestLatency);
    }

    /**
     * @return the region of the one set of connection counters that every connection beyond the node file's slots
     *         shares: made with the node, in direct memory, the same for the node's life (in-process readers only).
     */
    public NodeFileWriter overflowRegion()
    {
        return overflow;
    }

    /**
     * Counts an error (in total and by exception type) and records it in the node file's distinct error log.
     * Any thread; not for the hot path.
     */
    public void onError(final Throwable error)
    {
        errors.increment();
        String type = error.getClass().getSimpleName();
        if (!errorsByType.containsKey(type) && errorsByType.size() >= MAX_ERROR_TYPES)
        {
            type = "other";
        }
        nodeFile.recordError(error);
        try
        {
            errorsByType.computeIfAbsent(type, name -> nodeFile.newCounter(CounterTypes.ERRORS_BY_TYPE,
                CounterTypes.NO_OWNER, name, "errors: " + name)).increment();
        }
        catch (final IllegalStateException full)
        {
            // Counters region full: the error is still in the total and in the error log.
        }
    }

    /** Engine, once its agent failed: marks the node file dead with the cause; allocates nothing. */
    public void markDead(final Throwable cause)
    {
        nodeFile.markDead(cause);
    }

    /** Conductor: marks the node alive. */
    public void heartbeat(final long epochMs)
    {
        nodeFile.heartbeat(epochMs);
    }

    /** Closes the node file: the heartbeat stops and the file is deleted when so configured. */
    @Override
    public void close()
    {
        overflow.close();
        nodeFile.close();
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder();
        reader().forEach((value, id, label) -> text.append(label).append(": ").append(value).append('\n'));
        return text.toString();
    }

    private AtomicCounter node(final int typeId, final String label)
    {
        return nodeFile.newCounter(typeId, CounterTypes.NO_OWNER, "", label);
    }
}
