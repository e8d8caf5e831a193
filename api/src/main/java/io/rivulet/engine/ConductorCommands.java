package io.rivulet.engine;

import io.rivulet.RivuletException;
import io.rivulet.spi.EngineWake;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

import java.util.concurrent.Executor;

/**
 * The queue through which any thread hands the conductor a command, run in its next duty cycle. It exists before
 * the conductor, so that the node's layers built first can be given it.
 *
 * <p>Once the engine failed ({@link FailStop}) there is no next duty cycle: the queue refuses commands, so that a
 * call that would have waited for one fails at once with the node's failure.
 */
public final class ConductorCommands implements Executor, EngineWake
{
    private final ManyToOneConcurrentLinkedQueue<Runnable> queue = new ManyToOneConcurrentLinkedQueue<>();
    private volatile RivuletException refusal;
    /** Wakes an engine asleep in its transport's selector ({@link EngineSleep}); none until the node set one. */
    private volatile EngineWake wake = EngineWake.NONE;

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
        wake.afterHandOff();
    }

    /** Any thread, after handing the engine work some other way (a published topic message, a ring frame). */
    @Override
    public void afterHandOff()
    {
        wake.afterHandOff();
    }

    @Override
    public void afterFencedHandOff()
    {
        wake.afterFencedHandOff();
    }

    /** Before the engine starts: what wakes it once it sleeps. */
    public void engineWake(final EngineWake wake)
    {
        this.wake = wake;
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
