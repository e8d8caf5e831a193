package io.rivulet.transport.rdma.verbs;

import java.io.IOException;

/** {@code ibv_cq}: completions of posted work requests, polled without blocking. */
public interface CompletionQueue extends AutoCloseable
{
    /**
     * {@code ibv_poll_cq} of at most {@code max} completions into reusable objects, with one call into the
     * device's library however many there are.
     *
     * @param completions filled from index 0.
     * @param max         the most to take, at most {@code completions.length}.
     * @return how many were filled (0 when none).
     */
    int poll(WorkCompletion[] completions, int max) throws IOException;

    /**
     * {@code ibv_poll_cq} of up to {@code completions.length} completions.
     *
     * @param completions filled from index 0.
     * @return how many were filled (0 when none).
     */
    default int poll(final WorkCompletion[] completions) throws IOException
    {
        return poll(completions, completions.length);
    }

    @Override
    void close();
}
