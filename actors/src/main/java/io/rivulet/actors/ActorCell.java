package io.rivulet.actors;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * One running actor: its bounded mailbox, its current behaviour and its supervision state.
 *
 * <p>Processing: when a message arrives and the actor is idle it is scheduled on the system's dispatcher;
 * one run handles control requests (start, stop, resume after back-off), then up to {@code throughput}
 * messages — internal ones first (signals of watched actors, piped results), then the mailbox in FIFO order —
 * and reschedules itself if more are waiting. A compare-and-set on {@code scheduled} makes sure at most one
 * thread runs the actor, so messages are handled one at a time and in mailbox order, which is each sender's
 * order.
 *
 * <p>Thread-safety: {@link #offer}, {@link #enqueueInternal}, {@link #requestStop}, {@link #awaitSpace},
 * {@link #termination()} and {@link #stats()} from any thread; everything else on the thread running the actor.
 */
final class ActorCell<T> implements Runnable
{
    static final int ACCEPTED = 0;
    static final int FULL = 1;
    static final int STOPPED = 2;

    private enum State
    {
        NEW, RUNNING, SUSPENDED, STOPPED
    }

    private enum Control
    {
        START, STOP, RESUME
    }

    /** A piped result, handled as a message. */
    private record Piped(Object message)
    {
    }

    /** A watched actor's termination, handled as a signal. */
    private record WatchSignal(Terminated terminated)
    {
    }

    private final ActorSystem system;
    private final ActorCounters counters;
    private final String name;
    private final String path;
    private final ActorOptions options;
    private final Behavior<T> initial;
    private final LocalActorRef<T> self;
    private final ManyToOneConcurrentArrayQueue<Object> mailbox;
    private final ConcurrentLinkedQueue<Control> control = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Object> internal = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<InboundChannel> spaceWaiters = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Sinks.One<Terminated> termination = Sinks.one();
    private final AtomicInteger highWaterMark = new AtomicInteger();
    private final AtomicLong processed = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong restarts = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private volatile State state = State.NEW;

    // Owned by the thread running the actor.
    private final ContextImpl context = new ContextImpl();
    private final ArrayDeque<Long> restartTimesNs = new ArrayDeque<>();
    private final ArrayList<InboundChannel> waitersToNotify = new ArrayList<>();
    private Behavior<T> behavior;

    ActorCell(final ActorSystem system, final String name, final Behavior<T> initial, final ActorOptions options)
    {
        this.system = system;
        this.counters = system.counters();
        this.name = name;
        this.path = system.pathOf(name);
        this.initial = initial;
        this.options = options;
        this.mailbox = new ManyToOneConcurrentArrayQueue<>(options.mailboxCapacity());
        this.self = new LocalActorRef<>(system, name, path, this);
    }

    String name()
    {
        return name;
    }

    String path()
    {
        return path;
    }

    LocalActorRef<T> self()
    {
        return self;
    }

    OverflowPolicy overflowPolicy()
    {
        return options.overflowPolicy();
    }

    int capacity()
    {
        return mailbox.capacity();
    }

    boolean isStopped()
    {
        return state == State.STOPPED;
    }

    /** @return emits once, when the actor stops; replays to late subscribers. */
    Mono<Terminated> termination()
    {
        return termination.asMono();
    }

    /** @return how many watches wait for this actor's termination (tests use it to sequence). */
    int watcherCount()
    {
        return termination.currentSubscriberCount();
    }

    ActorStats stats()
    {
        return new ActorStats(path, true, mailbox.size(), mailbox.capacity(), highWaterMark.get(), processed.get(),
            failures.get(), restarts.get(), rejected.get());
    }

    /** Any thread: starts the actor. */
    void start()
    {
        control.add(Control.START);
        schedule();
    }

    /** Any thread: the actor stops after the message it is handling, if any. */
    void requestStop()
    {
        control.add(Control.STOP);
        schedule();
    }

    /**
     * Any thread: puts a message (a bare local tell or an {@link Envelope}) into the mailbox.
     *
     * @return {@link #ACCEPTED}, {@link #FULL} or {@link #STOPPED}.
     */
    int offer(final Object message)
    {
        if (state == State.STOPPED)
        {
            return STOPPED;
        }
        if (!mailbox.offer(message))
        {
            return state == State.STOPPED ? STOPPED : FULL;
        }
        final int size = mailbox.size();
        if (size > highWaterMark.get())
        {
            highWaterMark.accumulateAndGet(size, Math::max);
        }
        schedule();
        return ACCEPTED;
    }

    /** Any thread: counts a message refused by the REJECT policy. */
    void onRejected()
    {
        rejected.incrementAndGet();
        counters.mailboxRejected.increment();
    }

    /** Any thread: the channel is told (once) when the actor next makes room in its mailbox, or stops. */
    void awaitSpace(final InboundChannel channel)
    {
        spaceWaiters.add(channel);
        if (state == State.STOPPED)
        {
            schedule();
        }
    }

    /** Any thread: a signal or piped message for the actor, outside the bounded mailbox. */
    private void enqueueInternal(final Object message)
    {
        internal.add(message);
        schedule();
    }

    private void schedule()
    {
        if (scheduled.compareAndSet(false, true))
        {
            if (!system.dispatch(this))
            {
                scheduled.set(false);
            }
        }
    }

    @Override
    public void run()
    {
        try
        {
            Control request;
            while ((request = control.poll()) != null)
            {
                onControl(request);
            }
            if (state == State.RUNNING)
            {
                int budget = system.throughput();
                Object message;
                while (budget > 0 && state == State.RUNNING && (message = internal.poll()) != null)
                {
                    budget--;
                    onInternal(message);
                }
                int taken = 0;
                while (budget > 0 && state == State.RUNNING && (message = mailbox.poll()) != null)
                {
                    budget--;
                    taken++;
                    onUserMessage(message);
                }
                if (taken > 0)
                {
                    notifySpace();
                }
            }
            if (state == State.STOPPED)
            {
                drainStopped();
            }
        }
        catch (final Throwable ex)
        {
            system.reportError(ex);
        }
        finally
        {
            scheduled.set(false);
            if (hasWork())
            {
                schedule();
            }
        }
    }

    private boolean hasWork()
    {
        if (!control.isEmpty())
        {
            return true;
        }
        switch (state)
        {
            case RUNNING:
                return !internal.isEmpty() || !mailbox.isEmpty();
            case STOPPED:
                return !internal.isEmpty() || !mailbox.isEmpty() || !spaceWaiters.isEmpty();
            default:
                return false;
        }
    }

    private void onControl(final Control request)
    {
        switch (request)
        {
            case START:
                if (state == State.NEW)
                {
                    state = State.RUNNING;
                    startInitial();
                }
                break;
            case RESUME:
                if (state == State.SUSPENDED)
                {
                    state = State.RUNNING;
                    startInitial();
                }
                break;
            default:
                stop(Terminated.Reason.STOPPED, null);
        }
    }

    private void onInternal(final Object message)
    {
        if (message instanceof WatchSignal signal)
        {
            final Terminated terminated = signal.terminated();
            if (!context.forgetWatch(terminated.path()))
            {
                return; // unwatched, or watched by an incarnation before a restart
            }
            context.current = system.noReply();
            try
            {
                become(behavior.onSignal(context, terminated));
            }
            catch (final Throwable ex)
            {
                onFailure(ex, system.noReply(), terminated);
            }
        }
        else
        {
            invoke(((Piped)message).message(), system.noReply());
        }
    }

    private void onUserMessage(final Object entry)
    {
        if (entry instanceof Envelope envelope)
        {
            final Object message;
            try
            {
                message = envelope.message(system.serializers());
            }
            catch (final SerializationException ex)
            {
                counters.serializationErrors.increment();
                counters.deadLetters.increment();
                system.reportError(new SerializationException("actor " + path + " dropped a message: " +
                    ex.getMessage(), ex));
                envelope.replier.fail(ex);
                return;
            }
            invoke(message, envelope.replier);
        }
        else
        {
            invoke(entry, system.noReply());
        }
    }

    @SuppressWarnings("unchecked")
    private void invoke(final Object message, final AbstractReplier replier)
    {
        context.current = replier;
        try
        {
            become(behavior.onMessage(context, (T)message));
        }
        catch (final Throwable ex)
        {
            onFailure(ex, replier, message);
        }
        finally
        {
            context.current = system.noReply();
            processed.lazySet(processed.get() + 1);
        }
    }

    private void become(final Behavior<T> next) throws Exception
    {
        if (context.stopRequested || Behaviors.isStopped(next))
        {
            stop(Terminated.Reason.STOPPED, null);
        }
        else if (!Behaviors.isSame(next))
        {
            final Behavior<T> started = undefer(next);
            if (Behaviors.isStopped(started))
            {
                stop(Terminated.Reason.STOPPED, null);
            }
            else
            {
                behavior = started;
            }
        }
    }

    private Behavior<T> undefer(final Behavior<T> candidate) throws Exception
    {
        Behavior<T> current = candidate;
        for (int depth = 0; current instanceof Behaviors.Setup<T> setup; depth++)
        {
            if (depth == 64)
            {
                throw new IllegalStateException("setup factories nested more than 64 deep");
            }
            current = setup.create(context);
        }
        if (Behaviors.isSame(current))
        {
            throw new IllegalStateException("a setup factory must return a behaviour, not same() or null");
        }
        return current;
    }

    private void startInitial()
    {
        try
        {
            context.current = system.noReply();
            final Behavior<T> started = undefer(initial);
            if (context.stopRequested || Behaviors.isStopped(started))
            {
                behavior = started;
                stop(Terminated.Reason.STOPPED, null);
            }
            else
            {
                behavior = started;
            }
        }
        catch (final Throwable ex)
        {
            behavior = null;
            onFailure(ex, system.noReply(), null);
        }
    }

    /**
     * Supervision: counts and reports the failure, fails the asker, then resumes, stops or restarts.
     *
     * @param message the message being handled, a {@link Signal}, or null while starting.
     */
    private void onFailure(final Throwable cause, final AbstractReplier replier, final Object message)
    {
        failures.incrementAndGet();
        counters.failures.increment();
        final String what = message == null ? "starting" :
            message instanceof Signal ? "signal " + message.getClass().getSimpleName() :
            "a " + message.getClass().getSimpleName();
        if (replier.expectsReply())
        {
            replier.fail(new ActorFailedException(path, "actor " + path + " failed handling " + what + ": " + cause, cause));
        }
        final SupervisorStrategy strategy = options.supervision();
        switch (strategy.kind())
        {
            case RESUME:
                if (behavior != null)
                {
                    report(cause, what, "resumed with its state; the message was dropped");
                    return;
                }
                report(cause, what, "stopped: it failed to start, so there is nothing to resume");
                stop(Terminated.Reason.FAILED, cause);
                return;
            case STOP:
                report(cause, what, "stopped (supervisor strategy stop)");
                stop(Terminated.Reason.FAILED, cause);
                return;
            default:
                restart(strategy, cause, what, message == null);
        }
    }

    private void restart(final SupervisorStrategy strategy, final Throwable cause, final String what,
        final boolean whileStarting)
    {
        final long nowNs = System.nanoTime();
        while (!restartTimesNs.isEmpty() && nowNs - restartTimesNs.peekFirst() > strategy.withinNs())
        {
            restartTimesNs.pollFirst();
        }
        final long withinMs = TimeUnit.NANOSECONDS.toMillis(strategy.withinNs());
        if (restartTimesNs.size() >= strategy.maxRestarts())
        {
            report(cause, what, "stopped: restart limit of " + strategy.maxRestarts() + " within " + withinMs +
                " ms reached");
            stop(Terminated.Reason.FAILED, cause);
            return;
        }
        restartTimesNs.addLast(nowNs);
        final int restart = restartTimesNs.size();
        final long delayNs = strategy.backoffNs(restart);
        report(cause, what, "restarting with its initial behaviour (restart " + restart + " of at most " +
            strategy.maxRestarts() + " within " + withinMs + " ms" +
            (delayNs > 0 ? ", after a back-off of " + TimeUnit.NANOSECONDS.toMillis(delayNs) + " ms" : "") + ")");
        if (behavior != null)
        {
            try
            {
                context.current = system.noReply();
                behavior.onSignal(context, new PreRestart(cause));
            }
            catch (final Throwable ex)
            {
                system.reportError(new ActorFailedException(path, "actor " + path + " failed handling PreRestart: " +
                    ex, ex));
            }
        }
        context.reset();
        behavior = null;
        restarts.incrementAndGet();
        counters.restarts.increment();
        state = State.SUSPENDED;
        if (delayNs > 0)
        {
            system.schedule(delayNs, () ->
            {
                control.add(Control.RESUME);
                schedule();
            });
        }
        else if (whileStarting)
        {
            // Through the control queue, not recursion: a setup that keeps failing must not grow the stack.
            control.add(Control.RESUME);
        }
        else
        {
            state = State.RUNNING;
            startInitial();
        }
    }

    private void report(final Throwable cause, final String what, final String decision)
    {
        system.reportError(new ActorFailedException(path, "actor " + path + " failed handling " + what + ": " + cause +
            "; " + decision, cause));
    }

    private void stop(final Terminated.Reason reason, final Throwable cause)
    {
        if (state == State.STOPPED)
        {
            return;
        }
        state = State.STOPPED;
        system.unregister(this);
        if (behavior != null && !Behaviors.isStopped(behavior))
        {
            try
            {
                context.current = system.noReply();
                behavior.onSignal(context, new PostStop(reason));
            }
            catch (final Throwable ex)
            {
                system.reportError(new ActorFailedException(path, "actor " + path + " failed handling PostStop: " +
                    ex, ex));
            }
        }
        context.reset();
        behavior = null;
        counters.stopped.increment();
        termination.tryEmitValue(new Terminated(path, reason, cause == null ? "" : String.valueOf(cause)));
        drainStopped();
    }

    private void drainStopped()
    {
        Object message;
        while ((message = internal.poll()) != null)
        {
            if (message instanceof Piped)
            {
                counters.deadLetters.increment();
            }
        }
        while ((message = mailbox.poll()) != null)
        {
            counters.deadLetters.increment();
            if (message instanceof Envelope envelope && envelope.replier.expectsReply())
            {
                envelope.replier.fail(new ActorNotFoundException("actor " + path + " stopped before handling the message"));
            }
        }
        notifySpace();
    }

    private void notifySpace()
    {
        if (spaceWaiters.isEmpty())
        {
            return;
        }
        InboundChannel channel;
        while ((channel = spaceWaiters.poll()) != null)
        {
            waitersToNotify.add(channel);
        }
        for (int i = 0; i < waitersToNotify.size(); i++)
        {
            waitersToNotify.get(i).onSpace(this);
        }
        waitersToNotify.clear();
    }

    @Override
    public String toString()
    {
        return "ActorCell{" + path + ", " + state + "}";
    }

    /** The behaviour's view of the actor; used on the actor's thread only. */
    private final class ContextImpl implements ActorContext<T>
    {
        private final Map<String, Disposable> watches = new HashMap<>();
        AbstractReplier current;
        boolean stopRequested;

        @Override
        public ActorRef<T> self()
        {
            return self;
        }

        @Override
        public ActorSystem system()
        {
            return system;
        }

        @Override
        public Replier replier()
        {
            return current == null ? system.noReply() : current;
        }

        @Override
        public void watch(final ActorRef<?> ref)
        {
            if (watches.containsKey(ref.path()))
            {
                return;
            }
            // Put first: a watch of an actor already gone signals synchronously.
            final Disposable.Swap swap = Disposables.swap();
            watches.put(ref.path(), swap);
            swap.update(system.watch(ref).subscribe(
                terminated -> enqueueInternal(new WatchSignal(terminated)),
                error -> system.reportError(error)));
        }

        @Override
        public void unwatch(final ActorRef<?> ref)
        {
            final Disposable watch = watches.remove(ref.path());
            if (watch != null)
            {
                watch.dispose();
            }
        }

        boolean forgetWatch(final String watchedPath)
        {
            return watches.remove(watchedPath) != null;
        }

        @Override
        public <V> void pipeToSelf(final Mono<V> result, final BiFunction<? super V, Throwable, ? extends T> adapter)
        {
            result.map(Optional::of)
                .defaultIfEmpty(Optional.empty())
                .subscribe(
                    value -> pipe(adapter, value.orElse(null), null),
                    error -> pipe(adapter, null, error));
        }

        private <V> void pipe(final BiFunction<? super V, Throwable, ? extends T> adapter, final V value,
            final Throwable error)
        {
            final T message;
            try
            {
                message = adapter.apply(value, error);
            }
            catch (final Throwable ex)
            {
                system.reportError(new ActorFailedException(path, "actor " + path + ": pipeToSelf adapter failed: " +
                    ex, ex));
                return;
            }
            if (message != null)
            {
                enqueueInternal(new Piped(message));
            }
        }

        @Override
        public void stop()
        {
            stopRequested = true;
        }

        @Override
        public long restarts()
        {
            return restarts.get();
        }

        void reset()
        {
            for (final Disposable watch : watches.values())
            {
                watch.dispose();
            }
            watches.clear();
            stopRequested = false;
        }

        @Override
        public String toString()
        {
            return "ActorContext{" + path + "}";
        }
    }
}
