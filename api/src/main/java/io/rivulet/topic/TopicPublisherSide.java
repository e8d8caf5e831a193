package io.rivulet.topic;

import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameWriter;
import io.rivulet.spi.Violation;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

import java.util.ArrayList;

/**
 * The publisher side of one connection's topic layer (as Aeron's {@code NetworkPublication} is of a
 * publication), on the conductor thread: the peer's subscriptions (SUBSCRIBE / UNSUBSCRIBE) matched against
 * this node's publications, one {@link TopicCursor} per matching publication, which the sender thread serves,
 * and the peer's TOPIC_STATUS credits and liveness handed to the cursor.
 *
 * <p>Thread-safety: {@link #onCursorReleased} from the sender thread; everything else on the conductor.
 */
final class TopicPublisherSide
{
    private final TopicEndpoint endpoint;
    private final TopicRegistry registry;
    private final TopicConnection connection;
    private final Int2ObjectHashMap<Served> served = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<TopicCursor> cursors = new Int2ObjectHashMap<>();
    private final ArrayList<TopicCursor> cursorList = new ArrayList<>();
    // A subscription waiting for a publication's ending cursor, at the same index as that publication.
    private final ArrayList<Served> pendingServed = new ArrayList<>();
    private final ArrayList<Publication> pendingPublications = new ArrayList<>();
    private final ManyToOneConcurrentLinkedQueue<TopicCursor> releasedCursors = new ManyToOneConcurrentLinkedQueue<>();

    /**
     * @param endpoint   the endpoint the cursors report their release to.
     * @param registry   this node's publications.
     * @param connection what both sides share.
     */
    TopicPublisherSide(final TopicEndpoint endpoint, final TopicRegistry registry, final TopicConnection connection)
    {
        this.endpoint = endpoint;
        this.registry = registry;
        this.connection = connection;
    }

    /** A subscription of the peer. */
    private static final class Served
    {
        final int id;
        final TopicPattern pattern;
        final int initialCredits;

        Served(final int id, final TopicPattern pattern, final int initialCredits)
        {
            this.id = id;
            this.pattern = pattern;
            this.initialCredits = initialCredits;
        }
    }

    /** Sender thread: a cursor ended; the conductor forgets it. */
    void onCursorReleased(final TopicCursor cursor)
    {
        releasedCursors.offer(cursor);
    }

    /** @return whether the peer has subscriptions here, served or waiting for a topic to match. */
    boolean hasSubscriptions()
    {
        return !served.isEmpty() || !pendingServed.isEmpty();
    }

    /** @return topics served to the peer, for messages. */
    int cursorCount()
    {
        return cursorList.size();
    }

    boolean onSubscribe(final FrameReader reader)
    {
        final int id = reader.subscriptionId();
        if (served.containsKey(id))
        {
            return connection.violation(Violation.ID_IN_USE,
                "SUBSCRIBE with subscription id " + id + " which is already in use");
        }
        if (served.size() >= TopicEndpoint.MAX_SUBSCRIPTIONS)
        {
            return connection.violation(Violation.LIMIT_EXCEEDED,
                "more than " + TopicEndpoint.MAX_SUBSCRIPTIONS + " subscriptions on one connection");
        }
        final TopicPattern pattern;
        try
        {
            pattern = TopicPattern.pattern(reader.text());
        }
        catch (final IllegalArgumentException ex)
        {
            return connection.violation(Violation.INVALID_VALUE,
                "SUBSCRIBE with an invalid pattern: " + ex.getMessage());
        }
        final Served subscription = new Served(id, pattern, reader.credits());
        served.put(id, subscription);
        final ArrayList<Publication> publications = registry.publications();
        for (int i = 0; i < publications.size(); i++)
        {
            if (pattern.matches(publications.get(i).name()))
            {
                attach(subscription, publications.get(i));
            }
        }
        return true;
    }

    /** Conductor: a new publication on this node; attach it to the peer's matching subscriptions. */
    void onPublicationAdded(final Publication publication)
    {
        if (connection.closeCause() != null)
        {
            return;
        }
        for (final Served subscription : served.values())
        {
            if (subscription.pattern.matches(publication.name()))
            {
                attach(subscription, publication);
            }
        }
    }

