package io.rivulet.protocol;

import io.rivulet.Message;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import org.agrona.DirectBuffer;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * Writes one stream's frames into the connection's {@link Outbound} ring, fragmenting messages
 * larger than a frame. It never blocks: when the ring is full the rest of the message is parked,
 * in order, and the conductor writes it when space returns. Once anything is parked, later frames
 * of the stream queue behind it, so a stream's frames leave in the order they were sent.
 *
 * <p>Fragments: the first frame has the message's frame type and FOLLOWS; the following ones are
 * PAYLOAD frames, the last without FOLLOWS and with the message's own flags (NEXT, COMPLETE).
 * Metadata is sent before data.
 *
 * <p>Thread-safe: the stream's producer (one thread at a time, as Reactive Streams guarantee) and the
 * conductor may both send; the parked queue is concurrent and only the conductor retries it.
 */
final class StreamWriter
{
    private static final int DONE = -1;
    @SuppressWarnings("rawtypes")
    private static final AtomicReferenceFieldUpdater<StreamWriter, ConcurrentLinkedQueue> PARKED =
        AtomicReferenceFieldUpdater.newUpdater(StreamWriter.class, ConcurrentLinkedQueue.class, "parked");
    private static final AtomicIntegerFieldUpdater<StreamWriter> SCHEDULED =
        AtomicIntegerFieldUpdater.newUpdater(StreamWriter.class, "scheduled");

    private final Outbound outbound;
    /** Frames waiting for ring space; made on the first park, as most streams never park (one per request). */
    private volatile ConcurrentLinkedQueue<ParkedFrame> parked;
    /** 1 while this writer is registered with the outbound for {@link #flushParked()}. */
    private volatile int scheduled;
    private volatile int streamId;

    StreamWriter(final Outbound outbound)
    {
        this.outbound = outbound;
    }

    void streamId(final int streamId)
    {
        this.streamId = streamId;
    }

    int streamId()
    {
        return streamId;
    }

    /**
     * Sends a message as one or more frames.
     *
     * @param frameType       REQUEST_* or PAYLOAD for the first frame.
     * @param initialRequestN credits carried by REQUEST_STREAM / REQUEST_CHANNEL.
     * @param flags           NEXT / COMPLETE of the message.
     * @param message         the message, or null for a frame without one (a bare COMPLETE).
     */
    void sendMessage(final int frameType, final int initialRequestN, final byte flags, final Message message)
    {
        if (outbound.isClosed())
        {
            return;
        }
        int position = 0;
        if (nothingParked())
        {
            position = writeMessage(frameType, initialRequestN, flags, message, 0);
            if (position == DONE)
            {
                return;
            }
        }
        park(new ParkedFrame(ParkedFrame.MESSAGE, frameType, initialRequestN, flags, message, position));
    }

    void sendRequestN(final int n)
    {
        sendControl(ParkedFrame.REQUEST_N, n);
    }

    void sendCancel()
    {
        sendControl(ParkedFrame.CANCEL, 0);
    }

    void sendError(final ErrorCode code, final String text)
    {
        if (outbound.isClosed())
        {
            return;
        }
        final ParkedFrame frame = new ParkedFrame(ParkedFrame.ERROR, FrameType.ERROR, 0, (byte)0, null, 0);
        frame.errorCode = code;
        frame.text = FrameWriter.utf8(text, Math.min(1024, outbound.maxFrameLength() - FrameWriter.errorLength(0)));
        if (!nothingParked() || !write(frame))
        {
            park(frame);
        }
    }

    private void sendControl(final int kind, final int n)
    {
        if (outbound.isClosed())
        {
            return;
        }
        if (!nothingParked() || !writeControl(kind, n))
        {
            park(new ParkedFrame(kind, 0, n, (byte)0, null, 0));
        }
    }

    private boolean nothingParked()
    {
        final ConcurrentLinkedQueue<ParkedFrame> queue = parked;
        return queue == null || queue.isEmpty();
    }

    @SuppressWarnings("unchecked")
    private ConcurrentLinkedQueue<ParkedFrame> parkedQueue()
    {
        final ConcurrentLinkedQueue<ParkedFrame> queue = parked;
        if (queue != null)
        {
            return queue;
        }
        PARKED.compareAndSet(this, null, new ConcurrentLinkedQueue<ParkedFrame>());
        return parked;
    }

    private void park(final ParkedFrame frame)
    {
        outbound.addParkedBytes(frame.messageLength());
        parkedQueue().add(frame);
        schedule();
        if (outbound.isClosed())
        {
            dropParked(); // closed meanwhile: the conductor may have drained the writers already
        }
    }

    /** The connection is closed: parked frames will never be sent; their bytes go back to the budget. */
    private void dropParked()
    {
        final ConcurrentLinkedQueue<ParkedFrame> queue = parkedQueue();
        ParkedFrame frame;
        while ((frame = queue.poll()) != null)
        {
            outbound.addParkedBytes(-frame.messageLength());
        }
    }

    private void schedule()
    {
        if (SCHEDULED.compareAndSet(this, 0, 1))
        {
            outbound.park(this);
        }
    }

