package io.rivulet.transport.tcp;

import io.rivulet.ApplicationErrorException;
import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Metadata;
import io.rivulet.ProtocolViolationException;
import io.rivulet.RejectedException;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.route.Router;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Routed, JSON-coded requests between two nodes over TCP (rivulet-jackson on the class path): one line at each end
 * for each interaction model; what an unknown route, bad JSON and malformed metadata cost (the request, the request,
 * the connection).
 */
class RoutingTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);

    record PriceRequest(String symbol)
    {
    }

    record Quote(String symbol, double bid, double ask)
    {
    }

    private final List<Throwable> serverErrors = new CopyOnWriteArrayList<>();
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();
    private Rivulet client;
    private String address;

    @BeforeEach
    void startNodes()
    {
        final Rivulet server = launch(new Rivulet.Context().errorHandler(serverErrors::add));
        address = server.bind("127.0.0.1:0", Router.builder()
            .requestResponse("price", PriceRequest.class, request -> Mono.just(new Quote(request.symbol(), 1.1, 1.2)))
            .requestStream("ticks", PriceRequest.class, request -> Flux.range(1, 3)
                .map(i -> new Quote(request.symbol(), i, i + 0.5)))
            .requestChannel("spread", Quote.class, quotes -> quotes.map(quote -> quote.ask() - quote.bid()))
            .fireAndForget("log", PriceRequest.class, request -> logged.add(request.symbol()))
            .build()).block(TIMEOUT).localAddress();
        client = launch(new Rivulet.Context());
    }

    @AfterEach
    void closeNodes()
    {
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldServeEveryInteractionModelByRouteInJson()
    {
        final Connection connection = client.connect(address).block(TIMEOUT);

        final Quote quote = connection.route("price").requestResponse(new PriceRequest("EURUSD"), Quote.class)
            .block(TIMEOUT);

        assertThat(quote).isEqualTo(new Quote("EURUSD", 1.1, 1.2));
        assertThat(connection.route("ticks").requestStream(new PriceRequest("GBPUSD"), Quote.class).collectList()
            .block(TIMEOUT)).containsExactly(new Quote("GBPUSD", 1, 1.5), new Quote("GBPUSD", 2, 2.5),
            new Quote("GBPUSD", 3, 3.5));
        assertThat(connection.route("spread").requestChannel(Flux.just(new Quote("A", 1, 1.25), new Quote("B", 2, 3)),
            Double.class).collectList().block(TIMEOUT)).containsExactly(0.25, 1.0);
        connection.route("log").fireAndForget(new PriceRequest("USDJPY")).block(TIMEOUT);
        Await.until(TIMEOUT, () -> logged.contains("USDJPY"), () -> "logged " + logged);
        assertThat(serverErrors).isEmpty();
    }

    @Test
    @ScaledTimeout(60)
    void shouldMarkRepliesWithTheirContentType()
    {
        final Connection connection = client.connect(address).block(TIMEOUT);

        final Message reply = connection.requestResponse(Message.of("{\"symbol\":\"X\"}")
            .metadata(Metadata.route("price").with(Metadata.CONTENT_TYPE, "application/json").encode())).block(TIMEOUT);

        assertThat(Metadata.of(reply).get(Metadata.CONTENT_TYPE)).isEqualTo("application/json");
        assertThat(reply.dataUtf8()).contains("\"symbol\":\"X\"");
    }

    @Test
    @ScaledTimeout(60)
    void shouldRejectAnUnknownRouteAndARouteOfAnotherModelNamingTheRoutes()
    {
        final Connection connection = client.connect(address).block(TIMEOUT);

        assertThatThrownBy(() -> connection.route("nope").requestResponse(new PriceRequest("X"), Quote.class)
            .block(TIMEOUT)).isInstanceOf(RejectedException.class)
            .hasMessageContaining("no route 'nope' (routes: log, price, spread, ticks)");
        assertThatThrownBy(() -> connection.route("price").requestStream(new PriceRequest("X"), Quote.class)
            .blockLast(TIMEOUT)).isInstanceOf(RejectedException.class)
            .hasMessageContaining("route 'price' serves request-response, not request-stream");
        assertThatThrownBy(() -> connection.requestResponse(Message.of("no metadata")).block(TIMEOUT))
            .isInstanceOf(RejectedException.class).hasMessageContaining("request names no route");

        assertThat(connection.isOpen()).isTrue();
        assertThat(connection.route("price").requestResponse(new PriceRequest("Y"), Quote.class).block(TIMEOUT))
            .isEqualTo(new Quote("Y", 1.1, 1.2));
    }

    @Test
    @ScaledTimeout(60)
    void shouldFailOnlyTheRequestWhoseJsonCannotBeDecoded()
    {
        final Connection connection = client.connect(address).block(TIMEOUT);
        final byte[] json = Metadata.route("price").with(Metadata.CONTENT_TYPE, "application/json").encode();

        assertThatThrownBy(() -> connection.requestResponse(Message.of("{\"symbol\": [1, 2").metadata(json))
            .block(TIMEOUT)).isInstanceOf(ApplicationErrorException.class)
            .hasMessageContaining("route 'price'").hasMessageContaining(PriceRequest.class.getName())
            .hasMessageContaining("application/json");
        assertThatThrownBy(() -> connection.requestResponse(Message.of("[".repeat(10_000)).metadata(json))
            .block(TIMEOUT)).isInstanceOf(ApplicationErrorException.class).hasMessageContaining("route 'price'");

        assertThat(connection.isOpen()).isTrue();
        assertThat(connection.route("price").requestResponse(new PriceRequest("Z"), Quote.class).block(TIMEOUT))
            .isEqualTo(new Quote("Z", 1.1, 1.2));
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseTheConnectionThatSendsMalformedMetadataAndKeepServingTheOthers()
    {
        final Connection hostile = client.connect(address).block(TIMEOUT);
        final Connection other = client.connect(address).block(TIMEOUT);

        assertThatThrownBy(() -> hostile.requestResponse(Message.of("x").metadata("RM\u0001\u0000")).block(TIMEOUT))
            .isNotNull();

        hostile.onClose().onErrorResume(error -> Mono.empty()).block(TIMEOUT);
        assertThat(hostile.isOpen()).isFalse();
        Await.until(TIMEOUT, () -> !serverErrors.isEmpty(), () -> "no violation reported on the server");
        assertThat(serverErrors).anySatisfy(error -> assertThat(error)
            .isInstanceOf(ProtocolViolationException.class).hasMessageContaining("malformed composite metadata"));
        assertThat(other.route("price").requestResponse(new PriceRequest("OK"), Quote.class).block(TIMEOUT))
            .isEqualTo(new Quote("OK", 1.1, 1.2));
        assertThat(other.isOpen()).isTrue();
    }

    private Rivulet launch(final Rivulet.Context context)
    {
        final Rivulet node = Rivulet.launch(context.transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED));
        nodes.add(node);
        return node;
    }
}
