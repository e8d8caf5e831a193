package io.rivulet.protocol;

import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;

/**
 * One frame as it crossed an {@link InMemoryLink}, decoded with the codec's {@link FrameReader} so
 * that tests can assert on its fields. Test support.
 */
record SentFrame(
    int type,
    int streamId,
    byte flags,
    int initialRequestN,
    int requestN,
    int errorCode,
    boolean respond,
    int protocolVersion,
    int maxFrameLength,
    int keepaliveIntervalMs,
    int keepaliveTimeoutMs,
    byte[] metadata,
    byte[] data,
    int length)
{
    static SentFrame decode(final byte[] bytes)
    {
        final FrameReader reader = new FrameReader();
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        if (!reader.wrap(buffer, 0, bytes.length))
        {
            throw new AssertionError("malformed frame sent: " + reader.error());
        }
        final int type = reader.frameType();
        final byte[] metadata = new byte[reader.metadataLength()];
        buffer.getBytes(reader.metadataOffset(), metadata);
        final byte[] data = new byte[reader.dataLength()];
        buffer.getBytes(reader.dataOffset(), data);
        return new SentFrame(
            type,
            reader.streamId(),
            reader.flags(),
            type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL ? reader.initialRequestN() : 0,
            type == FrameType.REQUEST_N ? reader.requestN() : 0,
            type == FrameType.ERROR || type == FrameType.CLOSE ? reader.errorCode() : 0,
            type == FrameType.KEEPALIVE && reader.respond(),
            type == FrameType.SETUP ? reader.protocolVersion() : 0,
            type == FrameType.SETUP ? reader.maxFrameLength() : 0,
            type == FrameType.SETUP ? reader.keepaliveIntervalMs() : 0,
            type == FrameType.SETUP ? reader.keepaliveTimeoutMs() : 0,
            metadata,
            data,
            bytes.length);
    }

    boolean has(final byte flag)
    {
        return FrameFlags.isSet(flags, flag);
    }

    /** @return the UTF-8 text of an ERROR or CLOSE frame. */
    String text()
    {
        return new String(data, StandardCharsets.UTF_8);
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder(FrameType.name(type)).append("{stream=").append(streamId);
        if (flags != 0)
        {
            text.append(", flags=").append(has(FrameFlags.FOLLOWS) ? "F" : "")
                .append(has(FrameFlags.COMPLETE) ? "C" : "").append(has(FrameFlags.NEXT) ? "N" : "");
        }
        if (type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL)
        {
            text.append(", initialRequestN=").append(initialRequestN);
        }
        if (type == FrameType.REQUEST_N)
        {
            text.append(", n=").append(requestN);
        }
        if (type == FrameType.ERROR || type == FrameType.CLOSE)
        {
            text.append(", code=").append(errorCode).append(", text=").append(text());
        }
        if (metadata.length + data.length > 0 && type != FrameType.ERROR && type != FrameType.CLOSE)
        {
            text.append(", metadata=").append(metadata.length).append(", data=").append(data.length);
        }
        return text.append('}').toString();
    }
}
