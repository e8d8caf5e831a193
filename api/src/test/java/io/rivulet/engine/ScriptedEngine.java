package io.rivulet.engine;

import org.agrona.concurrent.Agent;

import java.util.ArrayDeque;
import java.util.Queue;

/** Returns scripted work counts (0 once the script runs out) and runs a hook inside each cycle. */
final class ScriptedEngine implements Agent
{
    private final Queue<Integer> script = new ArrayDeque<>();
    private Runnable hook;
    int cycles;

    void work(final int... counts)
    {
        for (final int count : counts)
        {
            script.add(count);
        }
    }

    void onCycle(final Runnable hook)
    {
        this.hook = hook;
    }

    @Override
    public int doWork()
    {
        cycles++;
        if (hook != null)
        {
            hook.run();
        }
        final Integer work = script.poll();
        return work == null ? 0 : work;
    }

    @Override
    public String roleName()
    {
        return "scripted";
    }
}
