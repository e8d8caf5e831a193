package io.rivulet.engine;

import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

import java.util.concurrent.Executor;

/**
 * The queue through which any thread hands the conductor a command, run in its next duty cycle. It exists before
 * the conductor, so that the node's layers built first can be given it.
 */
public final class ConductorCommands implements Executor
{
    private final ManyToOneConcurrentLinkedQueue<Runnable> queue = new ManyToOneConcurrentLinkedQueue<>();

    /** Any thread: queues a command for the conductor. */
    @Override
    public void execute(final Runnable command)
    {
        queue.offer(command);
    }

    /** Conductor: the next command, or null. */
    Runnable poll()
    {
        return queue.poll();
    }
}
