package io.rivulet.protocol;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * The node-wide counters a connection adds to. Conductor-side increments use the ordered
 * (single-writer) forms; {@link #creditStalls()} is incremented by producer threads.
 */
public final class ConnectionCounters
{
    private final AtomicCounter framesReceived;
    private final AtomicCounter bytesReceived;
    private final AtomicCounter messagesReceived;
    private final AtomicCounter creditStalls;
    private final AtomicCounter protocolErrors;
    private final AtomicCounter connectionsLost;
    private final AtomicCounter connectionsClosed;
    private final AtomicCounter setupsRejected;
    private final AtomicCounter setupTimeouts;
    private final AtomicCounter limitRejections;

    public ConnectionCounters(
        final AtomicCounter framesReceived,
        final AtomicCounter bytesReceived,
        final AtomicCounter messagesReceived,
        final AtomicCounter creditStalls,
        final AtomicCounter protocolErrors,
        final AtomicCounter connectionsLost,
        final AtomicCounter connectionsClosed,
        final AtomicCounter setupsRejected,
        final AtomicCounter setupTimeouts,
        final AtomicCounter limitRejections)
    {
        this.framesReceived = framesReceived;
        this.bytesReceived = bytesReceived;
        this.messagesReceived = messagesReceived;
        this.creditStalls = creditStalls;
        this.protocolErrors = protocolErrors;
        this.connectionsLost = connectionsLost;
        this.connectionsClosed = connectionsClosed;
        this.setupsRejected = setupsRejected;
        this.setupTimeouts = setupTimeouts;
        this.limitRejections = limitRejections;
    }

    void onFrameReceived(final int length)
    {
        framesReceived.incrementRelease();
        bytesReceived.getAndAddRelease(length);
    }

    void onMessageReceived()
    {
        messagesReceived.incrementRelease();
    }

    void onProtocolError()
    {
        protocolErrors.incrementRelease();
    }

    void onConnectionLost()
    {
        connectionsLost.incrementRelease();
    }

    void onConnectionClosed()
    {
        connectionsClosed.incrementRelease();
    }

    void onSetupRejected()
    {
        setupsRejected.incrementRelease();
    }

    void onSetupTimeout()
    {
        setupTimeouts.incrementRelease();
    }

    void onLimitRejection()
    {
        limitRejections.increment(); // also from producer threads
    }

    AtomicCounter creditStalls()
    {
        return creditStalls;
    }
}
