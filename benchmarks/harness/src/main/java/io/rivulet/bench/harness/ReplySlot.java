package io.rivulet.bench.harness;

import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits for the single reply of one request, the way the application thread was told to wait:
 * {@code spin} on a volatile flag, {@code yield} the processor between looks (kind to machines with fewer
 * cores than spinning threads), {@code park} until the engine thread unparks it (what {@code Mono.block()}
 * does), or a system's own {@link Wait} (Rivulet's {@code invoke}: run the engine's duty cycle itself).
 *
 * <p>One per request (a Reactive Streams subscriber is subscribed once); the waiting thread and the
 * signalling thread meet through volatile fields. A Reactor {@link CoreSubscriber}, so that Reactor subscribes
 * it as it is rather than wrapped; compiled against the Reactor the parent pins, it runs on whichever Reactor 3
 * the system's JVM brings (RSocket's 3.4 among them), as it uses nothing beyond the interface.
 *
 * <p>Each system's module names it by a one-constructor subclass in its own package; the subclass adds no
 * field and overrides nothing, so the measured path is this class's.
 *
 * @param <T> the reply.
 */
public final class ReplySlot<T> implements CoreSubscriber<T>
{
    /** How the application thread waits. */
    public interface Wait
    {
        /** Called between looks at the flag. */
        void pause();

        /** @return true when {@link #pause()} may sleep and the signalling thread must unpark the waiter. */
        default boolean parks()
        {
            return false;
        }
    }

    /** Spins on the flag. */
    public static final Wait SPIN = Thread::onSpinWait;
    /** Yields the processor between looks. */
    public static final Wait YIELD = Thread::yield;
    /** Parks until the signalling thread unparks the waiter. */
    public static final Wait PARK = new Wait()
    {
        @Override
        public void pause()
        {
            LockSupport.parkNanos(Waits.TIMEOUT_NS);
        }

        @Override
        public boolean parks()
        {
            return true;
        }
    };

    private final Wait wait;
    private final Thread waiter = Thread.currentThread();
    private T value;
    private Throwable error;
    private volatile boolean done;

    /**
     * On the thread that will wait for the reply.
     *
     * @param wait how that thread waits.
     */
    public ReplySlot(final Wait wait)
    {
        this.wait = wait;
    }

    @Override
    public void onSubscribe(final Subscription subscription)
    {
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(final T next)
    {
        value = next;
    }

    @Override
    public void onError(final Throwable throwable)
    {
        error = throwable;
        finish();
    }

    @Override
    public void onComplete()
    {
        finish();
    }

    private void finish()
    {
        done = true;
        if (wait.parks())
        {
            LockSupport.unpark(waiter);
        }
    }

    /** @return whether the reply (or an error) has arrived. */
    public final boolean isDone()
    {
        return done;
    }

    /**
     * Waits the way this slot was told to, at most the harness's timeout.
     *
     * @return the reply, null for an empty reply.
     * @throws TimeoutException when none arrived in time.
     */
    public final T await() throws TimeoutException
    {
        final long deadlineNs = Waits.deadline();
        int looks = 0;
        while (!done)
        {
            wait.pause();
            if ((++looks & 0xFFF) == 0 || wait.parks())
            {
                Waits.check(deadlineNs, "reply");
            }
        }
        if (error != null)
        {
            throw new IllegalStateException("request failed: " + error, error);
        }
        return value;
    }
}
