package io.rivulet.engine;

import io.rivulet.protocol.ConnectionCounters;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.nio.ByteBuffer;

/**
 * The node's counters, kept in an Agrona {@link CountersManager} so that they can later be mapped to
 * a file and read from outside the process, like Aeron's. Incrementing is allocation-free.
 *
 * <p>Thread-safe for reading; each counter has the writers named in its javadoc.
 */
public final class EngineCounters
{
    private static final int MAX_COUNTERS = 64;

    private final CountersManager manager = new CountersManager(
        new UnsafeBuffer(ByteBuffer.allocateDirect(MAX_COUNTERS * CountersReader.METADATA_LENGTH)),
        new UnsafeBuffer(ByteBuffer.allocateDirect(MAX_COUNTERS * CountersReader.COUNTER_LENGTH)));

    /** Frames written to links (sender). */
    public final AtomicCounter framesSent = manager.newCounter("frames sent");
    /** Bytes of frames written to links (sender). */
    public final AtomicCounter bytesSent = manager.newCounter("bytes sent");
    /** Frames read from links (conductor). */
    public final AtomicCounter framesReceived = manager.newCounter("frames received");
    /** Bytes of frames read from links (conductor). */
    public final AtomicCounter bytesReceived = manager.newCounter("bytes received");
    /** Fire-and-forget messages handed to a responder (conductor). */
    public final AtomicCounter messagesReceived = manager.newCounter("fire-and-forget messages received");
    /** Times a producer used up the credits its peer had granted (producer threads). */
    public final AtomicCounter creditStalls = manager.newCounter("credit stalls");
    /** Writes that found an outbound ring full (any thread). */
    public final AtomicCounter backPressureEvents = manager.newCounter("back-pressure events");
    /** Connections closed for a protocol violation or rejected set-up (conductor). */
    public final AtomicCounter protocolErrors = manager.newCounter("protocol errors");
    /** Connections lost to I/O errors or keepalive timeouts (conductor). */
    public final AtomicCounter connectionsLost = manager.newCounter("connections lost");
    /** Connections opened, either side (conductor). */
    public final AtomicCounter connectionsOpened = manager.newCounter("connections opened");
    /** Connections fully closed, either side (conductor). */
    public final AtomicCounter connectionsClosed = manager.newCounter("connections closed");
    /** Connections refused by the authenticator at SETUP (conductor). */
    public final AtomicCounter setupsRejected = manager.newCounter("setups rejected");
    /** Accepted connections closed for sending no SETUP in time (conductor). */
    public final AtomicCounter setupTimeouts = manager.newCounter("setup timeouts");
    /** Connections, streams or sends refused for crossing a configured limit (conductor, producer threads). */
    public final AtomicCounter limitRejections = manager.newCounter("limit rejections");
    /** Accepted links dropped before they came up, such as a failed TLS handshake (conductor). */
    public final AtomicCounter linksRejected = manager.newCounter("links rejected");
    /** Region operations this node's engine applied for peers: TCP emulation, never on RDMA (conductor). */
    public final AtomicCounter regionOpsEmulated = manager.newCounter("region ops emulated");
    /** One-sided region operations this node posted to peers' memory (conductor). */
    public final AtomicCounter regionOpsPosted = manager.newCounter("region ops posted one-sided");
    /** Errors passed to the error handler (any thread). */
    public final AtomicCounter errors = manager.newCounter("errors");

    /** @return a reader over every counter, for tools and tests. */
    public CountersReader reader()
    {
        return manager;
    }

    /** @return the subset a connection updates. */
    public ConnectionCounters connectionCounters()
    {
        return new ConnectionCounters(framesReceived, bytesReceived, messagesReceived, creditStalls, protocolErrors,
            connectionsLost, connectionsClosed, setupsRejected, setupTimeouts, limitRejections);
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder();
        manager.forEach((value, id, label) -> text.append(label).append(": ").append(value).append('\n'));
        return text.toString();
    }
}
