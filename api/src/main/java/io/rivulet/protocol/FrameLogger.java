package io.rivulet.protocol;

import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameHeader;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.spi.ReliableLink;
import org.agrona.DirectBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs every frame of one connection in one direction at DEBUG on the logger {@value #NAME}, one line per frame:
 * direction, connection id and addresses, frame type, stream id, flags, frame length, and the metadata and data
 * lengths with their first {@value #MAX_SHOWN_BYTES} bytes in hex and printable ASCII. Like RSocket's FrameLogger.
 *
 * <p>Whether a connection logs is decided once, when it is created ({@link #inbound}, {@link #outbound} return null
 * when DEBUG is off): the hooks then cost one null check of a final field per frame and allocate nothing. Enabling
 * DEBUG at run time applies to connections created afterwards; disabling it silences existing ones at once.
 *
 * <p>Frames are decoded with their own {@link FrameReader}, which validates them: a malformed frame (inbound frames
 * are hostile) is logged with its header's type, the reader's error and its first bytes, never read past its
 * length. Logging never throws into the engine.
 *
 * <p>Not thread-safe: one instance per direction of a connection, used by the one thread that handles that
 * direction (inbound: the conductor; outbound: the sender agent).
 */
final class FrameLogger
{
    /** The SLF4J logger's name; set it to DEBUG to log frames. */
    static final String NAME = "io.rivulet.FrameLogger";
    /** Most bytes of a frame's metadata, and of its data, shown in a line. */
    static final int MAX_SHOWN_BYTES = 64;

    private static final Logger LOG = LoggerFactory.getLogger(NAME);
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final String prefix;
    private final FrameReader reader = new FrameReader();
    private final StringBuilder line = new StringBuilder(256);

    /** @param prefix what starts each line: direction and connection (package-private for tests). */
    FrameLogger(final String prefix)
    {
        this.prefix = prefix;
    }

    /**
     * @return a logger of the frames the connection receives, or null when DEBUG is off for {@value #NAME}.
     */
    static FrameLogger inbound(final long connectionId, final ReliableLink link)
    {
        return create("in  ", connectionId, link);
    }

    /**
     * @return a logger of the frames the connection sends, or null when DEBUG is off for {@value #NAME}.
     */
    static FrameLogger outbound(final long connectionId, final ReliableLink link)
    {
        return create("out ", connectionId, link);
    }

    private static FrameLogger create(final String direction, final long connectionId, final ReliableLink link)
    {
        if (!LOG.isDebugEnabled())
        {
            return null;
        }
        return new FrameLogger(direction + "conn " + connectionId + " " + address(link, true) + " -> " +
            address(link, false) + " ");
    }

    /**
     * Logs one frame. Never throws.
     *
     * @param buffer holding the frame.
     * @param offset of its first byte.
     * @param length of the frame as delimited by the link.
     */
    void log(final DirectBuffer buffer, final int offset, final int length)
    {
        if (!LOG.isDebugEnabled())
        {
            return;
        }
        try
        {
            LOG.debug(format(buffer, offset, length));
        }
        catch (final RuntimeException ex)
        {
            LOG.debug("{}frame of {} bytes not logged: {}", prefix, length, ex.toString());
        }
    }

    /** @return the line for one frame (package-private for tests). */
    String format(final DirectBuffer buffer, final int offset, final int length)
    {
        line.setLength(0);
        line.append(prefix);
        if (length < 0 || offset < 0 || (long)offset + length > buffer.capacity())
        {
            return line.append("frame out of its buffer's bounds (offset ").append(offset).append(", length ")
                .append(length).append(')').toString();
        }
        if (!reader.wrap(buffer, offset, length))
        {
            line.append("malformed ").append(FrameType.name(FrameHeader.typeOrUnknown(buffer, offset, length)))
                .append(" (").append(reader.error()).append(") length ").append(length);
            bytes(buffer, offset, length);
            return line.toString();
        }
        line.append(FrameType.name(reader.frameType())).append(" stream ").append(reader.streamId())
            .append(" flags 0x").append(HEX[(reader.flags() >> 4) & 0xF]).append(HEX[reader.flags() & 0xF]);
        flagNames(reader.flags());
        line.append(" length ").append(length);
        line.append(" metadata ").append(reader.metadataLength());
        bytes(buffer, reader.metadataOffset(), reader.metadataLength());
        line.append(" data ").append(reader.dataLength());
        bytes(buffer, reader.dataOffset(), reader.dataLength());
        return line.toString();
    }

    private void flagNames(final byte flags)
    {
        if (flags == 0)
        {
            return;
        }
        line.append(" [");
        final int start = line.length();
        if (FrameFlags.isSet(flags, FrameFlags.FOLLOWS))
        {
            line.append("FOLLOWS");
        }
        if (FrameFlags.isSet(flags, FrameFlags.COMPLETE))
        {
            line.append(line.length() > start ? " " : "").append("COMPLETE");
        }
        if (FrameFlags.isSet(flags, FrameFlags.NEXT))
        {
            line.append(line.length() > start ? " " : "").append("NEXT");
        }
        line.append(']');
    }

    /** Up to {@link #MAX_SHOWN_BYTES} of a field as hex, then as printable ASCII ('.' for the rest). */
    private void bytes(final DirectBuffer buffer, final int offset, final int length)
    {
        final int shown = Math.min(length, MAX_SHOWN_BYTES);
        if (shown <= 0)
        {
            return;
        }
        line.append(':');
        for (int i = 0; i < shown; i++)
        {
            final int b = buffer.getByte(offset + i) & 0xFF;
            line.append(' ').append(HEX[b >> 4]).append(HEX[b & 0xF]);
        }
        line.append(length > shown ? " ... |" : " |");
        for (int i = 0; i < shown; i++)
        {
            final int b = buffer.getByte(offset + i) & 0xFF;
            line.append(b >= 0x20 && b < 0x7F ? (char)b : '.');
        }
        line.append('|');
    }

    private static String address(final ReliableLink link, final boolean local)
    {
        try
        {
            return String.valueOf(local ? link.localAddress() : link.remoteAddress());
        }
        catch (final RuntimeException ex)
        {
            return "?";
        }
    }
}
