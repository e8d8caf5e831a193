package io.rivulet.bench.rivulet;

import io.rivulet.bench.harness.Waits;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits for the single reply of one request, the way the application thread was told to wait:
 * {@code spin} on a volatile flag, {@code yield} the processor between looks (kind to machines with fewer
 * cores than spinning threads), {@code park} until the engine thread unparks it (what {@code Mono.block()}
 * does), or {@code invoke}: run the engine's duty cycle itself ({@code ThreadingMode.INVOKER}).
 *
 * <p>One per request (a Reactive Streams subscriber is subscribed once); the waiting thread and the
 * signalling thread meet through volatile fields.
 */
final class ReplySlot<T> implements CoreSubscriber<T>
{
    /** How the application thread waits. */
    interface Wait
    {
        /** Called between looks at the flag. */
        void pause();

        /** @return true when {@link #pause()} may sleep and the signalling thread must unpark the waiter. */
        default boolean parks()
        {
            return false;
        }
    }

    static final Wait SPIN = Thread::onSpinWait;
    static final Wait YIELD = Thread::yield;
    static final Wait PARK = new Wait()
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

    ReplySlot(final Wait wait)
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

    boolean isDone()
    {
        return done;
    }

    T await() throws TimeoutException
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
