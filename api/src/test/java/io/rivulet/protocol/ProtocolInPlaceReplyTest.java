package io.rivulet.protocol;

import io.rivulet.ApplicationErrorException;
import io.rivulet.Message;
import io.rivulet.MessageTooLargeException;
import io.rivulet.MessageView;
import io.rivulet.RejectedException;
import io.rivulet.ReplyHandler;
import io.rivulet.RequestHandler;
import io.rivulet.Responder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import reactor.test.subscriber.TestSubscriber;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The zero-copy responder ({@code Responder.Builder.requestResponseHandler}): requests answered in place before the
 * handler returns, never in the stream table; replies longer than a frame, requests in fragments, a full ring, and
 * every way a handler can fail to answer. Stepped through the deterministic harness, no sleeps.
 */
class ProtocolInPlaceReplyTest
{
    /** Echoes the request's data with a "!" after it. */
    private static final RequestHandler ECHO = (request, reply) ->
    {
        final UnsafeBuffer out = new UnsafeBuffer(new byte[request.dataLength() + 1]);
        out.putBytes(0, request.data(), 0, request.dataLength());
        out.putByte(request.dataLength(), (byte)'!');
        reply.send(out, 0, out.capacity());
    };

    private static ProtocolHarness harness(final RequestHandler handler)
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder().requestResponseHandler(handler).build()).build();
        h.settle();
        return h;
    }

    private static TestSubscriber<Message> request(final ProtocolHarness h, final String data)
    {
        final TestSubscriber<Message> reply = TestSubscriber.create();
        h.client.connection.requestResponse(Message.of(data)).subscribe(reply);
        return reply;
    }

    private static String data(final TestSubscriber<Message> reply)
    {
        assertThat(reply.expectTerminalSignal().isOnComplete()).as("completed: %s", reply.getTerminalSignal()).isTrue();
        assertThat(reply.getReceivedOnNext()).hasSize(1);
        return reply.getReceivedOnNext().get(0).dataUtf8();
    }

    private static Throwable error(final TestSubscriber<Message> reply)
    {
        return reply.expectTerminalError();
    }

    @Test
    void shouldAnswerInPlaceWithoutTheRequestEverTakingAPlaceInTheTable()
    {
        final ProtocolHarness h = harness(ECHO);
        final TestSubscriber<Message> reply = request(h, "ping");
        final List<String> zeroCopy = new ArrayList<>();
        final UnsafeBuffer pong = new UnsafeBuffer("pong".getBytes(StandardCharsets.UTF_8));

        h.client.connection.offerRequest(pong, 0, pong.capacity(), new ReplyHandler()
        {
            @Override
            public void onReply(final long requestId, final MessageView view)
            {
                zeroCopy.add(view.data().getStringWithoutLengthUtf8(0, view.dataLength()));
            }

            @Override
            public void onError(final long requestId, final Throwable failure)
            {
                zeroCopy.add(failure.toString());
            }
        });
        h.sendFrames(h.client);
        h.work(h.server);
        assertThat(h.server.streamCount()).as("answered within the handler's call").isZero();
        h.settle();

        assertThat(data(reply)).isEqualTo("ping!");
        assertThat(zeroCopy).containsExactly("pong!");
        assertThat(h.server.errors).isEmpty();
    }

    @Test
    void shouldFragmentAReplyLongerThanAFrame()
    {
        final String large = "z".repeat(5000); // frames are 512 bytes here
        final ProtocolHarness h = harness((request, reply) ->
        {
            final UnsafeBuffer out = new UnsafeBuffer(large.getBytes(StandardCharsets.UTF_8));
            reply.send(out, 0, out.capacity());
        });

        final TestSubscriber<Message> reply = request(h, "big?");
        h.settle();

        assertThat(data(reply)).isEqualTo(large);
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldAnswerARequestThatCameInFragmentsFromItsReassembly()
    {
        final ProtocolHarness h = harness(ECHO);
        final String large = "q".repeat(4000);

        final TestSubscriber<Message> reply = request(h, large);
        h.settle();

        assertThat(data(reply)).isEqualTo(large + "!");
        assertThat(h.server.streamCount()).isZero();
        assertThat(h.server.connection.engine().memory().held()).as("fragments given back").isZero();
    }

    @Test
    void shouldCompleteEmptyAndFailWithTheHandlersMessage()
    {
        final ProtocolHarness h = harness((request, reply) ->
        {
            switch (request.data().getStringWithoutLengthUtf8(0, request.dataLength()))
            {
                case "empty" -> reply.sendEmpty();
                case "error" -> reply.sendError("pricing engine down");
                case "reject" -> throw new RejectedException("not for you");
                case "throw" -> throw new IllegalStateException("handler bug");
                default -> { } // no answer
            }
        });

        final TestSubscriber<Message> empty = request(h, "empty");
        final TestSubscriber<Message> error = request(h, "error");
        final TestSubscriber<Message> rejected = request(h, "reject");
        final TestSubscriber<Message> thrown = request(h, "throw");
        final TestSubscriber<Message> unanswered = request(h, "silence");
        h.settle();

        assertThat(empty.expectTerminalSignal().isOnComplete()).isTrue();
        assertThat(empty.getReceivedOnNext()).isEmpty();
        assertThat(error(error)).isInstanceOf(ApplicationErrorException.class).hasMessage("pricing engine down");
        assertThat(error(rejected)).isInstanceOf(RejectedException.class).hasMessage("not for you");
        assertThat(error(thrown)).isInstanceOf(ApplicationErrorException.class).hasMessage("handler bug");
        assertThat(error(unanswered)).isInstanceOf(ApplicationErrorException.class)
            .hasMessageContaining("no reply from the request handler");
        assertThat(h.server.errors).extracting(Throwable::getMessage)
            .containsExactly("handler bug", error(unanswered).getMessage());
        assertThat(h.server.streamCount()).isZero();
        assertThat(h.server.connection.isOpen()).isTrue();
    }

    @Test
    void shouldRefuseASecondAnswerAndAReplyUsedAfterItsCall()
    {
        final AtomicReference<RequestHandler.Reply> kept = new AtomicReference<>();
        final ProtocolHarness h = harness((request, reply) ->
        {
            kept.set(reply);
            reply.sendEmpty();
            reply.sendError("twice"); // throws: answered already
        });

        final TestSubscriber<Message> reply = request(h, "once");
        h.settle();

        assertThat(reply.expectTerminalSignal().isOnComplete()).as("the first answer stands").isTrue();
        assertThat(h.server.errors).singleElement().satisfies(error -> assertThat(error)
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("answered already"));
        final UnsafeBuffer late = new UnsafeBuffer(new byte[1]);
        assertThatThrownBy(() -> kept.get().send(late, 0, 1))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("only during its handler's call");
    }

    @Test
    void shouldRefuseAReplyLongerThanTheMessageLimitBeforeAnsweringWithIt()
    {
        final UnsafeBuffer tooLong = new UnsafeBuffer(new byte[64 * 1024 + 1]); // the harness's limit is 64 KiB
        final ProtocolHarness h = harness((request, reply) ->
        {
            if (request.dataLength() == 1)
            {
                try
                {
                    reply.send(tooLong, 0, tooLong.capacity());
                }
                catch (final MessageTooLargeException ex)
                {
                    reply.sendEmpty(); // the request is still the handler's to answer
                }
                return;
            }
            reply.send(tooLong, 0, tooLong.capacity());
        });

        final TestSubscriber<Message> caught = request(h, "c");
        final TestSubscriber<Message> thrown = request(h, "thrown");
        h.settle();

        assertThat(caught.expectTerminalSignal().isOnComplete()).isTrue();
        assertThat(error(thrown)).isInstanceOf(ApplicationErrorException.class)
            .hasMessage("reply of 65537 bytes exceeds the maximum of 65536");
        assertThat(h.server.connection.isOpen()).as("nothing too long reached the peer").isTrue();
    }

    @Test
    void shouldKeepEveryReplyWhenTheRingIsFull()
    {
        final ProtocolHarness h = ProtocolHarness.builder().ringLength(4096)
            .serverResponder(Responder.builder().requestResponseHandler(ECHO).build()).build();
        h.settle();
        final List<TestSubscriber<Message>> replies = new ArrayList<>();
        final String filler = "r".repeat(200);

        // The server answers while its sender does not run: its ring fills, and the rest of the replies wait.
        for (int i = 0; i < 60; i++)
        {
            replies.add(request(h, filler + i));
            h.sendFrames(h.client);
            h.work(h.server);
        }
        assertThat(h.server.counters.backPressureEvents.get()).as("the server's ring was full").isPositive();
        h.settle();

        for (int i = 0; i < replies.size(); i++)
        {
            assertThat(data(replies.get(i))).isEqualTo(filler + i + "!");
        }
        assertThat(h.server.streamCount()).isZero();
    }
}
