package io.rivulet.transport.tcp.soak;

import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a server said on one attack connection, read from its byte stream: the frames are split on their 4-byte
 * little-endian length prefix and the text of each ERROR or CLOSE is kept, with digits replaced by '#' so that
 * "retry after 87 ms" and "retry after 12 ms" count as one reason. A stream that stops making sense is dropped.
 *
 * <p>Not thread-safe: one per connection, on the attack's thread.
 */
final class ServerReplies
{
    private static final int MAX_BUFFERED = 64 * 1024;
    private static final int MAX_TEXT = 90;

    private final FrameReader reader = new FrameReader();
    private byte[] pending = new byte[0];
    private boolean broken;
    private String lastText;

    /**
     * @param data    bytes that arrived (consumed).
     * @param reasons where each ERROR or CLOSE text found is counted.
     * @return the frames found.
     */
    int onData(final ByteBuffer data, final Map<String, Long> reasons)
    {
        if (broken)
        {
            data.position(data.limit());
            return 0;
        }
        final int start = pending.length;
        pending = Arrays.copyOf(pending, start + data.remaining());
        data.get(pending, start, pending.length - start);
        int offset = 0;
        int frames = 0;
        while (pending.length - offset >= 4)
        {
            final int length = ByteBuffer.wrap(pending, offset, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            if (length <= 0 || length > MAX_BUFFERED)
            {
                broken = true;
                break;
            }
            if (pending.length - offset - 4 < length)
            {
                break;
            }
            if (reader.wrap(new UnsafeBuffer(pending), offset + 4, length))
            {
                frames++;
                if (reader.frameType() == FrameType.ERROR || reader.frameType() == FrameType.CLOSE)
                {
                    lastText = reader.text();
                    String text = lastText.replaceAll("[0-9]+", "#");
                    text = text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) + "..." : text;
                    reasons.merge(text, 1L, Long::sum);
                }
            }
            offset += 4 + length;
        }
        pending = broken ? new byte[0] : Arrays.copyOfRange(pending, offset, pending.length);
        return frames;
    }

    /** @return the text of the last ERROR or CLOSE found, as sent, or null. */
    String lastText()
    {
        return lastText;
    }

    /** @return the reasons in a stable order, for a summary. */
    static Map<String, Long> sorted(final Map<String, Long> reasons)
    {
        return new TreeMap<>(reasons);
    }
}
