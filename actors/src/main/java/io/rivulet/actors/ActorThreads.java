package io.rivulet.actors;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The threads of one actor system: a {@link ForkJoinPool} dispatcher running behaviours, and one timer thread
 * for back-off restarts, ask timeouts and retries. Both are daemons, so a system left open does not keep the
 * JVM alive.
 *
 * <p>Thread-safe.
 */
final class ActorThreads
{
    private final ForkJoinPool dispatcher;
    private final ScheduledThreadPoolExecutor timer;
    private final Scheduler timerScheduler;

    /**
     * @param systemId          numbers the thread names, to tell systems apart in a thread dump.
     * @param dispatcherThreads the dispatcher's parallelism.
     * @param uncaught          receives what escapes a dispatched task.
     */
    ActorThreads(final int systemId, final int dispatcherThreads, final Consumer<Throwable> uncaught)
    {
        this.dispatcher = new ForkJoinPool(dispatcherThreads, pool ->
        {
            final ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            thread.setName("rivulet-actors-" + systemId + "-" + thread.getPoolIndex());
            thread.setDaemon(true);
            return thread;
        }, (thread, error) -> uncaught.accept(error), true);
        this.timer = new ScheduledThreadPoolExecutor(1, runnable ->
        {
            final Thread thread = new Thread(runnable, "rivulet-actors-" + systemId + "-timer");
            thread.setDaemon(true);
            return thread;
        });
        // Cancelled timeouts (most asks are answered) must not pile up in the queue until their deadline.
        timer.setRemoveOnCancelPolicy(true);
        this.timerScheduler = Schedulers.fromExecutorService(timer, "rivulet-actors-timer");
    }

    /** @return false when the dispatcher is shut down. */
    boolean dispatch(final Runnable task)
    {
        try
        {
            dispatcher.execute(task);
            return true;
        }
        catch (final RejectedExecutionException ex)
        {
            return false;
        }
    }

    /** @return the scheduled task, or null when the threads are shut down. */
    Future<?> schedule(final long delayNs, final Runnable task)
    {
        try
        {
            return timer.schedule(task, delayNs, TimeUnit.NANOSECONDS);
        }
        catch (final RejectedExecutionException ex)
        {
            return null;
        }
    }

    /** @return the timer thread as a Reactor scheduler, for operators with a time (timeouts). */
    Scheduler timerScheduler()
    {
        return timerScheduler;
    }

    /** Lets running behaviours finish (two seconds at most), then stops the timer with what it still holds. */
    void shutdown()
    {
        dispatcher.shutdown();
        try
        {
            dispatcher.awaitTermination(2, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        timerScheduler.dispose();
        timer.shutdownNow();
    }
}
