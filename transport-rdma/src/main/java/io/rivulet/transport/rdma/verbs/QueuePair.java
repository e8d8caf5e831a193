package io.rivulet.transport.rdma.verbs;

import java.io.IOException;

/**
 * {@code ibv_qp}. Posting never blocks; a full work queue is an immediate {@link VerbsException}.
 * Errors during execution arrive as completions with an error {@link WcStatus} and move the queue
 * pair to {@link QpState#ERROR}, after which outstanding requests complete with
 * {@link WcStatus#WR_FLUSH_ERROR}.
 *
 * <p>Chains: {@link #postSend(SendWorkRequest[], int)} and {@link #postReceive(ReceiveWorkRequest[], int)} hand
 * many requests to the device at once ({@code ibv_post_send} of a linked list), which on a hardware provider
 * is one crossing into native code per batch instead of one per request.
 */
public interface QueuePair extends AutoCloseable
{
    QpType type();

    QpState state();

    /** @return the queue pair number peers address. */
    int qpNumber();

    /** {@code ibv_post_send} of one request. */
    void postSend(SendWorkRequest request) throws IOException;

    /**
     * {@code ibv_post_send} of {@code requests[0..count)} as one chain, in order.
     *
     * @throws IOException when one could not be posted; the requests before it may have been, and their
     *                     completions still arrive (a caller that cannot tell treats the queue pair as failed).
     */
    default void postSend(final SendWorkRequest[] requests, final int count) throws IOException
    {
        for (int i = 0; i < count; i++)
        {
            postSend(requests[i]);
        }
    }

    /** {@code ibv_post_recv} of one request. */
    void postReceive(ReceiveWorkRequest request) throws IOException;

    /**
     * {@code ibv_post_recv} of {@code requests[0..count)} as one chain, in order.
     *
     * @throws IOException when one could not be posted; the ones before it may have been.
     */
    default void postReceive(final ReceiveWorkRequest[] requests, final int count) throws IOException
    {
        for (int i = 0; i < count; i++)
        {
            postReceive(requests[i]);
        }
    }

    /** @return for UD, the address peers send to; for RC, null. */
    UdAddress udAddress();

    /**
     * UD only: brings a queue pair in {@link QpState#ERROR} back to {@link QpState#RTS} (RESET, INIT, RTR, RTS)
     * with its number and Q_Key unchanged, so peers keep reaching it. Every request outstanding when it failed
     * has completed flushed or is lost: the caller posts its receives again.
     *
     * @throws IOException when the device refuses, or for an RC queue pair (a failed connection is replaced,
     *                     never recovered).
     */
    default void recover() throws IOException
    {
        throw new VerbsException(type() + " queue pair " + qpNumber() + " cannot be recovered in place");
    }

    /**
     * UD only, {@code ibv_attach_mcast}: the queue pair receives the datagrams sent to a joined group from now on (its
     * Q_Key must be the group's, or the device drops them). A queue pair may be attached to many groups. Destroying
     * the queue pair detaches it from every group.
     *
     * @param group a {@link MulticastMembership.State#JOINED} membership of this queue pair's context.
     * @throws IOException when the provider has no multicast, the membership is not joined, or the device refuses
     *                     (its {@code max_mcast_qp_attach}, {@code max_total_mcast_qp_attach}).
     */
    default void attachMulticast(final MulticastMembership group) throws IOException
    {
        throw new VerbsException(type() + " queue pair " + qpNumber() + " cannot receive multicast here");
    }

    /**
     * {@code ibv_detach_mcast}: the queue pair no longer receives the group's datagrams.
     *
     * @param group a membership this queue pair was attached to.
     * @throws IOException when it was not attached, or the device refuses.
     */
    default void detachMulticast(final MulticastMembership group) throws IOException
    {
        throw new VerbsException(type() + " queue pair " + qpNumber() + " cannot receive multicast here");
    }

    /** Disconnects (RC) and destroys the queue pair. Idempotent. */
    @Override
    void close();
}
