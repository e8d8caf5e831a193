package io.rivulet;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A reusable flyweight over a message in engine memory, handed to a {@link MessageHandler}. Its
 * buffers are re-pointed for every message; they are valid only during the handler call.
 *
 * <p>Not thread-safe; owned by the engine thread.
 */
public final class MessageView
{
    private static final byte[] EMPTY = new byte[0];

    private final UnsafeBuffer metadata = new UnsafeBuffer(EMPTY);
    private final UnsafeBuffer data = new UnsafeBuffer(EMPTY);

    /** @return the data: offset 0, {@link #dataLength()} bytes. */
    public DirectBuffer data()
    {
        return data;
    }

    /** @return the metadata: offset 0, {@link #metadataLength()} bytes (0 when none). */
    public DirectBuffer metadata()
    {
        return metadata;
    }

    public int dataLength()
    {
        return data.capacity();
    }

    public int metadataLength()
    {
        return metadata.capacity();
    }

    /** @return an owned copy that stays valid after the handler returns. */
    public Message toMessage()
    {
        final byte[] d = new byte[data.capacity()];
        data.getBytes(0, d);
        final Message message = Message.of(d);
        if (metadata.capacity() == 0)
        {
            return message;
        }
        final byte[] m = new byte[metadata.capacity()];
        metadata.getBytes(0, m);
        return message.metadata(m);
    }

    /**
     * Points the view at a message; the engine's use, not the application's.
     *
     * @param buffer         holding the bytes.
     * @param metadataOffset of the metadata.
     * @param metadataLength of the metadata.
     * @param dataOffset     of the data.
     * @param dataLength     of the data.
     * @return this view.
     */
    public MessageView wrap(
        final DirectBuffer buffer,
        final int metadataOffset,
        final int metadataLength,
        final int dataOffset,
        final int dataLength)
    {
        wrapPart(metadata, buffer, metadataOffset, metadataLength);
        wrapPart(data, buffer, dataOffset, dataLength);
        return this;
    }

    /**
     * Points the view at metadata and data held in two buffers (a reassembled message).
     */
    public MessageView wrap(
        final DirectBuffer metadataBuffer,
        final int metadataLength,
        final DirectBuffer dataBuffer,
        final int dataLength)
    {
        wrapPart(metadata, metadataBuffer, 0, metadataLength);
        wrapPart(data, dataBuffer, 0, dataLength);
        return this;
    }

    private static void wrapPart(final UnsafeBuffer view, final DirectBuffer buffer, final int offset, final int length)
    {
        if (length == 0)
        {
            view.wrap(EMPTY);
        }
        else
        {
            view.wrap(buffer, offset, length);
        }
    }
}
