package io.rivulet.topic;

import io.rivulet.codec.FrameWriter;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.nio.ByteBuffer;
import java.util.ArrayList;

/**
 * The topic layer's data plane: for every publication, reads newly published records into the
 * last-value table, sends each subscriber connection its frames from its own position in the log, and
 * moves the publisher's limit. It writes to links, so it must run on the thread of the engine's
 * {@code Sender} agent (the node composes the two; a link's send half has one writer), and before it, so
 * that the sender flushes what it offered in the same duty cycle.
 *
 * <p>Not thread-safe: one thread. {@link #add(PublicationEngine)} may be called from any thread.
 */
public final class TopicSender implements Agent
{
    private final ManyToOneConcurrentLinkedQueue<PublicationEngine> additions = new ManyToOneConcurrentLinkedQueue<>();
    private final ArrayList<PublicationEngine> engines = new ArrayList<>();
    private final NanoClock clock;
    private final FrameWriter frames = new FrameWriter();
    private final UnsafeBuffer scratch;
    private final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
    private final AtomicCounter framesSent;
    private final AtomicCounter bytesSent;
    /** The node's publishing side of multicast, or null: this thread polls its endpoint. */
    private io.rivulet.protocol.datagram.multicast.MulticastSenders multicast;
    private long sentFrames;
    private long sentBytes;

    /**
     * @param clock    the engine's clock.
     * @param settings the node's topic settings (frame length for the scratch buffer).
     */
    public TopicSender(final NanoClock clock, final TopicSettings settings)
    {
        this(clock, settings, null, null);
    }

    /**
     * @param clock      the engine's clock.
     * @param settings   the node's topic settings (frame length for the scratch buffer).
     * @param framesSent the node's count of frames written to links (the sender's, on the same thread), or null.
     * @param bytesSent  the node's count of bytes written to links, or null.
     */
    public TopicSender(
        final NanoClock clock, final TopicSettings settings, final AtomicCounter framesSent, final AtomicCounter bytesSent)
    {
        this.clock = clock;
        this.scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(settings.maxFrameLength(), 1024)));
        this.framesSent = framesSent;
        this.bytesSent = bytesSent;
    }

    /**
     * Before the engine starts: the node's multicast publishing plane, whose endpoint this thread owns from now on.
     *
     * @param multicast the plane, or null.
     */
    void multicast(final io.rivulet.protocol.datagram.multicast.MulticastSenders multicast)
    {
        this.multicast = multicast;
    }

    /** Any thread: starts serving a publication. */
    void add(final PublicationEngine engine)
    {
        additions.offer(engine);
    }

    @Override
    public int doWork()
    {
        int work = 0;
        PublicationEngine added;
        while ((added = additions.poll()) != null)
        {
            engines.add(added);
            work++;
        }
        if (engines.isEmpty())
        {
            return work; // nothing to publish, no clock to read (3% of a busy client engine's samples when it did)
        }
        final long nowNs = clock.nanoTime();
        if (multicast != null)
        {
            work += multicast.poll(nowNs); // receivers' NAKs and status messages, before the streams send
        }
        for (int i = engines.size() - 1; i >= 0; i--)
        {
            final PublicationEngine engine = engines.get(i);
            work += engine.doWork(nowNs, this);
            if (engine.isFinished())
            {
                engines.remove(i);
                engine.onFinished();
            }
        }
        if (sentFrames > 0 && framesSent != null)
        {
            framesSent.getAndAddRelease(sentFrames);
            bytesSent.getAndAddRelease(sentBytes);
        }
        sentFrames = 0;
        sentBytes = 0;
        return work;
    }

    @Override
    public String roleName()
    {
        return "rivulet-topic-sender";
    }

    /** @return the encoder for control frames, for this thread. */
    FrameWriter frames()
    {
        return frames;
    }

    /** @return a buffer of the node's maximum frame length to encode control frames into. */
    MutableDirectBuffer scratch()
    {
        return scratch;
    }

    /** Counts frames handed to a link. */
    void onSent(final int frames, final int bytes)
    {
        sentFrames += frames;
        sentBytes += bytes;
    }

    /** @return a reused view over bytes (valid until the next call). */
    UnsafeBuffer view(final byte[] bytes)
    {
        view.wrap(bytes);
        return view;
    }
}
