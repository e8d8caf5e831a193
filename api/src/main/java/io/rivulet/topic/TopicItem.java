package io.rivulet.topic;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;

/**
 * One item of a topic subscription handed to a {@link TopicHandler}: the same content as a {@link TopicMessage}, as
 * a view that the engine reuses. A DATA item's {@link #data()} is the received frame's bytes in place; signals
 * (JOINED, GAP, END) and SNAPSHOT items wrap a message. Valid only during {@link TopicHandler#onItem}; copy with
 * {@link #toMessage()} to keep it.
 *
 * <p>Not thread-safe: used on the engine's thread only.
 */
public final class TopicItem
{
    private final UnsafeBuffer data = new UnsafeBuffer(0, 0);
    /** The item as a message, when it is one (a signal, a snapshot item, an item that waited); null for DATA in place. */
    private TopicMessage message;
    private String topic;
    private int sessionId;
    private long sequence;
    private long key;

    TopicItem()
    {
    }

    /**
     * @param message an item of {@code Connection.subscribe(pattern)}'s flux.
     * @return the same item as a view (for handlers fed from a flux).
     */
    public static TopicItem of(final TopicMessage message)
    {
        return new TopicItem().wrap(message);
    }

    /** A DATA item in place: the view covers {@code length} bytes of {@code buffer} from {@code offset}. */
    TopicItem wrapData(
        final String topic, final int sessionId, final long sequence, final long key, final DirectBuffer buffer,
        final int offset, final int length)
    {
        this.message = null;
        this.topic = topic;
        this.sessionId = sessionId;
        this.sequence = sequence;
        this.key = key;
        data.wrap(buffer, offset, length);
        return this;
    }

    /** An item that is a message already. */
    TopicItem wrap(final TopicMessage message)
    {
        this.message = message;
        return this;
    }

    /** @return what the item is; see {@link TopicMessage.Kind}. */
    public TopicMessage.Kind kind()
    {
        return message == null ? TopicMessage.Kind.DATA : message.kind();
    }

    /** @return true for {@link TopicMessage.Kind#DATA} and {@link TopicMessage.Kind#SNAPSHOT}. */
    public boolean hasData()
    {
        return message == null || message.hasData();
    }

    /** @return the topic's name. */
    public String topic()
    {
        return message == null ? topic : message.topic();
    }

    /** @return the publication's session; see {@link TopicMessage#sessionId()}. */
    public int sessionId()
    {
        return message == null ? sessionId : message.sessionId();
    }

    /** @return the sequence; see {@link TopicMessage#sequence()}. */
    public long sequence()
    {
        return message == null ? sequence : message.sequence();
    }

    /** @return the message's key on a keyed topic, else 0. */
    public long key()
    {
        return message == null ? key : message.key();
    }

    /** @return the data (offset 0, {@link #dataLength()} bytes), valid only during the call; empty for signals. */
    public DirectBuffer data()
    {
        return message == null ? data : message.data();
    }

    /** @return the data's length in bytes. */
    public int dataLength()
    {
        return message == null ? data.capacity() : message.dataLength();
    }

    /** @return the data decoded as UTF-8 (allocates). */
    public String dataUtf8()
    {
        if (message != null)
        {
            return message.dataUtf8();
        }
        return new String(copyOfData(), StandardCharsets.UTF_8);
    }

    /** @return the first skipped sequence of a GAP, else 0. */
    public long gapFrom()
    {
        return message == null ? 0 : message.gapFrom();
    }

    /** @return the last skipped sequence of a GAP, else 0. */
    public long gapTo()
    {
        return message == null ? 0 : message.gapTo();
    }

    /** @return why a GAP's sequences were skipped, null for other kinds. */
    public TopicMessage.GapReason gapReason()
    {
        return message == null ? null : message.gapReason();
    }

    /** @return the topic's slow-consumer policy, on JOINED; else null. */
    public SlowConsumerPolicy policy()
    {
        return message == null ? null : message.policy();
    }

    /** @return how many SNAPSHOT items follow a JOINED; else 0. */
    public int snapshotSize()
    {
        return message == null ? 0 : message.snapshotSize();
    }

    /** @return the item as a message of its own, to keep beyond the call (a copy of the data in place). */
    public TopicMessage toMessage()
    {
        if (message != null)
        {
            return message;
        }
        return TopicMessage.data(TopicMessage.Kind.DATA, topic, sessionId, sequence, key, copyOfData());
    }

    private byte[] copyOfData()
    {
        final byte[] bytes = new byte[data.capacity()];
        data.getBytes(0, bytes);
        return bytes;
    }

    @Override
    public String toString()
    {
        return message != null ? message.toString() :
            "DATA{" + topic + " session=" + sessionId + " seq=" + sequence + " key=" + key + " data=" +
                data.capacity() + " in place}";
    }
}