    private void attach(final Served subscription, final Publication publication)
    {
        if (publication.isClosed())
        {
            return;
        }
        TopicCursor cursor = cursors.get(publication.topicId());
        if (cursor != null)
        {
            if (cursor.tryJoin(subscription.id))
            {
                cursor.members.add(subscription.id);
            }
            else
            {
                // The cursor is ending; a new one takes over once it has sent its TOPIC_DETACH.
                pendingServed.add(subscription);
                pendingPublications.add(publication);
            }
            return;
        }
        final TopicLink link = connection.link();
        cursor = new TopicCursor(endpoint, publication, connection, subscription.initialCredits, connection.nowNs());
        final int largestFrame = FrameWriter.topicSnapshotLength(publication.maxMessageLength());
        if (largestFrame > link.maxFrameLength())
        {
            cursor.reject("topic " + publication.topic() + " sends frames of up to " + largestFrame +
                " bytes; this connection accepts " + link.maxFrameLength());
        }
        cursor.tryJoin(subscription.id);
        cursor.members.add(subscription.id);
        cursors.put(publication.topicId(), cursor);
        cursorList.add(cursor);
        publication.engine().addCursor(cursor);
    }

    void onUnsubscribe(final int id)
    {
        final Served subscription = served.remove(id);
        if (subscription == null)
        {
            return;
        }
        for (int i = 0; i < cursorList.size(); i++)
        {
            final TopicCursor cursor = cursorList.get(i);
            if (cursor.members.remove(id) && cursor.members.isEmpty())
            {
                cursor.requestClose(TopicCursor.CLOSE_UNSUBSCRIBED);
            }
        }
        for (int i = pendingServed.size() - 1; i >= 0; i--)
        {
            if (pendingServed.get(i) == subscription)
            {
                pendingServed.remove(i);
                pendingPublications.remove(i);
            }
        }
    }

    void onStatus(final FrameReader reader)
    {
        final TopicCursor cursor = cursors.get(reader.topicId());
        if (cursor != null && cursor.publication().sessionId() == reader.sessionId())
        {
            cursor.onStatus(reader.credits(), connection.nowNs());
        }
    }

    /**
     * MULTICAST_OFFER: the peer takes topic data from multicast groups. Ignored by a node that publishes to none.
     *
     * @param publishes whether this node publishes to groups.
     */
    boolean onMulticastOffer(final FrameReader reader, final boolean publishes)
    {
        if (connection.peerMulticast() != null)
        {
            return connection.violation(Violation.OUT_OF_ORDER, "second MULTICAST_OFFER on one connection");
        }
        if (publishes)
        {
            connection.peerMulticast(new TopicConnection.PeerMulticast(reader.text(), connection.remoteHost(),
                reader.tag(), reader.logCapacity()));
        }
        return true;
    }

    /** TOPIC_MULTICAST_LEFT: the peer stopped taking a topic from its group; its cursor sends on this path again. */
    void onMulticastLeft(final FrameReader reader)
    {
        final TopicCursor cursor = cursors.get(reader.topicId());
        if (cursor != null && cursor.publication().sessionId() == reader.sessionId())
        {
            cursor.onMulticastLeft(reader.receiverId(), reader.position(), reader.text());
        }
    }

    /** Conductor, each duty cycle: forgets the cursors the sender thread released. @return cursors drained. */
    int drainReleasedCursors()
    {
        int work = 0;
        TopicCursor cursor;
        while ((cursor = releasedCursors.poll()) != null)
        {
            work++;
            final Publication publication = cursor.publication();
            if (cursors.get(publication.topicId()) == cursor)
            {
                cursors.remove(publication.topicId());
            }
            cursorList.remove(cursor);
            // Subscriptions that never got their TOPIC_ATTACH from it attach through a new cursor.
            for (final int id : cursor.unjoined())
            {
                final Served subscription = served.get(id);
                if (subscription != null && connection.closeCause() == null)
                {
                    attach(subscription, publication);
                }
            }
            for (int i = 0; i < pendingServed.size(); i++)
            {
                if (pendingPublications.get(i) == publication)
                {
                    final Served subscription = pendingServed.remove(i);
                    pendingPublications.remove(i);
                    i--;
                    if (served.get(subscription.id) == subscription)
                    {
                        attach(subscription, publication);
                    }
                }
            }
        }
        return work;
    }

    /** Conductor: the connection is closing; every cursor stops without a TOPIC_DETACH. */
    void close()
    {
        for (int i = 0; i < cursorList.size(); i++)
        {
            cursorList.get(i).requestClose(TopicCursor.CLOSE_SILENTLY);
        }
        cursorList.clear();
        cursors.clear();
        served.clear();
        pendingServed.clear();
        pendingPublications.clear();
    }
}
