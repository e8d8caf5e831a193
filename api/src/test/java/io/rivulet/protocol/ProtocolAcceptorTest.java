package io.rivulet.protocol;

import io.rivulet.ConnectionSetup;
import io.rivulet.Message;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.wire.ErrorCode;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The acceptor runs while SETUP is read: a request a client pipelines right behind its SETUP is served by the
 * responder the acceptor chose, never by the one the connection was created with; a refusal sends nothing else.
 */
class ProtocolAcceptorTest
{
    private static final Responder CREATED_WITH = Responder.builder()
        .requestResponse(request -> Mono.just(Message.of("the responder given at creation")))
        .build();

    @Test
    void shouldServeARequestPipelinedBehindSetupWithTheChosenResponder()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(CREATED_WITH).sendSetup(false).build();
        final List<ConnectionSetup> setups = new ArrayList<>();
        h.server.connection.engine().acceptor((setup, connection) ->
        {
            setups.add(setup);
            return Responder.builder()
                .requestResponse(request -> Mono.just(Message.of("chosen for " + setup.dataUtf8())))
                .build();
        });

        h.server.link.inject(setupFrame("tenant-a"));
        h.server.link.inject(ProtocolHarness.payloadFrame(FrameType.REQUEST_RESPONSE, 1, 0, FrameFlags.NEXT,
            new byte[0], "ping".getBytes()));
        h.stepUntil(() -> !h.server.sent(FrameType.PAYLOAD).isEmpty());

        assertThat(setups).singleElement().satisfies(setup -> assertThat(setup.dataUtf8()).isEqualTo("tenant-a"));
        assertThat(h.server.sent(FrameType.PAYLOAD)).singleElement().satisfies(frame ->
            assertThat(new String(frame.data())).isEqualTo("chosen for tenant-a"));
    }

    @Test
    void shouldRefuseWithTheReasonAndServeNothing()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(CREATED_WITH).sendSetup(false).build();
        h.server.connection.engine().acceptor((setup, connection) ->
        {
            throw new RejectedException("not you, " + setup.dataUtf8());
        });

        h.server.link.inject(setupFrame("mallory"));
        h.server.link.inject(ProtocolHarness.payloadFrame(FrameType.REQUEST_RESPONSE, 1, 0, FrameFlags.NEXT,
            new byte[0], "ping".getBytes()));
        h.stepUntil(() -> h.server.connection.engine().isFinished());

        assertThat(h.server.sent()).singleElement().satisfies(frame ->
        {
            assertThat(frame.type()).isEqualTo(FrameType.ERROR);
            assertThat(frame.errorCode()).isEqualTo(ErrorCode.REJECTED_SETUP.value());
            assertThat(frame.text()).isEqualTo("not you, mallory");
        });
        assertThat(h.server.counters.setupsRejected.get()).isEqualTo(1);
    }

    private static byte[] setupFrame(final String data)
    {
        final org.agrona.ExpandableArrayBuffer buffer = new org.agrona.ExpandableArrayBuffer(256);
        final int length = new io.rivulet.codec.FrameWriter().writeSetup(buffer, 0, ProtocolConnection.PROTOCOL_VERSION,
            100, 350, ProtocolHarness.settings().maxFrameLength(), new byte[0], data.getBytes());
        final byte[] frame = new byte[length];
        buffer.getBytes(0, frame);
        return frame;
    }
}
