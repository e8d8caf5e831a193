package io.rivulet.protocol;

import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.subscriber.TestSubscriber;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class ProtocolParkingTest
{
    private static final int MESSAGES = 300;
    private static final int RING = 4096;
    private static final int MAX_FRAME = 512; // the ring holds frames up to 1/8 of its capacity

    /** A message whose size varies (some fragment, some not) and whose bytes identify it. */
    static Message message(final int stream, final int index)
    {
        final int length = 100 + (index * 37) % 1100;
        final byte[] data = new byte[length];
        Arrays.fill(data, (byte)(stream * 31 + index));
        ByteBuffer.wrap(data).putInt(stream).putInt(index);
        return Message.of(data);
    }

    private final Map<Integer, AtomicInteger> emitted = new ConcurrentHashMap<>();

    private ProtocolHarness harness(final int window)
    {
        return ProtocolHarness.builder()
            .settings(ProtocolHarness.settings(MAX_FRAME, 64 * 1024, window))
            .ringLength(RING)
            .serverResponder(Responder.builder()
                .requestStream(request ->
                {
                    final int stream = Integer.parseInt(request.dataUtf8());
                    final AtomicInteger count = emitted.computeIfAbsent(stream, k -> new AtomicInteger());
                    return Flux.range(0, MESSAGES).map(i -> message(stream, i)).doOnNext(m -> count.incrementAndGet());
                })
                .build())
            .build();
    }

    @Test
    void shouldParkFramesWithoutBlockingAndDeliverEveryMessageInOrderOnce()
    {
        final int window = 64;
        final ProtocolHarness h = harness(window);
        h.settle();
        h.server.link.blocked(true);

        final TestSubscriber<Message> a = TestSubscriber.builder().initialRequestUnbounded().build();
        final TestSubscriber<Message> b = TestSubscriber.builder().initialRequestUnbounded().build();
        h.client.connection.requestStream(Message.of("1")).subscribe(a);
        h.client.connection.requestStream(Message.of("2")).subscribe(b);
        h.steps(200);

        // Each producer emitted its whole window at once, far more than the ring holds: it did not block,
        // the frames that did not fit were parked.
        assertThat(emitted.get(1)).hasValue(window);
        assertThat(emitted.get(2)).hasValue(window);
        assertThat(h.server.link.refusedOffers()).isPositive();
        assertThat(h.server.counters.backPressureEvents.get()).isPositive();
        assertThat(a.getReceivedOnNext()).isEmpty();
        assertThat(b.getReceivedOnNext()).isEmpty();
        assertThat(h.server.sent(FrameType.PAYLOAD)).isEmpty();

        h.server.link.blocked(false);
        h.stepUntil(() -> a.isTerminated() && b.isTerminated());

        assertThat(a.isTerminatedComplete()).isTrue();
        assertThat(b.isTerminatedComplete()).isTrue();
        assertMessages(a.getReceivedOnNext(), 1);
        assertMessages(b.getReceivedOnNext(), 2);
        assertThat(emitted.get(1)).hasValue(MESSAGES);
        assertThat(emitted.get(2)).hasValue(MESSAGES);

        // Both streams shared the link: their frames interleave.
        final List<Integer> order = h.server.sent(frame -> frame.type() == FrameType.PAYLOAD &&
            frame.has(FrameFlags.NEXT)).stream().map(SentFrame::streamId).toList();
        int switches = 0;
        for (int i = 1; i < order.size(); i++)
        {
            switches += order.get(i).equals(order.get(i - 1)) ? 0 : 1;
        }
        assertThat(switches).isGreaterThan(2);
        assertThat(h.client.connection.isOpen()).isTrue();
        assertThat(h.client.errors).isEmpty();
        assertThat(h.server.errors).isEmpty();
    }

    @Test
    void shouldKeepStreamOrderWhenTheLinkBlocksAgainAndAgain()
    {
        final ProtocolHarness h = harness(32);
        h.settle();
        final TestSubscriber<Message> a = TestSubscriber.builder().initialRequestUnbounded().build();
        final TestSubscriber<Message> b = TestSubscriber.builder().initialRequest(7).build();
        h.client.connection.requestStream(Message.of("1")).subscribe(a);
        h.client.connection.requestStream(Message.of("2")).subscribe(b);

        for (int i = 0; i < 5000 && !(a.isTerminated() && b.isTerminated()); i++)
        {
            // Blocked two steps in five, in both directions.
            h.server.link.blocked(i % 5 < 2);
            h.client.link.blocked(i % 7 == 3);
            if (i % 11 == 0)
            {
                b.request(13);
            }
            h.step();
        }
        h.server.link.blocked(false);
        h.client.link.blocked(false);
        h.stepUntil(() -> a.isTerminated() && b.isTerminated());

        assertMessages(a.getReceivedOnNext(), 1);
        assertMessages(b.getReceivedOnNext(), 2);
        assertThat(h.server.link.refusedOffers()).isPositive();
        assertThat(h.client.link.refusedOffers()).isPositive();
    }

    private static void assertMessages(final List<Message> received, final int stream)
    {
        assertThat(received).hasSize(MESSAGES);
        for (int i = 0; i < MESSAGES; i++)
        {
            assertThat(received.get(i)).as("message %d of stream %d", i, stream).isEqualTo(message(stream, i));
        }
    }
}
