package io.rivulet.transport.tcp;

import io.rivulet.Acceptor;
import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Metadata;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.route.Router;
import io.rivulet.security.AuthenticationException;
import io.rivulet.security.Authenticator;
import io.rivulet.security.Credentials;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A server chooses each connection's responder from its SETUP: two clients with different SETUP metadata get
 * different responders, a third is refused with the acceptor's reason, and a handler calls its caller back over the
 * connection the acceptor was handed.
 */
class AcceptorTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);

    private final List<Throwable> serverErrors = new CopyOnWriteArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();

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
    void shouldChooseTheResponderFromSetupRefuseWithTheReasonAndCallTheClientBack()
    {
        final List<String> principals = new CopyOnWriteArrayList<>();
        final Rivulet server = launch(new Rivulet.Context().authenticator(new NamingAuthenticator())
            .errorHandler(serverErrors::add));
        final Acceptor acceptor = (setup, connection) ->
        {
            principals.add(setup.principal());
            final String tenant = setup.metadata().get("tenant");
            if ("gold".equals(tenant))
            {
                return Router.builder()
                    .requestResponse("hello", String.class, name -> Mono.just("gold hello " + name + " from " +
                        setup.dataUtf8()))
                    // The handler calls back its caller: the client's own responder answers.
                    .requestResponse("callback", String.class, question ->
                        connection.route("whoami").requestResponse(question, String.class)
                            .map(answer -> "the client says " + answer))
                    .build();
            }
            if ("silver".equals(tenant))
            {
                return Router.builder()
                    .requestResponse("hello", String.class, name -> Mono.just("silver hello " + name))
                    .build();
            }
            throw new RejectedException("tenant '" + tenant + "' is not served here");
        };
        final String address = server.bind("127.0.0.1:0", acceptor).block(TIMEOUT).localAddress();
        final Rivulet client = launch(new Rivulet.Context().authToken("s3cret"));
        final Responder clientResponder = Router.builder()
            .requestResponse("whoami", String.class, question -> Mono.just("client one, to '" + question + "'"))
            .build();

        final Connection gold = client.connect(address, clientResponder, setup("gold", "app-1")).block(TIMEOUT);
        final Connection silver = client.connect(address, Responder.none(), setup("silver", "app-2")).block(TIMEOUT);

        assertThat(gold.route("hello").requestResponse("ann", String.class).block(TIMEOUT))
            .isEqualTo("gold hello ann from app-1");
        assertThat(silver.route("hello").requestResponse("bob", String.class).block(TIMEOUT))
            .isEqualTo("silver hello bob");
        assertThat(gold.route("callback").requestResponse("who are you?", String.class).block(TIMEOUT))
            .isEqualTo("the client says client one, to 'who are you?'");
        assertThatThrownBy(() -> silver.route("callback").requestResponse("?", String.class).block(TIMEOUT))
            .isInstanceOf(RejectedException.class).hasMessageContaining("no route 'callback' (routes: hello)");

        assertThatThrownBy(() -> client.connect(address, Responder.none(), setup("bronze", "app-3")).block(TIMEOUT))
            .isInstanceOf(RejectedException.class).hasMessageContaining("tenant 'bronze' is not served here");
        Await.until(TIMEOUT, () -> server.counters().setupsRejected.get() == 1,
            () -> "setups rejected: " + server.counters().setupsRejected.get());
        assertThat(principals).containsExactly("user:s3cret", "user:s3cret", "user:s3cret");
        assertThat(gold.isOpen()).isTrue();
        assertThat(silver.isOpen()).isTrue();
        assertThat(serverErrors).singleElement().satisfies(error ->
            assertThat(error).isInstanceOf(RejectedException.class).hasMessageContaining("bronze"));
    }

    @Test
    @ScaledTimeout(60)
    void shouldRefuseWithAGenericReasonWhenTheAcceptorFails()
    {
        final Rivulet server = launch(new Rivulet.Context().errorHandler(serverErrors::add));
        final String address = server.bind("127.0.0.1:0", (setup, connection) ->
        {
            throw new IllegalStateException("acceptor bug");
        }).block(TIMEOUT).localAddress();
        final Rivulet client = launch(new Rivulet.Context());

        assertThatThrownBy(() -> client.connect(address).block(TIMEOUT)).isInstanceOf(RejectedException.class)
            .hasMessageContaining("the server's acceptor failed").hasMessageNotContaining("acceptor bug");
        Await.until(TIMEOUT, () -> !serverErrors.isEmpty(), () -> "the server's error handler got nothing");
        assertThat(serverErrors).singleElement().satisfies(error ->
            assertThat(error).isInstanceOf(IllegalStateException.class).hasMessage("acceptor bug"));
        assertThat(server.counters().setupsRejected.get()).isEqualTo(1);
    }

    @Test
    @ScaledTimeout(60)
    void shouldKeepRawTokenClientsWorkingBesideCompositeSetups()
    {
        final Rivulet server = launch(new Rivulet.Context().authenticator(Authenticator.tokens("s3cret"))
            .errorHandler(serverErrors::add));
        final String address = server.bind("127.0.0.1:0", (setup, connection) ->
            Router.builder().requestResponse("tenant", String.class, ignored ->
                Mono.just(String.valueOf(setup.metadata().get("tenant")))).build()).block(TIMEOUT).localAddress();
        final Rivulet rawClient = launch(new Rivulet.Context().authToken("s3cret"));
        final Rivulet wrongToken = launch(new Rivulet.Context().authToken("guess"));

        final Connection raw = rawClient.connect(address).block(TIMEOUT);
        final Connection composite = rawClient.connect(address, Responder.none(), setup("gold", "")).block(TIMEOUT);

        assertThat(raw.route("tenant").requestResponse("", String.class).block(TIMEOUT)).isEqualTo("null");
        assertThat(composite.route("tenant").requestResponse("", String.class).block(TIMEOUT)).isEqualTo("gold");
        assertThatThrownBy(() -> wrongToken.connect(address, Responder.none(), setup("gold", "")).block(TIMEOUT))
            .isInstanceOf(RejectedException.class).hasMessageContaining("token not accepted");
    }

    private static Message setup(final String tenant, final String data)
    {
        return Message.of(data).metadata(Metadata.empty().with("tenant", tenant).encode());
    }

    private Rivulet launch(final Rivulet.Context context)
    {
        final Rivulet node = Rivulet.launch(context.transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED));
        nodes.add(node);
        return node;
    }

    /** Accepts the token "s3cret" and names the peer after it. */
    private static final class NamingAuthenticator implements Authenticator
    {
        @Override
        public void authenticate(final Credentials credentials)
        {
            if (!"s3cret".equals(credentials.token()))
            {
                throw new AuthenticationException("token not accepted");
            }
        }

        @Override
        public String principal(final Credentials credentials)
        {
            return "user:" + credentials.token();
        }
    }
}
