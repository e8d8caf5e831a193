package io.rivulet.protocol;

import io.rivulet.Message;
import io.rivulet.ProtocolViolationException;
import io.rivulet.Responder;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.spi.Violation;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.subscriber.TestSubscriber;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The memory budget: what a connection holds for its peer (unfinished messages, open requests, frames parked for
 * ring space) is bounded per connection and per node, and given back on every path that drops it.
 */
class ProtocolMemoryTest
{
    private static final int CHUNK = 400;

    @Test
    void shouldCloseAPeerWhoseUnfinishedMessagesExceedItsBudgetAndGiveEveryByteBack()
    {
        final MemoryBudget memory = new MemoryBudget(1 << 20, 256 * 1024);
        final ProtocolHarness h = ProtocolHarness.builder().serverMemory(memory)
            .serverResponder(Responder.builder().requestResponse(Mono::just).build()).build();
        h.settle();

        // Twenty requests, each a message of up to 40 KB (within the 64 KiB message limit) that never ends.
        final byte[] chunk = new byte[CHUNK];
        int streams = 0;
        for (int stream = 1; stream <= 39 && h.server.connection.isOpen(); stream += 2, streams++)
        {
            h.server.link.inject(ProtocolHarness.payloadFrame(FrameType.REQUEST_RESPONSE, stream, 0,
                FrameFlags.FOLLOWS, new byte[0], chunk));
            for (int i = 0; i < 100 && h.server.connection.isOpen(); i++)
            {
                h.server.link.inject(ProtocolHarness.payloadFrame(stream, FrameFlags.FOLLOWS, chunk));
                h.step();
            }
            assertThat(memory.used()).as("held after stream %d", stream).isLessThanOrEqualTo(256 * 1024);
        }
        h.stepUntil(() -> h.server.connection.isFinished());

        assertThat(streams).as("refused before the twentieth stream").isLessThan(20).isGreaterThan(2);
        assertThat(h.server.connectionErrors(ErrorCode.CONNECTION_ERROR)).singleElement()
            .satisfies(frame -> assertThat(frame.text()).contains("rivulet.maxConnectionMemory"));
        assertThat(h.server.errors).anySatisfy(error -> assertThat(error).isInstanceOf(ProtocolViolationException.class)
            .satisfies(e -> assertThat(((ProtocolViolationException)e).reason()).isEqualTo(Violation.LIMIT_EXCEEDED)));
        assertThat(h.server.counters.limitRejections.get()).isPositive();
        assertThat(memory.used()).as("every byte given back").isZero();
    }

    @Test
    void shouldGiveBackTheFragmentsOfACompletedMessageAndOfAStreamThePeerCancels()
    {
        final MemoryBudget memory = new MemoryBudget(1 << 20, 256 * 1024);
        final List<Message> received = new ArrayList<>();
        final ProtocolHarness h = ProtocolHarness.builder().serverMemory(memory)
            .serverResponder(Responder.builder().fireAndForget(message ->
            {
                received.add(message);
                return Mono.empty();
            }).requestResponse(request -> Mono.never()).build()).build();
        h.settle();
        final byte[] chunk = new byte[CHUNK];
        Arrays.fill(chunk, (byte)7);

        // A fragmented fire-and-forget: held while it arrives, given back once delivered.
        h.server.link.inject(ProtocolHarness.payloadFrame(FrameType.REQUEST_FNF, 1, 0, FrameFlags.FOLLOWS, new byte[0],
            chunk));
        h.server.link.inject(ProtocolHarness.payloadFrame(1, FrameFlags.FOLLOWS, chunk));
        h.settle();
        assertThat(memory.used()).as("two fragments held").isGreaterThanOrEqualTo(2 * CHUNK);
        h.server.link.inject(ProtocolHarness.payloadFrame(1, FrameFlags.NEXT, chunk));
        h.settle();
        assertThat(received).singleElement().satisfies(message -> assertThat(message.dataLength()).isEqualTo(3 * CHUNK));
        assertThat(memory.used()).as("delivered: given back").isZero();

        // A request whose responder never answers holds its request until the peer cancels it.
        h.server.link.inject(ProtocolHarness.payloadFrame(FrameType.REQUEST_RESPONSE, 3, 0, FrameFlags.NEXT,
            new byte[0], chunk));
        h.settle();
        assertThat(memory.used()).isEqualTo(CHUNK);
        h.server.link.inject(cancelFrame(3));
        h.settle();
        assertThat(memory.used()).as("cancelled: given back").isZero();
        assertThat(h.server.connection.isOpen()).isTrue();
    }

    @Test
    void shouldCloseTheConnectionHoldingTheMostWhenTheNodeRunsOut()
    {
        final MemoryBudget node = new MemoryBudget(1000, 800);
        final List<String> closedA = new ArrayList<>();
        final List<String> closedB = new ArrayList<>();
        final ConnectionMemory[] a = new ConnectionMemory[1];
        a[0] = node.open(() -> 0, reason ->
        {
            closedA.add(reason);
            a[0].release(700); // its streams end with the close and give their bytes back
            a[0].close();
        });
        final ConnectionMemory b = node.open(() -> 0, closedB::add);

        assertThat(a[0].reserve(700)).isNull();
        assertThat(b.reserve(100)).isNull();
        assertThat(b.reserve(400)).as("the node is short: the largest holder goes, and the ask succeeds").isNull();

        assertThat(closedA).singleElement().satisfies(reason -> assertThat(reason).contains("rivulet.maxNodeMemory"));
        assertThat(closedB).isEmpty();
        assertThat(node.used()).isEqualTo(500);
        final ConnectionMemory c = node.open(() -> 0, reason -> { });
        assertThat(c.reserve(600)).as("the asker holds the least and nobody else can give way")
            .contains("rivulet.maxNodeMemory");
        assertThat(b.reserve(400)).as("over its own limit").contains("rivulet.maxConnectionMemory");
    }

    @Test
    void shouldCloseAConnectionWhoseParkedFramesExceedItsBudget()
    {
        final MemoryBudget node = new MemoryBudget(1 << 20, 1000);
        final long[] parked = {0};
        final List<String> closed = new ArrayList<>();
        final ConnectionMemory memory = node.open(() -> parked[0], closed::add);

        parked[0] = 900;
        assertThat(memory.check()).isFalse();
        parked[0] = 1001;
        assertThat(memory.check()).isTrue();
        assertThat(memory.check()).as("once").isFalse();
        assertThat(closed).singleElement().satisfies(reason -> assertThat(reason)
            .contains("rivulet.maxConnectionMemory").contains("does not read"));
    }

    private static byte[] cancelFrame(final int streamId)
    {
        final org.agrona.ExpandableArrayBuffer buffer = new org.agrona.ExpandableArrayBuffer(64);
        final int length = new io.rivulet.codec.FrameWriter().writeCancel(buffer, 0, streamId);
        final byte[] frame = new byte[length];
        buffer.getBytes(0, frame);
        return frame;
    }
}
