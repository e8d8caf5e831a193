package io.rivulet;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Room for one fire-and-forget message claimed in a connection's outbound ring by
 * {@link Connection#tryClaim(int, MessageClaim)}, like Aeron's {@code BufferClaim}: the frame's header is already
 * encoded; the caller writes exactly {@link #length()} bytes of payload into {@link #buffer()} from {@link #offset()}
 * and then calls {@link #commit()} to send them, or {@link #abort()} to send nothing.
 *
 * <pre>{@code
 * MessageClaim claim = new MessageClaim(); // one per sending thread, reused
 * if (connection.tryClaim(16, claim) > 0)
 * {
 *     claim.buffer().putLong(claim.offset(), sequence);
 *     claim.buffer().putLong(claim.offset() + 8, price);
 *     claim.commit();
 * }
 * }</pre>
 *
 * <p>A claim holds the head of the connection's ring: nothing the connection sends after it leaves before it is
 * committed or aborted, so commit at once and never block in between. A claim left longer than the ring's claim
 * timeout (one second) is taken back by the engine: the space is skipped as padding, the connection's traffic goes
 * on, and {@link #commit()} then returns false (the message is not sent). The buffer must not be written after
 * that, nor after {@link #commit()} or {@link #abort()}: the space belongs to other messages then.
 *
 * <p>Not thread-safe: a claim is used by one thread at a time, and one claim holds one message at a time. Allocate
 * one per sending thread and reuse it; claiming, committing and aborting allocate nothing.
 */
public final class MessageClaim
{
    private static final byte[] EMPTY = new byte[0];

    private final UnsafeBuffer buffer = new UnsafeBuffer(EMPTY);
    private Owner owner;
    private long handle;

    /** @return the payload's room: write {@link #length()} bytes from {@link #offset()}. */
    public MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /** @return where the payload starts in {@link #buffer()}. */
    public int offset()
    {
        return 0;
    }

    /** @return the claimed payload length, as asked of {@code tryClaim}; 0 when no message is claimed. */
    public int length()
    {
        return buffer.capacity();
    }

    /** @return true between a successful {@code tryClaim} and {@link #commit()} or {@link #abort()}. */
    public boolean isClaimed()
    {
        return owner != null;
    }

    /**
     * Sends the message: the frame becomes visible to the engine's sender.
     *
     * @return true when the message will be sent; false when it will not, because the engine took the claim back
     *         (it was held past the claim timeout) or the connection's ring is gone.
     * @throws IllegalStateException when no message is claimed (never claimed, or already committed or aborted).
     */
    public boolean commit()
    {
        final Owner claimedBy = release();
        return claimedBy.commitClaim(handle);
    }

    /**
     * Gives the space back unsent: the sender skips it.
     *
     * @throws IllegalStateException when no message is claimed (never claimed, or already committed or aborted).
     */
    public void abort()
    {
        final Owner claimedBy = release();
        claimedBy.abortClaim(handle);
    }

    /**
     * Points the claim at space claimed in a ring; the engine's use, not the application's.
     *
     * @param owner         what settles the claim.
     * @param handle        the claim's identity for the owner.
     * @param ring          holding the space.
     * @param payloadOffset of the payload in the ring.
     * @param length        of the payload.
     * @return this claim.
     * @throws IllegalStateException when the claim still holds a message.
     */
    public MessageClaim wrap(
        final Owner owner, final long handle, final MutableDirectBuffer ring, final int payloadOffset, final int length)
    {
        if (this.owner != null)
        {
            throw new IllegalStateException("claim still holds a message: commit or abort it first");
        }
        if (length == 0)
        {
            buffer.wrap(EMPTY);
        }
        else
        {
            buffer.wrap(ring, payloadOffset, length);
        }
        this.handle = handle;
        this.owner = owner;
        return this;
    }

    private Owner release()
    {
        final Owner claimedBy = owner;
        if (claimedBy == null)
        {
            throw new IllegalStateException("no message claimed: never claimed, or already committed or aborted");
        }
        owner = null;
        buffer.wrap(EMPTY); // a write after commit or abort fails here instead of reaching the ring
        return claimedBy;
    }

    @Override
    public String toString()
    {
        return "MessageClaim{" + (owner == null ? "none" : length() + " bytes") + "}";
    }

    /** Settles claims made in a ring: the engine's outbound side implements it. */
    public interface Owner
    {
        /**
         * @param handle the claim's identity, as given to {@link MessageClaim#wrap}.
         * @return true when the message will be sent.
         */
        boolean commitClaim(long handle);

        /** @param handle the claim's identity, as given to {@link MessageClaim#wrap}. */
        void abortClaim(long handle);
    }
}