    /**
     * Conductor: writes parked frames while the ring has room.
     *
     * @return frames completed.
     */
    int flushParked()
    {
        final ConcurrentLinkedQueue<ParkedFrame> parked = parkedQueue();
        int work = 0;
        ParkedFrame frame;
        while ((frame = parked.peek()) != null)
        {
            if (outbound.isClosed())
            {
                dropParked();
                break;
            }
            // Peek, write, then remove: a producer that sees the queue non-empty queues behind the frame.
            if (!write(frame))
            {
                outbound.park(this);
                return work;
            }
            parked.poll();
            outbound.addParkedBytes(-frame.messageLength());
            work++;
        }
        scheduled = 0;
        // A producer may have parked after the loop saw the queue empty but before the flag cleared.
        if (!parked.isEmpty())
        {
            schedule();
        }
        return work;
    }

    /** @return true when the whole frame (all fragments) is in the ring. */
    private boolean write(final ParkedFrame frame)
    {
        switch (frame.kind)
        {
            case ParkedFrame.MESSAGE:
                frame.position = writeMessage(frame.frameType, frame.initialRequestN, frame.flags, frame.message,
                    frame.position);
                return frame.position == DONE;

            case ParkedFrame.ERROR:
            {
                final int index = outbound.claim(FrameWriter.errorLength(frame.text.length));
                if (index <= 0)
                {
                    return false;
                }
                Frames.writer().writeError(outbound.ring().buffer(), index, streamId, frame.errorCode, frame.text);
                outbound.commit(index);
                return true;
            }

            default:
                return writeControl(frame.kind, frame.initialRequestN);
        }
    }

    private boolean writeControl(final int kind, final int n)
    {
        final boolean requestN = kind == ParkedFrame.REQUEST_N;
        final int index = outbound.claim(requestN ? FrameWriter.requestNLength() : FrameWriter.cancelLength());
        if (index <= 0)
        {
            return false;
        }
        if (requestN)
        {
            Frames.writer().writeRequestN(outbound.ring().buffer(), index, streamId, n);
        }
        else
        {
            Frames.writer().writeCancel(outbound.ring().buffer(), index, streamId);
        }
        outbound.commit(index);
        return true;
    }

    /**
     * Writes fragments from a position in [metadata | data] on.
     *
     * @return the new position, or DONE once the last fragment is written.
     */
    private int writeMessage(
        final int messageFrameType,
        final int initialRequestN,
        final byte messageFlags,
        final Message message,
        final int startPosition)
    {
        final int metadataLength = message == null ? 0 : message.metadataLength();
        final int dataLength = message == null ? 0 : message.dataLength();
        // No view for what is empty: a message makes its views on first use.
        final DirectBuffer metadata = metadataLength == 0 ? null : message.metadata();
        final DirectBuffer data = dataLength == 0 ? null : message.data();
        final int total = metadataLength + dataLength;
        final FrameWriter writer = Frames.writer();
        final int id = streamId;
        int position = startPosition;

        while (true)
        {
            // Any fragment written moves the position past 0 or finishes the message, so 0 means first.
            final int frameType = position == 0 ? messageFrameType : FrameType.PAYLOAD;
            final int budget = outbound.maxFrameLength() - FrameWriter.payloadFrameOverhead(frameType);
            final int metadataStart = Math.min(position, metadataLength);
            final int metadataChunk = Math.min(metadataLength - metadataStart, budget);
            final int dataStart = Math.max(0, position - metadataLength);
            final int dataChunk = Math.min(total - metadataLength - dataStart, budget - metadataChunk);
            final boolean last = position + metadataChunk + dataChunk == total;
            final byte flags = last ? messageFlags : FrameFlags.FOLLOWS;

            final int index = outbound.claim(FrameWriter.payloadFrameLength(frameType, metadataChunk, dataChunk));
            if (index <= 0)
            {
                return position;
            }
            writer.writePayloadFrame(outbound.ring().buffer(), index, frameType, id, initialRequestN, flags,
                metadata, metadataStart, metadataChunk, data, dataStart, dataChunk);
            outbound.commit(index);
            if (last)
            {
                return DONE;
            }
            position += metadataChunk + dataChunk;
        }
    }

    /** A frame, or the unsent rest of a message, waiting for ring space. Allocated only when parking. */
    private static final class ParkedFrame
    {
        static final int MESSAGE = 0;
        static final int REQUEST_N = 1;
        static final int CANCEL = 2;
        static final int ERROR = 3;

        final int kind;
        final int frameType;
        final int initialRequestN;
        final byte flags;
        final Message message;
        int position;
        ErrorCode errorCode;
        byte[] text;

        ParkedFrame(
            final int kind,
            final int frameType,
            final int initialRequestN,
            final byte flags,
            final Message message,
            final int position)
        {
            this.kind = kind;
            this.frameType = frameType;
            this.initialRequestN = initialRequestN;
            this.flags = flags;
            this.message = message;
            this.position = position;
        }

        /** @return the bytes of the message this frame carries, counted against the parked bound. */
        long messageLength()
        {
            return message == null ? 0 : (long)message.dataLength() + message.metadataLength();
        }
    }
}
