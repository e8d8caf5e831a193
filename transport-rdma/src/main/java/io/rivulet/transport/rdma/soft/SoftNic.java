package io.rivulet.transport.rdma.soft;

import org.agrona.collections.ArrayListUtil;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.LongArrayList;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The soft device's "NIC": one progress thread per device that executes posted work requests, applies
 * incoming one-sided operations to registered memory, consumes posted receives, produces completions,
 * and runs connection management. Applications never execute remote operations: this thread does.
 *
 * <p>Idling: an Agrona {@link BackoffIdleStrategy} (spin, yield, park up to 50 us) for the first
 * millisecond without work, then a blocking sleep (selector in socket mode, park in-process) of at most
 * 10 ms or until the next timer. Posting threads, peers writing into in-memory wires and socket
 * readiness wake it, so an idle device costs almost nothing on a small machine and still answers fast.
 *
 * <p>Thread-safety: {@link #execute(Runnable)}, {@link #runSync(Runnable)} and {@link #wake()} may be
 * called from any thread; everything else runs on the NIC thread only.
 */
final class SoftNic implements Runnable
{
    private static final long DEEP_SLEEP_AFTER_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long MAX_SLEEP_NS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long SYNC_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final long LINGER_NS = TimeUnit.SECONDS.toNanos(1);
    private static final int COMMAND_CAPACITY = 4096;

    private final SoftVerbsContext context;
    private final Selector selector;
    private final ManyToOneConcurrentArrayQueue<Runnable> commands = new ManyToOneConcurrentArrayQueue<>(COMMAND_CAPACITY);
    private final ArrayList<SoftConnection> connections = new ArrayList<>();
    private final ArrayList<SoftListener> listeners = new ArrayList<>();
    private final ArrayList<SoftUdQueuePair> udQueuePairs = new ArrayList<>();
    private final Int2ObjectHashMap<SoftUdQueuePair> udByQpNumber = new Int2ObjectHashMap<>();
    private final ArrayList<TcpWire> lingering = new ArrayList<>();
    private final LongArrayList lingerDeadlines = new LongArrayList();
    private final BackoffIdleStrategy idleStrategy = new BackoffIdleStrategy(20, 10, 1_000, 50_000);
    private final Consumer<SelectionKey> onSelectedKey = this::onSelectedKey;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean terminated;
    private volatile boolean sleeping;
    private long nowNs = System.nanoTime();
    private long nextDeadlineNs;
    private SoftDatagrams datagrams;

    SoftNic(final SoftVerbsContext context, final Selector selector)
    {
        this.context = context;
        this.selector = selector;
        thread = new Thread(this, "rivulet-soft-nic-" + context.deviceName());
        thread.setDaemon(true);
    }

    void start()
    {
        thread.start();
    }

    SoftVerbsContext context()
    {
        return context;
    }

    /** @return the selector in socket mode, null in-process. */
    Selector selector()
    {
        return selector;
    }

    /** @return the time read at the start of the current duty cycle. */
    long nowNs()
    {
        return nowNs;
    }

    /** Asks for a duty cycle no later than {@code deadlineNs}. */
    void deadline(final long deadlineNs)
    {
        if (deadlineNs - nextDeadlineNs < 0)
        {
            nextDeadlineNs = deadlineNs;
        }
    }

    boolean isNicThread()
    {
        return Thread.currentThread() == thread;
    }

    @Override
    public void run()
    {
        boolean idle = false;
        long idleSinceNs = 0;
        try
        {
            while (running)
            {
                // Announce a possible sleep before looking for work: a poster that publishes after this
                // look sees the flag and wakes us (see wake()).
                sleeping = idle;
                nowNs = System.nanoTime();
                nextDeadlineNs = nowNs + MAX_SLEEP_NS;
                final int work = doWork();
                if (work > 0)
                {
                    sleeping = false;
                    idle = false;
                    idleStrategy.reset();
                }
                else if (!idle)
                {
                    idle = true;
                    idleSinceNs = nowNs;
                    idleStrategy.idle();
                }
                else if (nowNs - idleSinceNs < DEEP_SLEEP_AFTER_NS)
                {
                    idleStrategy.idle();
                }
                else
                {
                    sleep(nextDeadlineNs - nowNs);
                }
            }
        }
        catch (final Throwable ex)
        {
            context.onNicFailure(ex);
        }
        finally
        {
            sleeping = false;
            shutdown();
        }
    }

    private void sleep(final long timeoutNs)
    {
        if (timeoutNs <= 0)
        {
            return;
        }
        if (selector != null)
        {
            try
            {
                selector.select(onSelectedKey, Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNs + 999_999)));
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        else
        {
            LockSupport.parkNanos(this, timeoutNs);
        }
    }

    /** Wakes the NIC thread if it may be asleep; cheap when it is busy. */
    void wake()
    {
        if (sleeping)
        {
            final Selector s = selector;
            if (s != null)
            {
                s.wakeup();
            }
            LockSupport.unpark(thread);
        }
    }

    private int doWork()
    {
        int work = drainCommands();

        if (selector != null)
        {
            try
            {
                work += selector.selectNow(onSelectedKey);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }

        for (int i = 0, size = listeners.size(); i < size; i++)
        {
            work += listeners.get(i).doWork(this);
        }

        for (int i = connections.size() - 1; i >= 0; i--)
        {
            final SoftConnection connection = connections.get(i);
            work += connection.doWork(nowNs);
            if (connection.isFinished())
            {
                ArrayListUtil.fastUnorderedRemove(connections, i);
            }
        }

        if (datagrams != null)
        {
            work += datagrams.doWork(nowNs);
        }
        for (int i = 0, size = udQueuePairs.size(); i < size; i++)
        {
            work += udQueuePairs.get(i).doWork(this);
        }

        if (!lingering.isEmpty())
        {
            work += lingerWork();
        }

        return work;
    }

    private void onSelectedKey(final SelectionKey key)
    {
        final Object attachment = key.attachment();
        if (attachment instanceof Selectable && key.isValid())
        {
            ((Selectable)attachment).onSelected(key.readyOps());
        }
    }

    private int drainCommands()
    {
        int work = 0;
        Runnable command;
        while ((command = commands.poll()) != null)
        {
            try
            {
                command.run();
            }
            catch (final RuntimeException ex)
            {
                context.onCommandFailure(ex);
            }
            work++;
        }
        return work;
    }

    /** Queues a task for the NIC thread (or runs it here once the NIC has stopped). */
    void execute(final Runnable command)
    {
        if (terminated)
        {
            synchronized (this)
            {
                command.run();
            }
            return;
        }
        final long deadlineNs = System.nanoTime() + SYNC_TIMEOUT_NS;
        while (!commands.offer(command))
        {
            if (terminated || System.nanoTime() - deadlineNs > 0)
            {
                throw new IllegalStateException("soft device " + context.deviceName() + " is not responding");
            }
            wake();
            LockSupport.parkNanos(10_000);
        }
        wakeNow();
        if (terminated)
        {
            drainCommandsAfterTermination();
        }
    }

    /**
     * Runs a task on the NIC thread and waits for it, so callers see its effects on return (closing a
     * queue pair flushes its completions before close returns).
     */
    void runSync(final Runnable task)
    {
        if (isNicThread())
        {
            task.run();
            return;
        }
        final SyncTask sync = new SyncTask(task);
        execute(sync);
        final long deadlineNs = System.nanoTime() + SYNC_TIMEOUT_NS;
        while (!sync.done)
        {
            if (terminated)
            {
                sync.run(); // no-op if the NIC already ran it
                break;
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new IllegalStateException("soft device " + context.deviceName() + " did not answer in time");
            }
            LockSupport.parkNanos(20_000);
        }
        if (sync.error != null)
        {
            if (sync.error instanceof RuntimeException)
            {
                throw (RuntimeException)sync.error;
            }
            throw new IllegalStateException(sync.error);
        }
    }

    private void wakeNow()
    {
        final Selector s = selector;
        if (s != null && sleeping)
        {
            s.wakeup();
        }
        LockSupport.unpark(thread);
    }

    private synchronized void drainCommandsAfterTermination()
    {
        Runnable command;
        while ((command = commands.poll()) != null)
        {
            try
            {
                command.run();
            }
            catch (final RuntimeException ignore)
            {
                // the device is closed; nothing left to tell
            }
        }
    }

    /** Stops the thread after closing everything it drives; waits for it. */
    void stop()
    {
        running = false;
        wakeNow();
        if (!isNicThread())
        {
            try
            {
                thread.join(TimeUnit.NANOSECONDS.toMillis(SYNC_TIMEOUT_NS));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        if (!thread.isAlive() && !terminated)
        {
            // never started, or died: close here
            shutdown();
        }
    }

    private synchronized void shutdown()
    {
        if (terminated)
        {
            return;
        }
        drainCommandsQuietly();
        for (int i = connections.size() - 1; i >= 0; i--)
        {
            connections.get(i).closeOnNic();
        }
        connections.clear();
        for (int i = listeners.size() - 1; i >= 0; i--)
        {
            listeners.get(i).closeOnNic();
        }
        listeners.clear();
        for (int i = udQueuePairs.size() - 1; i >= 0; i--)
        {
            udQueuePairs.get(i).destroyOnNic();
        }
        udQueuePairs.clear();
        udByQpNumber.clear();
        if (datagrams != null)
        {
            datagrams.close();
        }
        for (final TcpWire wire : lingering)
        {
            wire.close();
        }
        lingering.clear();
        lingerDeadlines.clear();
        if (selector != null)
        {
            try
            {
                selector.close();
            }
            catch (final IOException ignore)
            {
                // closing anyway
            }
        }
        terminated = true;
        drainCommandsQuietly();
    }

    private void drainCommandsQuietly()
    {
        Runnable command;
        while ((command = commands.poll()) != null)
        {
            try
            {
                command.run();
            }
            catch (final RuntimeException ignore)
            {
                // shutting down
            }
        }
    }

    boolean isTerminated()
    {
        return terminated;
    }

    // ------------------------------------------------------------------ NIC-thread operations

    void addConnection(final SoftConnection connection)
    {
        connections.add(connection);
    }

    void addListener(final SoftListener listener)
    {
        listeners.add(listener);
    }

    void removeListener(final SoftListener listener)
    {
        listeners.remove(listener);
    }

    void addUdQueuePair(final SoftUdQueuePair queuePair)
    {
        udQueuePairs.add(queuePair);
        udByQpNumber.put(queuePair.qpNumber(), queuePair);
    }

    void removeUdQueuePair(final SoftUdQueuePair queuePair)
    {
        udQueuePairs.remove(queuePair);
        udByQpNumber.remove(queuePair.qpNumber());
    }

    SoftUdQueuePair udQueuePair(final int qpNumber)
    {
        return udByQpNumber.get(qpNumber);
    }

    void datagrams(final SoftDatagrams datagrams)
    {
        this.datagrams = datagrams;
    }

    SoftDatagrams datagrams()
    {
        return datagrams;
    }

    SelectionKey register(final SelectableChannel channel, final int ops, final Object attachment) throws IOException
    {
        return channel.register(selector, ops, attachment);
    }

    /**
     * Closes a TCP wire gracefully: flush, half-close, read until the peer closes too (at most a
     * second), so frames already sent are not destroyed by a reset.
     */
    void linger(final TcpWire wire)
    {
        if (wire.isClosed())
        {
            return;
        }
        wire.shutdownOutput();
        lingering.add(wire);
        lingerDeadlines.addLong(nowNs + LINGER_NS);
    }

    private int lingerWork()
    {
        int work = 0;
        for (int i = lingering.size() - 1; i >= 0; i--)
        {
            final TcpWire wire = lingering.get(i);
            wire.shutdownOutput();
            wire.discardInput();
            final long deadlineNs = lingerDeadlines.getLong(i);
            if (wire.isEndOfStream() || nowNs - deadlineNs >= 0)
            {
                wire.close();
                ArrayListUtil.fastUnorderedRemove(lingering, i);
                lingerDeadlines.fastUnorderedRemove(i);
                work++;
            }
            else
            {
                deadline(Math.min(deadlineNs, nowNs + TimeUnit.MILLISECONDS.toNanos(1)));
            }
        }
        return work;
    }

    /** A task whose caller waits; runs exactly once, on the NIC or, after termination, on the caller. */
    private static final class SyncTask extends AtomicBoolean implements Runnable
    {
        private static final long serialVersionUID = 1L;
        private final Runnable task;
        private volatile boolean done;
        private volatile Throwable error;

        SyncTask(final Runnable task)
        {
            this.task = task;
        }

        @Override
        public void run()
        {
            if (compareAndSet(false, true))
            {
                try
                {
                    task.run();
                }
                catch (final Throwable ex)
                {
                    error = ex;
                }
                finally
                {
                    done = true;
                }
            }
        }
    }
}
