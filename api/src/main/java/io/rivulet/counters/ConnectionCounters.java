package io.rivulet.counters;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * One connection's counters (frames, bytes and messages each way, credit stalls, back-pressure), labelled
 * with the connection id and remote address, plus the node-wide totals they roll up into. Allocated when the
 * connection opens and {@link #close() freed} when it finishes, for the next connection to take at once; the
 * connections the node file has no room for share one set instead ({@link NodeCounters#overflowRegion()}).
 *
 * <p>Writers: the conductor (inbound), the sender agent ({@link #onFramesSent}), producer threads
 * ({@link #creditStalls()}, {@link #backPressure()}).
 */
public final class ConnectionCounters implements AutoCloseable
{
    /** Counters a connection allocates of its own: frames, bytes, messages each way, credit stalls, back-pressure. */
    public static final int COUNTERS = 8;

    private final long connectionId;
    private final String remoteAddress;
    private final AtomicCounter framesReceived;
    private final AtomicCounter bytesReceived;
    private final AtomicCounter fireAndForgetReceived;
    private final AtomicCounter protocolErrors;
    private final AtomicCounter connectionsLost;
    private final AtomicCounter connectionsClosed;
    private final AtomicCounter setupsRejected;
    private final AtomicCounter setupTimeouts;
    private final AtomicCounter limitRejections;
    private final AtomicCounter framesIn;
    private final AtomicCounter bytesIn;
    private final AtomicCounter messagesIn;
    private final AtomicCounter framesOut;
    private final AtomicCounter bytesOut;
    private final AtomicCounter messagesOut;
    private final AtomicCounter creditStalls;
    private final AtomicCounter backPressure;
    private final LatencyHistogram requestLatency;
    /** False for a connection that shares the overflow set: its close frees nothing. */
    private final boolean owned;

    /**
     * @param connectionId          unique in the node; shown in labels and logs.
     * @param remoteAddress         the peer.
     * @param factory               allocates this connection's own counters.
     * @param framesReceived        node-wide total.
     * @param bytesReceived         node-wide total.
     * @param fireAndForgetReceived node-wide total.
     * @param nodeCreditStalls      node-wide total the connection's credit stalls roll up into.
     * @param nodeBackPressure      node-wide total the connection's back-pressure events roll up into.
     * @param protocolErrors        node-wide total.
     * @param connectionsLost       node-wide total.
     * @param connectionsClosed     node-wide total.
     * @param setupsRejected        node-wide total.
     * @param setupTimeouts         node-wide total.
     * @param limitRejections       node-wide total.
     * @param requestLatency        the node's request-response round-trip histogram (conductor).
     */
    public ConnectionCounters(
        final long connectionId,
        final String remoteAddress,
        final NodeFileWriter factory,
        final AtomicCounter framesReceived,
        final AtomicCounter bytesReceived,
        final AtomicCounter fireAndForgetReceived,
        final AtomicCounter nodeCreditStalls,
        final AtomicCounter nodeBackPressure,
        final AtomicCounter protocolErrors,
        final AtomicCounter connectionsLost,
        final AtomicCounter connectionsClosed,
        final AtomicCounter setupsRejected,
        final AtomicCounter setupTimeouts,
        final AtomicCounter limitRejections,
        final LatencyHistogram requestLatency)
    {
        this.connectionId = connectionId;
        this.remoteAddress = remoteAddress;
        this.framesReceived = framesReceived;
        this.bytesReceived = bytesReceived;
        this.fireAndForgetReceived = fireAndForgetReceived;
        this.protocolErrors = protocolErrors;
        this.connectionsLost = connectionsLost;
        this.connectionsClosed = connectionsClosed;
        this.setupsRejected = setupsRejected;
        this.setupTimeouts = setupTimeouts;
        this.limitRejections = limitRejections;
        this.requestLatency = requestLatency;
        final AtomicCounter[] own = new AtomicCounter[COUNTERS];
        try
        {
            own[0] = own(factory, CounterTypes.CONNECTION_FRAMES_IN, "frames in");
            own[1] = own(factory, CounterTypes.CONNECTION_BYTES_IN, "bytes in");
            own[2] = own(factory, CounterTypes.CONNECTION_MESSAGES_IN, "messages in");
            own[3] = own(factory, CounterTypes.CONNECTION_FRAMES_OUT, "frames out");
            own[4] = own(factory, CounterTypes.CONNECTION_BYTES_OUT, "bytes out");
            own[5] = own(factory, CounterTypes.CONNECTION_MESSAGES_OUT, "messages out");
            own[6] = own(factory, CounterTypes.CONNECTION_CREDIT_STALLS, "credit stalls");
            own[7] = own(factory, CounterTypes.CONNECTION_BACK_PRESSURE, "back-pressure events");
        }
        catch (final RuntimeException ex)
        {
            // The region filled part way (another thread took the room): give back what was taken, or it is lost.
            for (final AtomicCounter counter : own)
            {
                if (counter != null)
                {
                    counter.close();
                }
            }
            throw ex;
        }
        framesIn = own[0];
        bytesIn = own[1];
        messagesIn = own[2];
        framesOut = own[3];
        bytesOut = own[4];
        messagesOut = own[5];
        creditStalls = RollUpCounter.of(own[6], nodeCreditStalls, factory.countersReader().valuesBuffer());
        backPressure = RollUpCounter.of(own[7], nodeBackPressure, factory.countersReader().valuesBuffer());
        owned = true;
    }

    /**
     * A connection that counts in a set it shares with others (the node's overflow set): the same counters and
     * totals, its own id and address; {@link #close()} frees nothing.
     *
     * @param connectionId  unique in the node.
     * @param remoteAddress the peer.
     * @param shared        the set it counts in.
     */
    ConnectionCounters(final long connectionId, final String remoteAddress, final ConnectionCounters shared)
    {
        this.connectionId = connectionId;
        this.remoteAddress = remoteAddress;
        framesReceived = shared.framesReceived;
        bytesReceived = shared.bytesReceived;
        fireAndForgetReceived = shared.fireAndForgetReceived;
        protocolErrors = shared.protocolErrors;
        connectionsLost = shared.connectionsLost;
        connectionsClosed = shared.connectionsClosed;
        setupsRejected = shared.setupsRejected;
        setupTimeouts = shared.setupTimeouts;
        limitRejections = shared.limitRejections;
        requestLatency = shared.requestLatency;
        framesIn = shared.framesIn;
        bytesIn = shared.bytesIn;
        messagesIn = shared.messagesIn;
        framesOut = shared.framesOut;
        bytesOut = shared.bytesOut;
        messagesOut = shared.messagesOut;
        creditStalls = shared.creditStalls;
        backPressure = shared.backPressure;
        owned = false;
    }

    /** @return the connection id, unique in the node. */
    public long connectionId()
    {
        return connectionId;
    }

    /** @return the peer's address. */
    public String remoteAddress()
    {
        return remoteAddress;
    }

    public void onFrameReceived(final int length)
    {
        framesReceived.incrementRelease();
        bytesReceived.getAndAddRelease(length);
        framesIn.incrementRelease();
        bytesIn.getAndAddRelease(length);
    }

    /** Conductor: a whole message (the last or only fragment of a request or payload) arrived. */
    public void onMessageIn()
    {
        messagesIn.incrementRelease();
    }

    public void onMessageReceived()
    {
        fireAndForgetReceived.incrementRelease();
    }

    public void onProtocolError()
    {
        protocolErrors.incrementRelease();
    }

    public void onConnectionLost()
    {
        connectionsLost.incrementRelease();
    }

    public void onConnectionClosed()
    {
        connectionsClosed.incrementRelease();
    }

    public void onSetupRejected()
    {
        setupsRejected.incrementRelease();
    }

    public void onSetupTimeout()
    {
        setupTimeouts.incrementRelease();
    }

    public void onLimitRejection()
    {
        limitRejections.increment(); // also from producer threads
    }

    /**
     * Sender agent, once per duty cycle that wrote to this connection's link (batched, not per frame).
     *
     * @param frames   frames written.
     * @param bytes    bytes of those frames.
     * @param messages whole messages among them.
     */
    public void onFramesSent(final int frames, final long bytes, final int messages)
    {
        framesOut.getAndAddRelease(frames);
        bytesOut.getAndAddRelease(bytes);
        if (messages > 0)
        {
            messagesOut.getAndAddRelease(messages);
        }
    }

    /**
     * Conductor: a request-response this node sent got its reply.
     *
     * @param roundTripNs from writing the request into the outbound ring to the reply's arrival.
     */
    public void onRequestResponseReply(final long roundTripNs)
    {
        requestLatency.record(roundTripNs);
    }

    /** @return the connection's credit-stall counter (producer threads; rolls up into the node's). */
    public AtomicCounter creditStalls()
    {
        return creditStalls;
    }

    /** @return the connection's back-pressure counter for its outbound ring (rolls up into the node's). */
    public AtomicCounter backPressure()
    {
        return backPressure;
    }

    /** Frees this connection's own counters (the node-wide totals stay). Idempotent. */
    @Override
    public void close()
    {
        if (!owned)
        {
            return;
        }
        framesIn.close();
        bytesIn.close();
        messagesIn.close();
        framesOut.close();
        bytesOut.close();
        messagesOut.close();
        creditStalls.close();
        backPressure.close();
    }

    @Override
    public String toString()
    {
        return "connection " + connectionId + " " + remoteAddress;
    }

    private AtomicCounter own(final NodeFileWriter factory, final int typeId, final String what)
    {
        return factory.newCounterReusedOnClose(typeId, connectionId, remoteAddress,
            "conn " + connectionId + " " + what + " (" + remoteAddress + ")");
    }
}
