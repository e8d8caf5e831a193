package io.rivulet.topic;

import io.rivulet.Message;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;

/**
 * One item of a topic subscription ({@code Connection.subscribe(pattern)}): a message with its topic's
 * sequence number, or a signal about the sequence. Per topic and session, the items a subscription
 * receives are, in order:
 *
 * <pre>
 *   JOINED(S)                 attached to the topic; the snapshot reflects sequence S
 *   SNAPSHOT ... (seq &lt;= S)    the last value of each key as of S, in sequence order (keyed topics only)
 *   DATA S+1, S+2, ...        the live stream: no gap and no duplicate across the seam
 *   GAP(from, to, reason)     sequences that will never arrive (CONFLATED: SNAPSHOT items with the latest
 *                             value per key follow, then DATA continues after 'to')
 *   END(last)                 the publication closed; a restarted publisher then arrives as JOINED with a
 *                             new session id
 * </pre>
 *
 * <p>A subscriber is never left to infer a loss: every sequence it will not receive is covered by a GAP
 * item, an END whose last sequence is beyond what it received (preceded by a GAP with reason
 * {@link GapReason#ENDED}), or a terminal error ({@link SlowConsumerException}, {@link PublisherTimeoutException},
 * a closed or lost connection). A message item owns its bytes.
 *
 * <p>Immutable and thread-safe.
 */
public final class TopicMessage
{
    private static final byte[] EMPTY = new byte[0];

    /** What an item is. */
    public enum Kind
    {
        /** Attached to a topic (a new session): {@link #sequence()} is the sequence the snapshot reflects. */
        JOINED,
        /** The last value of a key, from a late-join snapshot or a conflation catch-up; has data. */
        SNAPSHOT,
        /** A live message; has data. */
        DATA,
        /** Sequences {@link #gapFrom()} .. {@link #gapTo()} will never be delivered; see {@link #gapReason()}. */
        GAP,
        /** The publication closed; {@link #sequence()} was its last message. */
        END
    }

    /** Why sequences were skipped. */
    public enum GapReason
    {
        /** {@link SlowConsumerPolicy#CONFLATE}: superseded; the latest value per key follows as SNAPSHOT items. */
        CONFLATED,
        /** Not delivered by the transport and not recoverable. */
        LOST,
        /** The session ended (the publication closed) before they were delivered. */
        ENDED
    }

    private final Kind kind;
    private final String topic;
    private final int sessionId;
    private final long sequence;
    private final long key;
    private final byte[] data;
    private final long gapFrom;
    private final GapReason gapReason;
    private final SlowConsumerPolicy policy;
    private final int snapshotSize;
    private UnsafeBuffer view;

    private TopicMessage(
        final Kind kind,
        final String topic,
        final int sessionId,
        final long sequence,
        final long key,
        final byte[] data,
        final long gapFrom,
        final GapReason gapReason,
        final SlowConsumerPolicy policy,
        final int snapshotSize)
    {
        this.kind = kind;
        this.topic = topic;
        this.sessionId = sessionId;
        this.sequence = sequence;
        this.key = key;
        this.data = data;
        this.gapFrom = gapFrom;
        this.gapReason = gapReason;
        this.policy = policy;
        this.snapshotSize = snapshotSize;
    }

    static TopicMessage data(
        final Kind kind, final String topic, final int sessionId, final long sequence, final long key, final byte[] data)
    {
        return new TopicMessage(kind, topic, sessionId, sequence, key, data, 0, null, null, 0);
    }

    static TopicMessage joined(
        final String topic, final int sessionId, final long snapshotSequence, final SlowConsumerPolicy policy,
        final int snapshotSize)
    {
        return new TopicMessage(Kind.JOINED, topic, sessionId, snapshotSequence, 0, EMPTY, 0, null, policy, snapshotSize);
    }

    static TopicMessage gap(
        final String topic, final int sessionId, final long from, final long to, final GapReason reason)
    {
        return new TopicMessage(Kind.GAP, topic, sessionId, to, 0, EMPTY, from, reason, null, 0);
    }

    static TopicMessage end(final String topic, final int sessionId, final long lastSequence)
    {
        return new TopicMessage(Kind.END, topic, sessionId, lastSequence, 0, EMPTY, 0, null, null, 0);
    }

    public Kind kind()
    {
        return kind;
    }

    /** @return true for {@link Kind#DATA} and {@link Kind#SNAPSHOT}: the item carries a message. */
    public boolean hasData()
    {
        return kind == Kind.DATA || kind == Kind.SNAPSHOT;
    }

    /** @return the topic's name (a subscription with a wildcard receives several topics). */
    public String topic()
    {
        return topic;
    }

    /** @return the publication's session: a new value means a new incarnation of the publisher. */
    public int sessionId()
    {
        return sessionId;
    }

    /**
     * @return the message's sequence (DATA, SNAPSHOT), the snapshot's sequence (JOINED), the last skipped
     * sequence (GAP) or the session's last sequence (END). Sequences start at 1 in each session.
     */
    public long sequence()
    {
        return sequence;
    }

    /** @return the message's key on a keyed topic, else 0. */
    public long key()
    {
        return key;
    }

    /** @return a view of the data (offset 0, {@link #dataLength()} bytes), empty for signals. */
    public DirectBuffer data()
    {
        UnsafeBuffer buffer = view;
        if (buffer == null)
        {
            buffer = new UnsafeBuffer(data);
            view = buffer;
        }
        return buffer;
    }

    public int dataLength()
    {
        return data.length;
    }

    /** @return a copy of the data. */
    public byte[] dataBytes()
    {
        return data.clone();
    }

    /** @return the data decoded as UTF-8. */
    public String dataUtf8()
    {
        return new String(data, StandardCharsets.UTF_8);
    }

    /** @return the data as a {@link Message} (sharing the bytes, which neither side changes). */
    public Message toMessage()
    {
        return Message.of(data);
    }

    /** @return the first skipped sequence of a GAP. */
    public long gapFrom()
    {
        return gapFrom;
    }

    /** @return the last skipped sequence of a GAP (the same as {@link #sequence()}). */
    public long gapTo()
    {
        return kind == Kind.GAP ? sequence : 0;
    }

    /** @return why a GAP's sequences were skipped, null for other kinds. */
    public GapReason gapReason()
    {
        return gapReason;
    }

    /** @return the topic's slow-consumer policy, on JOINED. */
    public SlowConsumerPolicy policy()
    {
        return policy;
    }

    /** @return how many SNAPSHOT items follow a JOINED. */
    public int snapshotSize()
    {
        return snapshotSize;
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder(kind.name()).append('{').append(topic).append(" session=")
            .append(sessionId);
        switch (kind)
        {
            case GAP:
                text.append(' ').append(gapFrom).append("..").append(sequence).append(' ').append(gapReason);
                break;
            case JOINED:
                text.append(" snapshot@").append(sequence).append(" x").append(snapshotSize).append(' ').append(policy);
                break;
            default:
                text.append(" seq=").append(sequence);
                if (hasData())
                {
                    text.append(" key=").append(key).append(" data=").append(data.length);
                }
        }
        return text.append('}').toString();
    }
}
