package io.rivulet.actors;

import io.rivulet.Message;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.test.StepVerifier;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The bounded, batching publisher behind each direction of an actor channel. */
class OutboxTest
{
    private static final Duration WAIT = TestTime.seconds(10);
    private final AtomicInteger dropped = new AtomicInteger();

    @Test
    void shouldSendTheOpeningMessageFirstThenBatchWhatIsQueuedUnderDemand()
    {
        final Message open = Message.of("open");
        final Outbox outbox = new Outbox(16, 45, 1024, open, entry -> dropped.incrementAndGet(), null);
        for (int i = 0; i < 5; i++)
        {
            assertThat(outbox.offer(new byte[] {(byte)i, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})).isEqualTo(Outbox.ACCEPTED);
        }

        StepVerifier.create(outbox, 0)
            .expectSubscription()
            .expectNoEvent(Duration.ofMillis(10))
            .thenRequest(1)
            .expectNext(open)
            .thenRequest(1)
            .assertNext(batch -> assertThat(entries(batch)).containsExactly(0, 1, 2)) // 3 x (4 + 11) <= 45
            .thenRequest(1)
            .assertNext(batch -> assertThat(entries(batch)).containsExactly(3, 4))
            .then(outbox::complete)
            .expectComplete()
            .verify(WAIT);
        assertThat(outbox.offer(new byte[8])).isEqualTo(Outbox.CLOSED);
    }

    @Test
    void shouldRefuseBeyondItsCapacityAndDropWhatIsQueuedWhenAborted()
    {
        final Outbox outbox = new Outbox(4, 1024, 1024, null, entry -> dropped.incrementAndGet(), null);
        for (int i = 0; i < 4; i++)
        {
            assertThat(outbox.offer(new byte[8])).isEqualTo(Outbox.ACCEPTED);
        }
        assertThat(outbox.offer(new byte[8])).isEqualTo(Outbox.FULL);
        assertThat(outbox.highWaterMark()).isEqualTo(4).isEqualTo(outbox.capacity());

        outbox.abort();
        assertThat(dropped.get()).isEqualTo(4);
        assertThat(outbox.size()).isZero();
        assertThat(outbox.offer(new byte[8])).isEqualTo(Outbox.CLOSED);
    }

    @Test
    void shouldSignalAnErrorForANonPositiveRequest()
    {
        final Outbox outbox = new Outbox(4, 1024, 1024, null, entry -> dropped.incrementAndGet(), null);
        outbox.offer(new byte[8]);
        final AtomicReference<Throwable> error = new AtomicReference<>();
        outbox.subscribe(new BaseSubscriber<Message>()
        {
            @Override
            protected void hookOnSubscribe(final Subscription subscription)
            {
                subscription.request(0);
            }

            @Override
            protected void hookOnError(final Throwable throwable)
            {
                error.set(throwable);
            }
        });
        assertThat(error.get()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3.9");
        assertThat(dropped.get()).isEqualTo(1);
    }

    private static List<Integer> entries(final Message batch)
    {
        final List<Integer> firstBytes = new ArrayList<>();
        int offset = 0;
        while (offset < batch.dataLength())
        {
            final int length = batch.data().getInt(offset, ByteOrder.LITTLE_ENDIAN);
            firstBytes.add((int)batch.data().getByte(offset + Envelopes.ENTRY_PREFIX));
            offset += Envelopes.ENTRY_PREFIX + length;
        }
        return firstBytes;
    }
}
