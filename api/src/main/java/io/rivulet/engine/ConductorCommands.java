package io.rivulet.engine;

import io.rivulet.RivuletException;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

import java.util.concurrent.Executor;

/**
 * The queue through which any thread hands the conductor a command, run in its next duty cycle. It exists before
 * the conductor, so that the node's layers built first can be given it.
 *
 * <p>Once the engine failed ({@link FailStop}) there is no next duty cycle: the queue refuses commands, so that a
 * call that would have waited for one fails at once with the node's failure.
 */
public final class ConductorCommands implements Executor
{
    private final ManyToOneConcurrentLinkedQueue<Runnable> queue = new ManyToOneConcurrentLinkedQueue<>();
    private volatile RivuletException refusal;

    /**
     * Any thread: queues a command for the conductor.
     *
     * @throws RivuletException "node failed: ..." once the engine failed.
     */
    @Override
    public void execute(final Runnable command)
    {
        final RivuletException failed = refusal;
        if (failed != null)
        {
            throw new RivuletException(failed.getMessage(), failed.getCause()); // thrown here: the caller's stack
        }
        queue.offer(command);
    }

    /** Conductor: the next command, or null. */
    Runnable poll()
    {
        return queue.poll();
    }

    /** Conductor, on engine failure: every later {@link #execute} fails with this. */
    void refuse(final RivuletException failure)
    {
        refusal = failure;
    }
}
