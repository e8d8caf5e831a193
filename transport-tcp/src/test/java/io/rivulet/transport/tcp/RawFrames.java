package io.rivulet.transport.tcp;

import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Frames as a raw TCP peer writes them, each behind the 4-byte little-endian length prefix of {@link TcpLink}, and
 * a blocking reader for what a node sends back: for tests that speak the wire themselves (a peer without an engine,
 * or one that misbehaves on purpose).
 *
 * <p>Not thread-safe: one per thread.
 */
public final class RawFrames
{
    /** The protocol version a node speaks. */
    public static final int PROTOCOL_VERSION = 1;

    private final FrameWriter writer = new FrameWriter();
    private final FrameReader reader = new FrameReader();

    /** A frame a node sent: its type, stream, flags, error code and text (ERROR, CLOSE) and data (PAYLOAD). */
    public record Frame(int type, int streamId, byte flags, int errorCode, String text, byte[] data)
    {
    }

    /**
     * @param token          the SETUP metadata (the authentication token); empty for none.
     * @param keepaliveMs    the keepalive interval the client asks for.
     * @param timeoutMs      the keepalive timeout the client asks for.
     * @param maxFrameLength the largest frame the client accepts.
     * @return a length-prefixed SETUP.
     */
    public byte[] setup(final String token, final int keepaliveMs, final int timeoutMs, final int maxFrameLength)
    {
        final byte[] metadata = token.getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[FrameWriter.setupLength(metadata.length, 0)]);
        final int length = writer.writeSetup(buffer, 0, PROTOCOL_VERSION, keepaliveMs, timeoutMs, maxFrameLength,
            metadata, new byte[0]);
        return prefixed(buffer.byteArray(), length);
    }

    /**
     * @param type            REQUEST_RESPONSE, REQUEST_STREAM, REQUEST_CHANNEL, REQUEST_FNF or PAYLOAD.
     * @param streamId        the stream (odd: the client's).
     * @param initialRequestN credits for a stream or channel.
     * @param flags           {@code FrameFlags} bits (FOLLOWS for a fragment that is not the last).
     * @param data            the data bytes.
     * @return a length-prefixed payload-carrying frame.
     */
    public byte[] payloadFrame(final int type, final int streamId, final int initialRequestN, final byte flags,
        final byte[] data)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[FrameWriter.payloadFrameLength(type, 0, data.length)]);
        final int length = writer.writePayloadFrame(buffer, 0, type, streamId, initialRequestN, flags, null, 0, 0,
            new UnsafeBuffer(data), 0, data.length);
        return prefixed(buffer.byteArray(), length);
    }

    /** @return a length-prefixed KEEPALIVE. */
    public byte[] keepalive(final boolean respond)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[FrameWriter.keepaliveLength()]);
        return prefixed(buffer.byteArray(), writer.writeKeepalive(buffer, 0, respond, System.nanoTime()));
    }

    /**
     * Reads one frame, blocking (give the socket a read timeout).
     *
     * @param in             the socket's input.
     * @param maxFrameLength the longest frame accepted; a longer length prefix is an error.
     * @return the frame.
     * @throws EOFException when the node closed the connection.
     * @throws IOException  on a read error, a timeout, or a frame that is not well formed.
     */
    public Frame read(final InputStream in, final int maxFrameLength) throws IOException
    {
        final byte[] prefix = in.readNBytes(TcpLink.LENGTH_PREFIX_LENGTH);
        if (prefix.length < TcpLink.LENGTH_PREFIX_LENGTH)
        {
            throw new EOFException("closed by the node");
        }
        final int length = ByteBuffer.wrap(prefix).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (length <= 0 || length > maxFrameLength)
        {
            throw new IOException("length prefix " + length + " out of bounds");
        }
        final byte[] frame = in.readNBytes(length);
        if (frame.length < length)
        {
            throw new EOFException("closed by the node within a frame");
        }
        if (!reader.wrap(new UnsafeBuffer(frame), 0, length))
        {
            throw new IOException("malformed frame from the node: " + reader.error());
        }
        final int type = reader.frameType();
        final boolean hasText = type == FrameType.ERROR || type == FrameType.CLOSE;
        final byte[] data = new byte[type == FrameType.PAYLOAD ? reader.dataLength() : 0];
        if (data.length > 0)
        {
            reader.buffer().getBytes(reader.dataOffset(), data);
        }
        return new Frame(type, reader.streamId(), reader.flags(), hasText ? reader.errorCode() : 0,
            hasText ? reader.text() : null, data);
    }

    /** @return the frame behind its 4-byte little-endian length prefix. */
    public static byte[] prefixed(final byte[] frame, final int length)
    {
        final byte[] out = new byte[TcpLink.LENGTH_PREFIX_LENGTH + length];
        ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).putInt(length);
        System.arraycopy(frame, 0, out, TcpLink.LENGTH_PREFIX_LENGTH, length);
        return out;
    }

    /** @return the frames one after the other, as one write. */
    public static byte[] concat(final byte[]... frames)
    {
        int length = 0;
        for (final byte[] frame : frames)
        {
            length += frame.length;
        }
        final byte[] out = Arrays.copyOf(frames[0], length);
        int offset = frames[0].length;
        for (int i = 1; i < frames.length; i++)
        {
            System.arraycopy(frames[i], 0, out, offset, frames[i].length);
            offset += frames[i].length;
        }
        return out;
    }
}
