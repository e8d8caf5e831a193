package io.rivulet.actors;

import io.rivulet.counters.NodeCounters;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.nio.ByteBuffer;

/**
 * An actor system's counters, kept like the engine's ({@code NodeCounters}) in an Agrona
 * {@link CountersManager}. Incrementing is allocation-free.
 *
 * <p>Thread-safe: any thread increments; reading is safe at any time.
 */
public final class ActorCounters
{
    private static final int MAX_COUNTERS = 32;

    private final CountersManager manager = new CountersManager(
        new UnsafeBuffer(ByteBuffer.allocateDirect(MAX_COUNTERS * CountersReader.METADATA_LENGTH)),
        new UnsafeBuffer(ByteBuffer.allocateDirect(MAX_COUNTERS * CountersReader.COUNTER_LENGTH)));

    /** Actors spawned. */
    public final AtomicCounter spawned = manager.newCounter("actors spawned");
    /** Actors stopped, for any reason. */
    public final AtomicCounter stopped = manager.newCounter("actors stopped");
    /** Failures of behaviours (each is also reported to the error handler). */
    public final AtomicCounter failures = manager.newCounter("actor failures");
    /** Restarts by supervisor strategies. */
    public final AtomicCounter restarts = manager.newCounter("actor restarts");
    /** Messages refused by full mailboxes with the REJECT policy (local and from other nodes). */
    public final AtomicCounter mailboxRejected = manager.newCounter("mailbox rejections");
    /** Sends that found a full queue and waited (BACK_PRESSURE). */
    public final AtomicCounter backPressureWaits = manager.newCounter("back-pressure waits");
    /** Sends that gave up after waiting the send timeout. */
    public final AtomicCounter sendTimeouts = manager.newCounter("send timeouts");
    /** Messages that reached nobody: to stopped or unknown actors, dropped with a broken channel, stray replies. */
    public final AtomicCounter deadLetters = manager.newCounter("dead letters");
    /** Asks sent. */
    public final AtomicCounter asks = manager.newCounter("asks");
    /** Asks that timed out. */
    public final AtomicCounter askTimeouts = manager.newCounter("ask timeouts");
    /** Envelopes sent to other nodes (tells, asks, replies). */
    public final AtomicCounter remoteSent = manager.newCounter("remote envelopes sent");
    /** Envelopes received from other nodes. */
    public final AtomicCounter remoteReceived = manager.newCounter("remote envelopes received");
    /** Channels to remote actors opened by this system. */
    public final AtomicCounter channelsOpened = manager.newCounter("actor channels opened");
    /** Terminated notifications delivered to watchers. */
    public final AtomicCounter watchNotifications = manager.newCounter("watch notifications");
    /** Malformed envelopes from other nodes (the channel is closed). */
    public final AtomicCounter protocolErrors = manager.newCounter("actor protocol errors");
    /** Messages or replies that could not be serialized or deserialized. */
    public final AtomicCounter serializationErrors = manager.newCounter("serialization errors");

    /** @return a reader over every counter. */
    public CountersReader reader()
    {
        return manager;
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder();
        manager.forEach((value, id, label) -> text.append(label).append(": ").append(value).append('\n'));
        return text.toString();
    }
}
