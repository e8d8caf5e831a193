package io.rivulet.transport.rdma.verbs;

import java.io.IOException;

/** {@code ibv_cq}: completions of posted work requests, polled without blocking. */
public interface CompletionQueue extends AutoCloseable
{
    /**
     * {@code ibv_poll_cq} into reusable objects.
     *
     * @param completions filled from index 0.
     * @return how many were filled (0 when none).
     */
    int poll(WorkCompletion[] completions) throws IOException;

    @Override
    void close();
}
