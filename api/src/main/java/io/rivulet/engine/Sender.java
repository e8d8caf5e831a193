package io.rivulet.engine;

import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.wire.MessageHeaderDecoder;
import io.rivulet.codec.wire.PayloadDecoder;
import io.rivulet.codec.wire.RequestStreamDecoder;
import io.rivulet.protocol.ProtocolConnection;
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
 * <p>Single-threaded: connections arrive through {@link #add(ProtocolConnection)} (any thread) and
 * leave when their {@link ProtocolConnection#sendMode()} says so.
 */
public final class Sender implements Agent
{
    private static final int FRAMES_PER_CONNECTION = 256;

    private final ManyToOneConcurrentLinkedQueue<ProtocolConnection> additions = new ManyToOneConcurrentLinkedQueue<>();
    private final ArrayList<ProtocolConnection> connections = new ArrayList<>();
    private final EngineCounters counters;
    private final ControlledMessageHandler frameHandler = this::onFrame;
    private ReliableLink currentLink;
    private int framesSent;
    private long bytesSent;
    /** What the current connection's send wrote, for its own counters. */
    private int connectionFrames;
    private long connectionBytes;
    private int connectionMessages;

    public Sender(final EngineCounters counters)
    {
        this.counters = counters;
    }

    /** Any thread: start draining this connection. */
    public void add(final ProtocolConnection connection)
    {
        additions.offer(connection);
    }

    @Override
    public int doWork()
    {
        int work = 0;
        ProtocolConnection added;
        while ((added = additions.poll()) != null)
        {
            connections.add(added);
            work++;
        }
        for (int i = connections.size() - 1; i >= 0; i--)
        {
            final ProtocolConnection connection = connections.get(i);
            final ProtocolConnection.SendMode mode = connection.sendMode();
            if (mode == ProtocolConnection.SendMode.RELEASE)
            {
                release(i, connection);
                work++;
                continue;
            }
            work += send(connection);
            if (mode == ProtocolConnection.SendMode.DRAIN && isDrained(connection))
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

    private int send(final ProtocolConnection connection)
    {
        final ReliableLink link = connection.link();
        currentLink = link;
        connectionFrames = 0;
        connectionBytes = 0;
        connectionMessages = 0;
        final int frames = connection.outboundRing().ring().controlledRead(frameHandler, FRAMES_PER_CONNECTION);
        if (connectionFrames > 0)
        {
            connection.counters().onFramesSent(connectionFrames, connectionBytes, connectionMessages);
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
            if (endsMessage(buffer, index, length))
            {
                connectionMessages++;
            }
            return ControlledMessageHandler.Action.CONTINUE;
        }
        return ControlledMessageHandler.Action.ABORT;
    }

    /**
     * Whether an outbound frame (encoded by this node, so well-formed) is the last or only frame of an application
     * message: a request, or a PAYLOAD with NEXT, without FOLLOWS. Reads two header bytes and one flag byte.
     */
    static boolean endsMessage(final DirectBuffer buffer, final int index, final int length)
    {
        if (length < MessageHeaderDecoder.ENCODED_LENGTH)
        {
            return false;
        }
        final int type = buffer.getShort(index + MessageHeaderDecoder.templateIdEncodingOffset(),
            java.nio.ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        if (!FrameType.carriesPayload(type))
        {
            return false;
        }
        final int blockOffset = index + MessageHeaderDecoder.ENCODED_LENGTH;
        final int flagsOffset = type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL ?
            RequestStreamDecoder.flagsEncodingOffset() : PayloadDecoder.flagsEncodingOffset();
        if (blockOffset + flagsOffset >= index + length)
        {
            return false;
        }
        final byte flags = buffer.getByte(blockOffset + flagsOffset);
        return !FrameFlags.isSet(flags, FrameFlags.FOLLOWS) &&
            (type != FrameType.PAYLOAD || FrameFlags.isSet(flags, FrameFlags.NEXT));
    }

    private static boolean isDrained(final ProtocolConnection connection)
    {
        final ManyToOneRingBuffer ring = connection.outboundRing().ring();
        return ring.consumerPosition() == ring.producerPosition() && connection.link().isFlushed();
    }

    private void release(final int index, final ProtocolConnection connection)
    {
        connections.remove(index);
        connection.onSenderReleased();
    }
}
