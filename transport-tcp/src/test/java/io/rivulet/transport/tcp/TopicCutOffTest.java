package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.topic.Publication;
import io.rivulet.topic.SlowConsumerException;
import io.rivulet.topic.TopicMessage;
import io.rivulet.topic.TopicOptions;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A DROP_SLOW cut-off reaches the subscriber whatever its demand. The subscriber requests one item (the JOINED)
 * and nothing more while the publisher outruns it; the cut-off must arrive as {@code onError} without another
 * {@code request}: an error signal needs no demand, and the items it had not requested are discarded with it.
 */
class TopicCutOffTest
{
    private static final int CAPACITY = 64 * 1024;
    private static final int WINDOW = 256;
    private static final int MESSAGE_LENGTH = 32;
    /** Bounds the publisher: far more than a log and a window, so the cut comes long before. */
    private static final long MAX_MESSAGES = 5_000_000;

    private final List<Rivulet> nodes = new ArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stopPublishing = new AtomicBoolean();
    private Thread publisher;

    @AfterEach
    void close() throws InterruptedException
    {
        stopPublishing.set(true);
        if (publisher != null)
        {
            publisher.join(TestTime.millis(10_000));
        }
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldDeliverTheCutOffToASubscriberThatRequestedOnlyOne()
    {
        final Rivulet publisherNode = launch();
        final String address = publisherNode.bind("127.0.0.1:0", Responder.none()).block(TestTime.seconds(10))
            .localAddress();
        final Publication publication = publisherNode.publication("md.quotes.EURUSD",
            TopicOptions.dropSlow().logCapacity(CAPACITY));
        final Connection connection = launch().connect(address).block(TestTime.seconds(10));

        final Duration bound = TestTime.seconds(25);
        StepVerifier.create(connection.subscribe("md.quotes.EURUSD"), 1)
            .expectNextMatches(item -> item.kind() == TopicMessage.Kind.JOINED)
            .then(() -> publisher = startPublishing(publication, publisherNode.counters().framesSent::get))
            // No thenRequest: the subscriber's demand stays at zero from here on.
            .expectErrorSatisfies(error ->
            {
                assertThat(error).isInstanceOf(SlowConsumerException.class).hasMessageContaining("DROP_SLOW");
                final SlowConsumerException cut = (SlowConsumerException)error;
                assertThat(cut.topic()).isEqualTo("md.quotes.EURUSD");
                assertThat(cut.lastSequence()).isEqualTo(WINDOW); // its credits, then nothing: it requested none
                // It had requested none of the data it was sent before the cut: all of it was discarded.
                assertThat(cut.discardedItems()).isEqualTo(cut.lastSequence());
                assertThat(cut).hasMessageContaining(cut.discardedItems() + " items not requested were discarded");
            })
            .verify(bound);
        assertThat(publication.slowConsumerEvents()).isEqualTo(1);
        assertThat(errors).isEmpty();
    }

    /**
     * Publishes a window of messages (all within the subscriber's credits, and less than a log), waits until the
     * cursor sent them (the node sent that many frames and nothing is buffered), then publishes flat out: the cursor, out of credits because the
     * subscriber requests nothing, falls a log behind and is cut off with a window of items queued at the
     * subscriber, which is what used to hold the error back.
     */
    private Thread startPublishing(final Publication publication, final LongSupplier framesSent)
    {
        final long framesBefore = framesSent.getAsLong();
        final Thread thread = new Thread(() ->
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);
            final BackoffIdleStrategy idle = new BackoffIdleStrategy(10, 20, 1_000, TimeUnit.MILLISECONDS.toNanos(1));
            final long deadlineNs = System.nanoTime() + TestTime.nanos(30, TimeUnit.SECONDS);
            long published = 0;
            boolean windowSent = false;
            while (!stopPublishing.get() && published < MAX_MESSAGES && System.nanoTime() - deadlineNs < 0 &&
                publication.slowConsumerEvents() == 0)
            {
                if (published == WINDOW && !windowSent)
                {
                    // Sent, not just read: bufferedBytes alone may still be the value of the cycle before the burst.
                    windowSent = framesSent.getAsLong() - framesBefore >= WINDOW && publication.bufferedBytes() == 0;
                    idle.idle();
                    continue;
                }
                buffer.putLong(0, published + 1);
                final long result = publication.offer(buffer, 0, MESSAGE_LENGTH);
                if (result > 0)
                {
                    published = result;
                    idle.reset();
                }
                else
                {
                    idle.idle(); // back-pressured for the duty cycle it takes the cursor to act
                }
            }
        }, "cut-off-publisher");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private Rivulet launch()
    {
        final Rivulet node = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport())
            .threadingMode(ThreadingMode.SHARED).topicWindow(WINDOW).errorHandler(errors::add));
        nodes.add(node);
        return node;
    }
}
