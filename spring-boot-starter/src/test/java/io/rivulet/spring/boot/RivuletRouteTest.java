package io.rivulet.spring.boot;

import io.rivulet.Connection;
import io.rivulet.Metadata;
import io.rivulet.Responder;
import io.rivulet.route.Router;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RivuletConnection#route}: typed requests to the server's Router over the reconnecting connection (with an
 * entry of its own in their metadata), a new connection after the live one is lost, and the checks on entries.
 */
class RivuletRouteTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RivuletAutoConfiguration.class))
        .withPropertyValues("rivulet.counters-file=false", "rivulet.server.port=0", "rivulet.client.first-backoff=10ms")
        .withBean(Responder.class, () -> Router.builder()
            .requestResponse("greet", String.class, name -> Mono.just("hello " + name))
            .build());

    @Test
    void aRouteConnectsAgainAfterTheConnectionIsLostLikeTheOtherRequests()
    {
        runner.run(context ->
        {
            final RivuletConnection connection = context.getBean(RivuletConnections.class)
                .connect(context.getBean(RivuletServer.class).localAddress());
            final RivuletRoute greet = connection.route("greet").metadata("tenant", "gold");
            assertThat(greet.requestResponse("Ada", String.class).block(TIMEOUT)).isEqualTo("hello Ada");

            final Connection first = connection.connection().block(TIMEOUT);
            first.close();
            first.onClose().onErrorResume(error -> Mono.empty()).block(TIMEOUT);
            assertThat(greet.requestResponse("Grace", String.class).block(TIMEOUT)).isEqualTo("hello Grace");
            assertThat(connection.connections()).isEqualTo(2);
            connection.close();
        });
    }

    @Test
    void theEntriesTheRouteSetsItselfAreRefusedWhereTheyAreWritten()
    {
        runner.run(context ->
        {
            final RivuletRoute route = context.getBean(RivuletConnections.class).connect("127.0.0.1:1").route("greet");
            assertThatThrownBy(() -> route.metadata(Metadata.ROUTE, "other"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("'route' is set by the route itself");
            assertThatThrownBy(() -> route.metadata(Metadata.CONTENT_TYPE, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("'content-type' is set by the route itself");
        });
    }
}
