package io.rivulet;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Composite metadata: named entries carried in a {@link Message}'s metadata, so that a route, a content type and
 * a trace context can travel with one request side by side (what RSocket's composite metadata does with MIME
 * types). Applications that put their own bytes in a message's metadata keep doing so; layers that need entries
 * (routing, codecs, tracing) use this format, and application entries can sit beside theirs.
 *
 * <p>Wire layout, little-endian:
 * <pre>
 *   0        1        2        3
 *  +--------+--------+--------+
 *  |  'R'   |  'M'   | version|   magic and version (1)
 *  +--------+--------+--------+---------------------------------+
 *  | key length (1 byte, 1..64) | key (ASCII, no controls)       |   repeated
 *  +----------------------------+--------------------------------+
 *  | value length (4 bytes)     | value (bytes, often UTF-8)     |
 *  +----------------------------+--------------------------------+
 * </pre>
 * Keys are unique. {@link #decode} treats the bytes as hostile: anything malformed, truncated, trailing or
 * duplicated fails with {@link MalformedMetadataException} before an entry is handed out.
 *
 * <p>Immutable and thread-safe; {@link #with} returns a new instance.
 */
public final class Metadata
{
    /** The route a request is for: a name a routed responder dispatches on. */
    public static final String ROUTE = "route";
    /** The data's encoding, such as {@code application/json}: how a codec reads the data. */
    public static final String CONTENT_TYPE = "content-type";
    /** W3C trace context's {@code traceparent}. */
    public static final String TRACEPARENT = "traceparent";
    /** W3C trace context's {@code tracestate}. */
    public static final String TRACESTATE = "tracestate";

    /** Longest key. */
    public static final int MAX_KEY_LENGTH = 64;
    static final int VERSION = 1;
    static final int HEADER_LENGTH = 3;
    private static final byte MAGIC_0 = 'R';
    private static final byte MAGIC_1 = 'M';
    private static final Metadata EMPTY = new Metadata(new String[0], new byte[0][]);

    private final String[] keys;
    private final byte[][] values;

    private Metadata(final String[] keys, final byte[][] values)
    {
        this.keys = keys;
        this.values = values;
    }

    /** @return metadata without entries. */
    public static Metadata empty()
    {
        return EMPTY;
    }

    /**
     * @param route the route's name.
     * @return metadata with one entry, the route.
     */
    public static Metadata route(final String route)
    {
        return EMPTY.with(ROUTE, route);
    }

    /**
     * Reads a message's metadata.
     *
     * @param message as received.
     * @return its entries, {@link #empty()} when it has no metadata.
     * @throws MalformedMetadataException when it has metadata that is not composite metadata.
     */
    public static Metadata of(final Message message)
    {
        return message.hasMetadata() ? decode(message.metadata(), 0, message.metadataLength()) : EMPTY;
    }

    /**
     * @param buffer holding the bytes.
     * @param offset of the first byte.
     * @param length of the bytes.
     * @return true when the bytes start as composite metadata (magic and version); says nothing of the rest.
     */
    public static boolean isComposite(final DirectBuffer buffer, final int offset, final int length)
    {
        return length >= HEADER_LENGTH &&
            buffer.getByte(offset) == MAGIC_0 &&
            buffer.getByte(offset + 1) == MAGIC_1 &&
            buffer.getByte(offset + 2) == VERSION;
    }

    /**
     * Decodes untrusted bytes.
     *
     * @param buffer holding the bytes.
     * @param offset of the first byte.
     * @param length of the bytes.
     * @return the entries, in the order they were written.
     * @throws MalformedMetadataException saying what is wrong, at which offset.
     */
    public static Metadata decode(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < HEADER_LENGTH || buffer.getByte(offset) != MAGIC_0 || buffer.getByte(offset + 1) != MAGIC_1)
        {
            throw new MalformedMetadataException("not composite metadata: expected it to start with 'RM' and a " +
                "version (" + length + " bytes)");
        }
        if (buffer.getByte(offset + 2) != VERSION)
        {
            throw new MalformedMetadataException("composite metadata version " + buffer.getByte(offset + 2) +
                " is not supported (this node reads " + VERSION + ")");
        }
        final List<String> keys = new ArrayList<>();
        final List<byte[]> values = new ArrayList<>();
        final int end = offset + length;
        int position = offset + HEADER_LENGTH;
        while (position < end)
        {
            final int keyLength = buffer.getByte(position) & 0xFF;
            if (keyLength == 0 || keyLength > MAX_KEY_LENGTH)
            {
                throw malformed("key length " + keyLength + " is not in 1.." + MAX_KEY_LENGTH, position - offset);
            }
            if (end - position - 1 < keyLength + Integer.BYTES)
            {
                throw malformed("entry truncated", position - offset);
            }
            final byte[] keyBytes = new byte[keyLength];
            buffer.getBytes(position + 1, keyBytes);
            final String key = checkedKey(keyBytes, position - offset);
            position += 1 + keyLength;
            final int valueLength = buffer.getInt(position, ByteOrder.LITTLE_ENDIAN);
            position += Integer.BYTES;
            if (valueLength < 0 || valueLength > end - position)
            {
                throw malformed("value of '" + key + "' is " + valueLength + " bytes, " + (end - position) +
                    " remain", position - Integer.BYTES - offset);
            }
            if (keys.contains(key))
            {
                throw malformed("key '" + key + "' appears twice", position - offset);
            }
            final byte[] value = new byte[valueLength];
            buffer.getBytes(position, value);
            position += valueLength;
            keys.add(key);
            values.add(value);
        }
        return new Metadata(keys.toArray(new String[0]), values.toArray(new byte[0][]));
    }

    /**
     * @param key   the entry's name: 1 to {@value #MAX_KEY_LENGTH} ASCII characters, no controls or spaces.
     * @param value encoded as UTF-8.
     * @return metadata with this entry added, or replaced when the key is there.
     */
    public Metadata with(final String key, final String value)
    {
        return with(key, value.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @param key   the entry's name: 1 to {@value #MAX_KEY_LENGTH} ASCII characters, no controls or spaces.
     * @param value the entry's bytes (copied).
     * @return metadata with this entry added, or replaced when the key is there.
     */
    public Metadata with(final String key, final byte[] value)
    {
        if (key.isEmpty() || key.length() > MAX_KEY_LENGTH || !key.chars().allMatch(c -> c > ' ' && c < 0x7F))
        {
            throw new IllegalArgumentException("metadata key '" + key + "' must be 1.." + MAX_KEY_LENGTH +
                " printable ASCII characters without spaces");
        }
        final int index = indexOf(key);
        if (index >= 0)
        {
            final byte[][] newValues = values.clone();
            newValues[index] = value.clone();
            return new Metadata(keys, newValues);
        }
        final String[] newKeys = Arrays.copyOf(keys, keys.length + 1);
        final byte[][] newValues = Arrays.copyOf(values, values.length + 1);
        newKeys[keys.length] = key;
        newValues[values.length] = value.clone();
        return new Metadata(newKeys, newValues);
    }

    /**
     * @param key the entry's name.
     * @return metadata without that entry.
     */
    public Metadata without(final String key)
    {
        final int index = indexOf(key);
        if (index < 0)
        {
            return this;
        }
        final String[] newKeys = new String[keys.length - 1];
        final byte[][] newValues = new byte[values.length - 1][];
        for (int i = 0, j = 0; i < keys.length; i++)
        {
            if (i != index)
            {
                newKeys[j] = keys[i];
                newValues[j++] = values[i];
            }
        }
        return new Metadata(newKeys, newValues);
    }

    /** @return the route, or null when there is none. */
    public String route()
    {
        return get(ROUTE);
    }

    /**
     * @param key the entry's name.
     * @return the value decoded as UTF-8, or null when there is no such entry.
     */
    public String get(final String key)
    {
        final int index = indexOf(key);
        return index < 0 ? null : new String(values[index], StandardCharsets.UTF_8);
    }

    /**
     * @param key the entry's name.
     * @return a copy of the value, or null when there is no such entry.
     */
    public byte[] bytes(final String key)
    {
        final int index = indexOf(key);
        return index < 0 ? null : values[index].clone();
    }

    /**
     * @param key the entry's name.
     * @return whether there is such an entry.
     */
    public boolean contains(final String key)
    {
        return indexOf(key) >= 0;
    }

    /** @return the keys, in order. */
    public List<String> keys()
    {
        return Collections.unmodifiableList(Arrays.asList(keys));
    }

    /** @return true when there are no entries. */
    public boolean isEmpty()
    {
        return keys.length == 0;
    }

    /** @return the length of {@link #encode()}. */
    public int encodedLength()
    {
        int length = HEADER_LENGTH;
        for (int i = 0; i < keys.length; i++)
        {
            length += 1 + keys[i].length() + Integer.BYTES + values[i].length;
        }
        return length;
    }

    /**
     * @param buffer to write into, with room for {@link #encodedLength()} bytes at the offset.
     * @param offset of the first byte.
     * @return the number of bytes written.
     */
    public int encode(final MutableDirectBuffer buffer, final int offset)
    {
        buffer.putByte(offset, MAGIC_0);
        buffer.putByte(offset + 1, MAGIC_1);
        buffer.putByte(offset + 2, (byte)VERSION);
        int position = offset + HEADER_LENGTH;
        for (int i = 0; i < keys.length; i++)
        {
            final String key = keys[i];
            buffer.putByte(position, (byte)key.length());
            position += 1 + buffer.putStringWithoutLengthAscii(position + 1, key);
            buffer.putInt(position, values[i].length, ByteOrder.LITTLE_ENDIAN);
            position += Integer.BYTES;
            buffer.putBytes(position, values[i]);
            position += values[i].length;
        }
        return position - offset;
    }

    /** @return the entries encoded, for {@link Message#metadata(byte[])}. */
    public byte[] encode()
    {
        final byte[] bytes = new byte[encodedLength()];
        encode(new UnsafeBuffer(bytes), 0);
        return bytes;
    }

    private int indexOf(final String key)
    {
        for (int i = 0; i < keys.length; i++)
        {
            if (keys[i].equals(key))
            {
                return i;
            }
        }
        return -1;
    }

    private static String checkedKey(final byte[] keyBytes, final int at)
    {
        for (final byte b : keyBytes)
        {
            if (b <= ' ' || b >= 0x7F)
            {
                throw malformed("key holds byte 0x" + Integer.toHexString(b & 0xFF) +
                    ": keys are printable ASCII without spaces", at);
            }
        }
        return new String(keyBytes, StandardCharsets.US_ASCII);
    }

    private static MalformedMetadataException malformed(final String problem, final int at)
    {
        return new MalformedMetadataException("malformed composite metadata at byte " + at + ": " + problem);
    }

    @Override
    public boolean equals(final Object other)
    {
        if (!(other instanceof Metadata that) || that.keys.length != keys.length)
        {
            return false;
        }
        for (int i = 0; i < keys.length; i++)
        {
            final int index = that.indexOf(keys[i]);
            if (index < 0 || !Arrays.equals(values[i], that.values[index]))
            {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode()
    {
        int hash = 0;
        for (int i = 0; i < keys.length; i++)
        {
            hash += keys[i].hashCode() ^ Arrays.hashCode(values[i]);
        }
        return hash;
    }

    /** @return the entries, values shown as UTF-8 and cut at 64 characters. */
    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder("Metadata{");
        for (int i = 0; i < keys.length; i++)
        {
            final String value = new String(values[i], StandardCharsets.UTF_8);
            text.append(i == 0 ? "" : ", ").append(keys[i]).append('=')
                .append(value.length() > 64 ? value.substring(0, 64) + "…" : value);
        }
        return text.append('}').toString();
    }
}
