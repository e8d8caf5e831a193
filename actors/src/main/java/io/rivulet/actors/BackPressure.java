package io.rivulet.actors;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * A sender's wait under {@link OverflowPolicy#BACK_PRESSURE}: retries a full offer (to a mailbox or to the
 * outbound queue to a remote actor) with a back-off until it is taken, giving up after the send timeout.
 *
 * <p>Thread-safe; the wait runs on the sender's thread.
 */
final class BackPressure
{
    private final ActorCounters counters;
    private final long timeoutNs;

    BackPressure(final ActorCounters counters, final Duration sendTimeout)
    {
        this.counters = counters;
        this.timeoutNs = sendTimeout.toNanos();
    }

    /**
     * @param offer tries once: {@link ActorCell#ACCEPTED}, {@link ActorCell#FULL} or a code for stopped/closed
     *              (the {@link Outbox} codes have the same values).
     * @param what  the queue, for the error.
     * @return the offer's last result (accepted, or stopped/closed).
     * @throws MailboxFullException after the send timeout.
     */
    int awaitOffer(final IntSupplier offer, final String what)
    {
        counters.backPressureWaits.increment();
        final long deadlineNs = System.nanoTime() + timeoutNs;
        // Spin, yield, then park 1 to 100 µs between tries: a consumer about to catch up is seen at once, a
        // slow one costs the sender little CPU.
        final IdleStrategy idle = new BackoffIdleStrategy(10, 10, TimeUnit.MICROSECONDS.toNanos(1),
            TimeUnit.MICROSECONDS.toNanos(100));
        for (;;)
        {
            idle.idle();
            final int result = offer.getAsInt();
            if (result != ActorCell.FULL)
            {
                return result;
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                counters.sendTimeouts.increment();
                throw new MailboxFullException(what + " stayed full for " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) +
                    " ms (policy BACK_PRESSURE)");
            }
        }
    }
}
