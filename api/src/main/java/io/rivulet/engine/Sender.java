package io.rivulet.engine;

import io.rivulet.codec.FrameHeader;
import io.rivulet.counters.NodeCounters;
import io.rivulet.protocol.ConnectionOutput;
import io.rivulet.protocol.SendMode;
import io.rivulet.spi.ReliableLink;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

import java.io.IOException;
import java.util.ArrayList;

/**
 * The sender agent: moves encoded frames from each connection's outbound ring to its link and
 * flushes the link. It knows nothing of streams; the frames were encoded by the producers.
 *
 * <p>Single-threaded: connections arrive through {@link #add(ConnectionOutput)} (any thread) and
 * leave when their {@link ConnectionOutput#sendMode()} says so.
 */
public final class Sender implements Agent
{
    private static final int FRAMES_PER_CONNECTION = 256;

    private final ManyToOneConcurrentLinkedQueue<ConnectionOutput> additions = new ManyToOneConcurrentLinkedQueue<>();
    private final ArrayList<ConnectionOutput> connections = new ArrayList<>();
    private final NodeCounters counters;
    private final ControlledMessageHandler frameHandler = this::onFrame;
    private ReliableLink currentLink;
    /** The connection being drained, and whether it logs the frames it sends (decided when it was created). */
    private ConnectionOutput currentConnection;
    private boolean logFrames;
    private int framesSent;
    private long bytesSent;
    /** What the current connection's send wrote, for its own counters. */
    private int connectionFrames;
    private long connectionBytes;
    private int connectionMessages;

    public Sender(final NodeCounters counters)
    {
        this.counters = counters;
    }

    /** Any thread: start draining this connection. */
    public void add(final ConnectionOutput connection)
    {
        additions.offer(connection);
    }

    @Override
    public int doWork()
    {
        int work = 0;
        ConnectionOutput added;
        while ((added = additions.poll()) != null)
        {
            connections.add(added);
            work++;
        }
        for (int i = connections.size() - 1; i >= 0; i--)
        {
            final ConnectionOutput connection = connections.get(i);
            final SendMode mode = connection.sendMode();
            if (mode == SendMode.RELEASE)
            {
                release(i, connection);
                work++;
                continue;
            }
            work += send(connection);
            if (mode == SendMode.DRAIN && isDrained(connection))
            {
                release(i, connection);
                work++;
            }
        }
        if (framesSent > 0)
        {
            counters.framesSent.getAndAddRelease(framesSent);
            counters.bytesSent.getAndAddRelease(bytesSent);
            framesSent = 0;
            bytesSent = 0;
        }
        return work;
    }

    @Override
    public void onClose()
    {
        for (int i = connections.size() - 1; i >= 0; i--)
        {
            release(i, connections.get(i));
        }
    }

    @Override
    public String roleName()
    {
        return "rivulet-sender";
    }

    private int send(final ConnectionOutput connection)
    {
        final ReliableLink link = connection.link();
        currentLink = link;
        currentConnection = connection;
        logFrames = connection.logsFrames();
        connectionFrames = 0;
        connectionBytes = 0;
        connectionMessages = 0;
        final ManyToOneRingBuffer ring = connection.outbound().ring();
        final long consumedBefore = ring.consumerPosition();
        final int frames = ring.controlledRead(frameHandler, FRAMES_PER_CONNECTION);
        if (connectionFrames > 0)
        {
            connection.onFramesSent(connectionFrames, connectionBytes, connectionMessages);
        }
        // Producers waiting for room are woken once a quarter of the ring is free, not after every pass: each wake-up
        // is an unpark on this thread, and a producer woken for a few frames' room fills it and waits again.
        if (ring.consumerPosition() != consumedBefore && ring.size() <= ring.capacity() - (ring.capacity() >> 2))
        {
            connection.outbound().onRoomMade();
        }
        try
        {
            return frames + (link.isFlushed() ? 0 : link.flush());
        }
        catch (final IOException ex)
        {
            connection.onSendFailed(ex);
            return 1;
        }
        catch (final RuntimeException ex)
        {
            connection.onSendFailed(new IOException(ex.toString(), ex));
            return 1;
        }
    }

    private ControlledMessageHandler.Action onFrame(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (currentLink.offer(buffer, index, length))
        {
            framesSent++;
            bytesSent += length;
            connectionFrames++;
            connectionBytes += length;
            if (FrameHeader.endsMessage(buffer, index, length))
            {
                connectionMessages++;
            }
            if (logFrames)
            {
                currentConnection.logFrameSent(buffer, index, length); // after the offer: only what the link took
            }
            return ControlledMessageHandler.Action.CONTINUE;
        }
        return ControlledMessageHandler.Action.ABORT;
    }

    private static boolean isDrained(final ConnectionOutput connection)
    {
        final ManyToOneRingBuffer ring = connection.outbound().ring();
        return ring.consumerPosition() == ring.producerPosition() && connection.link().isFlushed();
    }

    private void release(final int index, final ConnectionOutput connection)
    {
        connections.remove(index);
        connection.onSenderReleased();
    }
}
