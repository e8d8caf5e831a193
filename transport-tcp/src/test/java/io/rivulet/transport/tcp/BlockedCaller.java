package io.rivulet.transport.tcp;

import io.rivulet.Message;
import io.rivulet.tck.Await;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thread of its own blocked in {@code block()} on a request, which records how its wait ended; tests watch where it
 * waits through its stack (for instance inside the engine's cycle that it borrowed, {@code EngineLoan.runBorrowed}).
 */
final class BlockedCaller
{
    private final Thread thread;
    private final Duration timeout;
    private final AtomicReference<Message> reply = new AtomicReference<>();
    private final AtomicReference<Throwable> thrown = new AtomicReference<>();

    /**
     * Starts the thread.
     *
     * @param timeout bounds the awaits and the join.
     * @param wait    what the thread does: its last step blocks on the reply it returns.
     */
    BlockedCaller(final Duration timeout, final Callable<Message> wait)
    {
        this.timeout = timeout;
        thread = new Thread(() ->
        {
            try
            {
                reply.set(wait.call());
            }
            catch (final Throwable error)
            {
                thrown.set(error);
            }
        }, "blocked-caller");
        thread.start();
    }

    /** @return where the thread is now. */
    String stack()
    {
        return Arrays.toString(thread.getStackTrace());
    }

    /** Waits until the thread's stack shows every one of {@code frames}. */
    void awaitIn(final String... frames)
    {
        Await.until(timeout, () -> Arrays.stream(frames).allMatch(stack()::contains),
            () -> "the blocked caller in " + Arrays.toString(frames) + ": " + stack());
    }

    void interrupt()
    {
        thread.interrupt();
    }

    /** Waits until the thread has ended. */
    void join() throws InterruptedException
    {
        thread.join(timeout.toMillis());
        assertThat(thread.isAlive()).as("the blocked caller returned").isFalse();
    }

    /** @return the reply, once joined. */
    Message reply()
    {
        return reply.get();
    }

    /** @return what the wait threw, once joined. */
    Throwable thrown()
    {
        return thrown.get();
    }
}
