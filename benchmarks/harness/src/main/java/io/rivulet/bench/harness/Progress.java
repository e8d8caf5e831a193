package io.rivulet.bench.harness;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * How far the current workload phase has got, written by the measuring thread with a cheap release
 * store and read by the reporter thread that prints PROGRESS lines.
 *
 * <p>Thread-safe: one writer, any readers.
 */
public final class Progress
{
    private static final VarHandle DONE;

    static
    {
        try
        {
            DONE = MethodHandles.lookup().findVarHandle(Progress.class, "done", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private volatile String label = "";
    private volatile long total;
    @SuppressWarnings("unused")
    private long done;

    /** Starts a phase. */
    public void start(final String label, final long total)
    {
        DONE.setRelease(this, 0L);
        this.total = total;
        this.label = label;
    }

    /** The measuring thread: {@code done} operations are complete. */
    public void update(final long done)
    {
        DONE.setRelease(this, done);
    }

    public long done()
    {
        return (long)DONE.getAcquire(this);
    }

    public long total()
    {
        return total;
    }

    public String label()
    {
        return label;
    }
}
