package io.rivulet.protocol;

import io.rivulet.ReplyHandler;

/**
 * One zero-copy request ({@code Connection.offerRequest}) waiting for its reply, kept in the {@link StreamTable}
 * under its stream id instead of a {@link ProtocolStream}. Entries are pooled by the table, so a warm connection
 * allocates none per request.
 *
 * <p>Threading: the opener fills an entry under the table's lock; from then on the conductor owns
 * {@link #reassembly} (a reply in fragments), and whoever takes the entry out of the table (the conductor with the
 * reply, or a caller cancelling) is the only one to read the rest.
 */
final class PendingReply
{
    int streamId;
    ReplyHandler handler;
    /** System.nanoTime() when the request was offered, for the node's round-trip histogram. */
    long sentNs;
    /** A reply whose fragments are still arriving; conductor only. */
    Reassembly reassembly;
    /** The next spare entry of the table's pool. */
    PendingReply nextFree;

    /** @return the id as {@code offerRequest} returned it. */
    long requestId()
    {
        return streamId;
    }
}
