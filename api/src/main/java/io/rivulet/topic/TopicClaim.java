package io.rivulet.topic;

import org.agrona.MutableDirectBuffer;

/**
 * A slot claimed in a publication's log by {@link Publication#tryClaim(int, TopicClaim)}: encode the
 * message straight into {@link #buffer()} at {@link #offset()}, then {@link #commit()} (or {@link #abort()}).
 * The bytes are written once, where every subscriber's connection will read them from.
 *
 * <pre>{@code
 * if (quotes.tryClaim(QuoteEncoder.LENGTH, claim) > 0)
 * {
 *     quoteEncoder.wrap(claim.buffer(), claim.offset()).instrument(7).bid(1.1).ask(1.2);
 *     claim.commit();
 * }
 * }</pre>
 *
 * <p>A reusable flyweight; not thread-safe. Commit or abort promptly: subscribers wait for the claim, and
 * the publication accepts no other message until it is resolved.
 */
public final class TopicClaim
{
    private Publication publication;
    private int recordIndex;
    private int recordLength;
    private int length;

    void wrap(final Publication publication, final int recordIndex, final int recordLength, final int length)
    {
        this.publication = publication;
        this.recordIndex = recordIndex;
        this.recordLength = recordLength;
        this.length = length;
    }

    /** @return the log buffer to encode into. */
    public MutableDirectBuffer buffer()
    {
        return publication.logBuffer();
    }

    /** @return where the message's data starts in {@link #buffer()}. */
    public int offset()
    {
        return Publication.dataOffset(recordIndex);
    }

    /** @return the claimed data length. */
    public int length()
    {
        return length;
    }

    /**
     * Publishes the message.
     *
     * @return its sequence, or {@link Publication#KEY_LIMIT_EXCEEDED} when its key would exceed the topic's
     * key limit (the claim is then aborted).
     */
    public long commit()
    {
        final Publication publication = this.publication;
        this.publication = null;
        if (publication == null)
        {
            throw new IllegalStateException("nothing claimed");
        }
        return publication.commitClaim(recordIndex, recordLength, length);
    }

    /** Gives the slot back unpublished. */
    public void abort()
    {
        final Publication publication = this.publication;
        this.publication = null;
        if (publication == null)
        {
            throw new IllegalStateException("nothing claimed");
        }
        publication.abortClaim(recordIndex, recordLength);
    }
}
