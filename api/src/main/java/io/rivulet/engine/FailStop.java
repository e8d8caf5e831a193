package io.rivulet.engine;

import io.rivulet.RivuletException;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Fail-stop for a node's engine: an error that escapes one of its agents — an {@link OutOfMemoryError} in the
 * conductor's reassembly, any {@link Error}, a {@link RuntimeException} nobody caught — stops the engine and closes
 * the node, never leaving it half-alive. Before this, such an error went to Agrona's runner error handler: with an
 * OOM the conductor's thread died while the port still accepted TCP, SETUP was never answered, and nothing restarted
 * or exited.
 *
 * <p>The agents run wrapped: {@link #owner} wraps what owns the conductor (the composite of every agent in SHARED
 * and INVOKER modes, the conductor alone in DEDICATED mode), {@link #sender} the sender's composite in DEDICATED
 * mode. The first error recorded is the cause. The failure path runs on the thread that owns the connection state,
 * at once: on the failing thread when it owns the conductor, otherwise (the sender's thread failed) on the
 * conductor's thread at the start of its next duty cycle; in DEDICATED mode the conductor first waits (bounded)
 * for the sender's thread to stop, so that no link is closed under a send. The path:
 * <ol>
 *     <li>{@link Conductor#failStop}: every connection ends as lost with a reason naming the cause (peers see the
 *     link close), pending connects fail, listeners close, later commands are refused;</li>
 *     <li>the node's own action ({@code Rivulet}): the node file marked DEAD with the cause, the error handler
 *     called, and the JVM halted when {@code rivulet.engineFailure=exit};</li>
 *     <li>the agent stops ({@link AgentTerminationException}, expected, so not reported again) and its runner or
 *     invoker closes it: the conductor's {@code onClose} closes the extensions and the transport.</li>
 * </ol>
 *
 * <p>What runs after an OOM must not need memory: the termination signal and a fallback failure are allocated up
 * front, the node file is written without allocating, and every step that might allocate (the failure's text, the
 * error handler, logging) is tried on its own so that the next runs even if it fails.
 *
 * <p>Errors the conductor already handles per command (a command that throws is reported and the cycle goes on) stay
 * non-fatal: they never reach the agent boundary.
 */
public final class FailStop
{
    /** The status the JVM halts with under {@code rivulet.engineFailure=exit}: EX_SOFTWARE of sysexits.h. */
    public static final int EXIT_STATUS = 70;
    /** How long the conductor waits for the sender's thread to stop (DEDICATED) before it closes the links anyway. */
    static final long SENDER_STOP_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(1);
    /**
     * Stops an agent's runner or invoker; expected, so that the runner does not report the failure a second time
     * (Agrona's arguments: message, cause, expected, suppression, writable stack trace; none is needed).
     */
    private static final AgentTerminationException STOP =
        new AgentTerminationException("the engine failed", null, true, false, false);

    private final Conductor conductor;
    private final boolean dedicated;
    private final Consumer<Throwable> nodeAction;
    private final AtomicReference<Throwable> cause = new AtomicReference<>();
    /** The node's failure as the application sees it; a fallback made up front replaces it if building it fails. */
    private final RivuletException fallbackFailure =
        new RivuletException("node failed: the engine stopped on an error (see the node file's error log)");
    private volatile RivuletException failure;
    private volatile boolean senderStopped;
    private boolean handled;

    /**
     * @param conductor  the node's conductor.
     * @param dedicated  whether the sender runs on a thread of its own ({@link #sender} is used).
     * @param nodeAction run once on the failure path after the conductor closed everything, with the cause: marks
     *                   the node file, calls the error handler, exits when so configured.
     */
    public FailStop(final Conductor conductor, final boolean dedicated, final Consumer<Throwable> nodeAction)
    {
        this.conductor = conductor;
        this.dedicated = dedicated;
        this.nodeAction = nodeAction;
    }

    /**
     * @param agent what owns the conductor: the conductor (DEDICATED) or the composite of every agent.
     * @return the agent to run instead.
     */
    public Agent owner(final Agent agent)
    {
        return new Guard(agent, true);
    }

    /**
     * @param agent the sender's composite on its own thread (DEDICATED).
     * @return the agent to run instead.
     */
    public Agent sender(final Agent agent)
    {
        return new Guard(agent, false);
    }

    /** @return true once an error escaped an agent. */
    public boolean isFailed()
    {
        return cause.get() != null;
    }

    /** @return the error that stopped the engine, or null. */
    public Throwable cause()
    {
        return cause.get();
    }

    /**
     * @return "node failed: &lt;cause&gt;" with the cause attached, for calls on the failed node; null while the engine
     * runs.
     */
    public RivuletException failure()
    {
        final RivuletException known = failure;
        return known != null || cause.get() == null ? known : fallbackFailure;
    }

    /** Records the first error; builds the application's view of it if memory allows. */
    private void record(final Throwable error)
    {
        if (cause.compareAndSet(null, error))
        {
            try
            {
                failure = new RivuletException("node failed: " + error, error);
            }
            catch (final Throwable outOfMemory)
            {
                failure = fallbackFailure;
            }
        }
    }

    /** On the thread that owns the conductor, once. */
    private void handle()
    {
        if (handled)
        {
            return;
        }
        handled = true;
        if (dedicated)
        {
            awaitSenderStopped();
        }
        try
        {
            conductor.failStop(failure());
        }
        catch (final Throwable ignore)
        {
            // Best effort: the conductor's onClose, which follows, closes the links and the transport.
        }
        try
        {
            nodeAction.accept(cause.get());
        }
        catch (final Throwable ignore)
        {
            // The node's action tries each of its steps on its own; nothing is left to do here.
        }
    }

    private void awaitSenderStopped()
    {
        final long deadlineNs = System.nanoTime() + SENDER_STOP_TIMEOUT_NS;
        while (!senderStopped && System.nanoTime() - deadlineNs < 0)
        {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
        }
    }

    /** An agent that fails the node when an error escapes it, and stops when another agent of the node failed. */
    private final class Guard implements Agent
    {
        private final Agent agent;
        private final boolean owner;

        Guard(final Agent agent, final boolean owner)
        {
            this.agent = agent;
            this.owner = owner;
        }

        @Override
        public void onStart()
        {
            agent.onStart();
        }

        @Override
        public int doWork()
        {
            if (cause.get() != null)
            {
                stop(); // another agent failed
            }
            try
            {
                return agent.doWork();
            }
            catch (final Throwable error)
            {
                record(error);
                return stop();
            }
        }

        private int stop()
        {
            if (owner)
            {
                handle();
            }
            throw STOP;
        }

        @Override
        public void onClose()
        {
            try
            {
                agent.onClose();
            }
            finally
            {
                if (!owner)
                {
                    senderStopped = true; // after the sender let go of every link: the conductor may close them
                }
            }
        }

        @Override
        public String roleName()
        {
            return agent.roleName();
        }
    }
}
