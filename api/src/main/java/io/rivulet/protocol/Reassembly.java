package io.rivulet.protocol;

import io.rivulet.Message;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;

/**
 * Collects the fragments of one message. Memory grows with the bytes that actually arrive, never
 * with a length the peer claims, and stops at the maximum message length.
 *
 * <p>Conductor only.
 */
final class Reassembly
{
    private final int maxMessageLength;
    private final ExpandableArrayBuffer metadata = new ExpandableArrayBuffer(0);
    private final ExpandableArrayBuffer data = new ExpandableArrayBuffer(256);
    private int metadataLength;
    private int dataLength;

    Reassembly(final int maxMessageLength)
    {
        this.maxMessageLength = maxMessageLength;
    }

    /**
     * @return false when the message would exceed the maximum length.
     */
    boolean append(
        final DirectBuffer buffer,
        final int metadataOffset,
        final int metadataChunk,
        final int dataOffset,
        final int dataChunk)
    {
        if ((long)metadataLength + dataLength + metadataChunk + dataChunk > maxMessageLength)
        {
            return false;
        }
        if (metadataChunk > 0)
        {
            metadata.putBytes(metadataLength, buffer, metadataOffset, metadataChunk);
            metadataLength += metadataChunk;
        }
        if (dataChunk > 0)
        {
            data.putBytes(dataLength, buffer, dataOffset, dataChunk);
            dataLength += dataChunk;
        }
        return true;
    }

    /** @return an owned message holding exact copies of the collected bytes. */
    Message toMessage()
    {
        final byte[] d = new byte[dataLength];
        data.getBytes(0, d);
        final Message message = Message.of(d);
        if (metadataLength == 0)
        {
            return message;
        }
        final byte[] m = new byte[metadataLength];
        metadata.getBytes(0, m);
        return message.metadata(m);
    }

    DirectBuffer metadataBuffer()
    {
        return metadata;
    }

    DirectBuffer dataBuffer()
    {
        return data;
    }

    int metadataLength()
    {
        return metadataLength;
    }

    int dataLength()
    {
        return dataLength;
    }
}
