package io.rivulet.transport.rdma.verbs;

import java.io.IOException;

/**
 * {@code ibv_qp}. Posting never blocks; a full work queue is an immediate {@link VerbsException}.
 * Errors during execution arrive as completions with an error {@link WcStatus} and move the queue
 * pair to {@link QpState#ERROR}, after which outstanding requests complete with
 * {@link WcStatus#WR_FLUSH_ERROR}.
 */
public interface QueuePair extends AutoCloseable
{
    QpType type();

    QpState state();

    /** @return the queue pair number peers address. */
    int qpNumber();

    /** {@code ibv_post_send}. */
    void postSend(SendWorkRequest request) throws IOException;

    /** {@code ibv_post_recv}. */
    void postReceive(ReceiveWorkRequest request) throws IOException;

    /** @return for UD, the address peers send to; for RC, null. */
    UdAddress udAddress();

    /** Disconnects (RC) and destroys the queue pair. Idempotent. */
    @Override
    void close();
}
