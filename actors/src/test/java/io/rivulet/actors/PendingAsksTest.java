package io.rivulet.actors;

import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The table of asks waiting for remote replies: stepped by hand, no threads, no time. */
class PendingAsksTest
{
    private final PendingAsks pending = new PendingAsks(2);

    @Test
    void shouldCompleteAnAskOnceWithItsReply()
    {
        final Ask ask = ask(1);
        assertThat(ask.added).isTrue();
        assertThat(pending.isPending(1)).isTrue();

        pending.take(1).success("filled");
        assertThat(ask.reply.get()).isEqualTo("filled");
        assertThat(pending.isPending(1)).isFalse();
        assertThat(pending.take(1)).as("a second reply finds nothing").isNull();
    }

    @Test
    void shouldRefuseAsksBeyondTheCapacity()
    {
        assertThat(ask(1).added).isTrue();
        assertThat(ask(2).added).isTrue();
        assertThat(ask(3).added).isFalse();
        assertThat(pending.isPending(3)).isFalse();
        assertThat(pending.size()).isEqualTo(2);

        pending.take(1).success("one");
        assertThat(ask(4).added).as("room again once a reply came").isTrue();
    }

    @Test
    void shouldForgetACancelledAsk()
    {
        final Ask ask = ask(1);
        ask.subscription.dispose();
        assertThat(pending.isPending(1)).isFalse();
        assertThat(pending.size()).isZero();
    }

    @Test
    void shouldFailOneAskOnlyWhileItWaits()
    {
        final Ask ask = ask(1);
        final RuntimeException cause = new RuntimeException("channel closed");
        assertThat(pending.fail(1, cause)).isTrue();
        assertThat(ask.error.get()).isSameAs(cause);
        assertThat(pending.fail(1, new RuntimeException("again"))).isFalse();
        assertThat(ask.error.get()).isSameAs(cause);
    }

    @Test
    void shouldFailEveryWaitingAskWhenTheChannelEnds()
    {
        final Ask first = ask(1);
        final Ask second = ask(2);
        pending.take(2).success("answered");
        final ActorNotFoundException cause = new ActorNotFoundException("the channel closed");

        pending.failAll(cause);
        assertThat(first.error.get()).isSameAs(cause);
        assertThat(second.error.get()).isNull();
        assertThat(second.reply.get()).isEqualTo("answered");
        assertThat(pending.size()).isZero();
    }

    private Ask ask(final long id)
    {
        return new Ask(pending, id);
    }

    private static final class Ask
    {
        final AtomicReference<Object> reply = new AtomicReference<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final Disposable subscription;
        boolean added;

        Ask(final PendingAsks pending, final long id)
        {
            subscription = Mono.<Object>create(sink -> added = pending.add(id, sink)).subscribe(reply::set, error::set);
        }
    }
}
