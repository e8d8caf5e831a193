package io.rivulet.route;

import io.rivulet.MalformedMetadataException;
import io.rivulet.Message;
import io.rivulet.Metadata;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.serde.CodecException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The router's dispatch, called as the engine calls a responder (the live tests are in transport-tcp). */
class RouterTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final Responder responder = Router.builder()
        .requestResponse("upper", String.class, text -> Mono.just(text.toUpperCase()))
        .requestStream("letters", String.class, text -> Flux.fromArray(text.split("")))
        .requestChannel("lengths", String.class, texts -> texts.map(String::length).map(String::valueOf))
        .fireAndForget("log", String.class, logged::add)
        .build();

    @Test
    void shouldDispatchEachModelByRouteAndMarkRepliesWithTheContentType()
    {
        final Message reply = responder.requestResponse().apply(request("upper", "abc")).block(TIMEOUT);

        assertThat(reply.dataUtf8()).isEqualTo("ABC");
        assertThat(Metadata.of(reply).get(Metadata.CONTENT_TYPE)).isEqualTo("text/plain");
        assertThat(responder.requestStream().apply(request("letters", "xy")).map(Message::dataUtf8).collectList()
            .block(TIMEOUT)).containsExactly("x", "y");
        final Message first = request("lengths", "four");
        assertThat(Flux.from(responder.requestChannelWithFirst().apply(first, Flux.just(first, request("lengths", "hi"))))
            .map(Message::dataUtf8).collectList().block(TIMEOUT)).containsExactly("4", "2");
        responder.fireAndForget().apply(request("log", "line")).block(TIMEOUT);
        assertThat(logged).containsExactly("line");
    }

    @Test
    void shouldRejectUnknownRoutesAndRoutesOfAnotherModel()
    {
        assertThatThrownBy(() -> responder.requestResponse().apply(request("nope", "x")).block(TIMEOUT))
            .isInstanceOf(RejectedException.class)
            .hasMessageContaining("no route 'nope' (routes: lengths, letters, log, upper)");
        assertThatThrownBy(() -> responder.requestResponse().apply(request("letters", "x")).block(TIMEOUT))
            .isInstanceOf(RejectedException.class)
            .hasMessageContaining("route 'letters' serves request-stream, not request-response");
        assertThatThrownBy(() -> responder.requestResponse().apply(Message.of("x")).block(TIMEOUT))
            .isInstanceOf(RejectedException.class).hasMessageContaining("request names no route");
        assertThatThrownBy(() -> responder.fireAndForget().apply(request("nope", "x")))
            .isInstanceOf(RejectedException.class);
    }

    @Test
    void shouldThrowMalformedMetadataAtOnceSoThatTheEngineClosesTheConnection()
    {
        final Message hostile = Message.of("x").metadata("not composite");

        assertThatThrownBy(() -> responder.requestResponse().apply(hostile)).isInstanceOf(
            MalformedMetadataException.class);
        assertThatThrownBy(() -> responder.requestStream().apply(hostile)).isInstanceOf(
            MalformedMetadataException.class);
        assertThatThrownBy(() -> responder.requestChannelWithFirst().apply(hostile, Flux.just(hostile)))
            .isInstanceOf(MalformedMetadataException.class);
        assertThatThrownBy(() -> responder.fireAndForget().apply(hostile)).isInstanceOf(
            MalformedMetadataException.class);
    }

    @Test
    void shouldFailTheRequestWhoseDataTheCodecCannotReadNamingRouteTypeAndCodec()
    {
        final Message invalid = Message.of(new byte[]{(byte)0xFF})
            .metadata(Metadata.route("upper").with(Metadata.CONTENT_TYPE, "text/plain").encode());
        final Message unknownType = Message.of("x")
            .metadata(Metadata.route("upper").with(Metadata.CONTENT_TYPE, "application/x-nope").encode());

        assertThatThrownBy(() -> responder.requestResponse().apply(invalid).block(TIMEOUT))
            .isInstanceOf(CodecException.class).hasMessageContaining("route 'upper'")
            .hasMessageContaining("java.lang.String").hasMessageContaining("text/plain");
        assertThatThrownBy(() -> responder.requestResponse().apply(unknownType).block(TIMEOUT))
            .isInstanceOf(CodecException.class).hasMessageContaining("application/x-nope");
    }

    @Test
    void shouldRefuseTwoHandlersForOneRoute()
    {
        final Router.Builder builder = Router.builder().requestResponse("a", String.class, Mono::just);

        assertThatThrownBy(() -> builder.requestStream("a", String.class, Flux::just))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("route 'a' is already defined");
    }

    private static Message request(final String route, final String text)
    {
        return Message.of(text).metadata(Metadata.route(route).with(Metadata.CONTENT_TYPE, "text/plain").encode());
    }
}
