package io.rivulet.engine;

import io.rivulet.codec.FrameHeader;
import io.rivulet.counters.NodeCounters;
import io.rivulet.protocol.ConnectionOutput;
import io.rivulet.protocol.Outbound;
import io.rivulet.protocol.SendMode;
import io.rivulet.protocol.SendReadiness;
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
 * <p>It visits only the connections with something to send. One whose ring is empty, whose link is flushed and
 * whose send mode is ACTIVE rests ({@link Outbound#rest()}) until output for it brings it back
 * through the {@link SendReadiness} queue, so a duty cycle costs the connections that are sending, not all of them.
 *
 * <p>Single-threaded: connections arrive through {@link #add(ConnectionOutput)} (any thread) and
 * leave when their {@link ConnectionOutput#sendMode()} says so.
 */
public final class Sender implements Agent
{
    private static final int FRAMES_PER_CONNECTION = 256;

    private final ManyToOneConcurrentLinkedQueue<ConnectionOutput> additions = new ManyToOneConcurrentLinkedQueue<>();
    /** Every connection the sender has. */
    private final ArrayList<ConnectionOutput> connections = new ArrayList<>();
    /** The ones it visits each cycle: those not resting. */
    private final ArrayList<ConnectionOutput> visiting = new ArrayList<>();
    private final SendReadiness readiness;
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

    /** @param counters the node's counters (frames and bytes sent). */
    public Sender(final NodeCounters counters)
    {
        this(counters, SendReadiness.DEFAULT_CAPACITY);
    }

    /**
     * @param counters          the node's counters (frames and bytes sent).
     * @param readinessCapacity resting connections that can come back between two passes before the sender visits
     *                          them all (tests make it small).
     */
    public Sender(final NodeCounters counters, final int readinessCapacity)
    {
        this.counters = counters;
        this.readiness = new SendReadiness(readinessCapacity);
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
            added.outbound().attachSender(readiness, added);
            visit(added);
            work++;
        }
        ConnectionOutput ready;
        while ((ready = readiness.poll()) != null)
        {
            resume(ready);
        }
        if (readiness.takeOverflow())
        {
            for (int i = 0; i < connections.size(); i++)
            {
                resume(connections.get(i));
            }
        }
        for (int i = visiting.size() - 1; i >= 0; i--)
        {
            final ConnectionOutput connection = visiting.get(i);
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
            else if (mode == SendMode.ACTIVE && isDrained(connection) && connection.outbound().rest())
            {
                stopVisiting(i, connection);
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

    /**
     * This sender's pass for the start of an INVOKER cycle, before the conductor's: what the application thread
     * produced since its last {@code invoke()} (a request, an offer) leaves before the conductor's reads and timers
     * instead of after them. The sender still runs last in the cycle, for what the conductor produced (replies,
     * credits). The pass has no life cycle of its own: the sender starts and closes once, in its own place.
     *
     * @return an agent that runs {@link #doWork()}.
     */
    public Agent leadingPass()
    {
        return new Agent()
        {
            @Override
            public int doWork()
            {
                return Sender.this.doWork();
            }

            @Override
            public String roleName()
            {
                return "rivulet-sender-leading-pass";
            }
        };
    }

    @Override
    public void onClose()
    {
        for (int i = connections.size() - 1; i >= 0; i--)
        {
            final ConnectionOutput connection = connections.get(i);
            connection.outbound().releasedBySender();
            connection.onSenderReleased();
        }
        connections.clear();
        visiting.clear();
    }

    /** @return connections the sender visits each cycle, the ones not resting (sender thread; tests, diagnostics). */
    public int visitingConnections()
    {
        return visiting.size();
    }

    private void visit(final ConnectionOutput connection)
    {
        connection.outbound().visited(true);
        visiting.add(connection);
    }

    /** A resting connection has output again (or the readiness queue overflowed): visit it from now on. */
    private void resume(final ConnectionOutput connection)
    {
        final Outbound outbound = connection.outbound();
        if (!outbound.isVisited() && !outbound.isReleasedBySender())
        {
            outbound.resume();
            visit(connection);
        }
    }

    /** Removes the connection at {@code index} of the visited ones; the last one takes its place (already visited). */
    private void stopVisiting(final int index, final ConnectionOutput connection)
    {
        connection.outbound().visited(false);
        final int last = visiting.size() - 1;
        visiting.set(index, visiting.get(last));
        visiting.remove(last);
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
        stopVisiting(index, connection);
        connections.remove(connection);
        connection.outbound().releasedBySender(); // a late entry in the readiness queue is ignored
        connection.onSenderReleased();
    }
}
