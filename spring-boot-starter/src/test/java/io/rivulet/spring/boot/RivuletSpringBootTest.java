package io.rivulet.spring.boot;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A whole Spring Boot application in one JVM: the auto-configured server serves the application's Responder on a
 * free port, and a connection from {@link RivuletConnections} calls it, reconnecting after its connection is lost.
 */
@SpringBootTest(properties = {"rivulet.server.port=0", "rivulet.counters-file=false", "rivulet.client.first-backoff=10ms"})
class RivuletSpringBootTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

    @Autowired
    private RivuletServer server;

    @Autowired
    private RivuletConnections connections;

    @Test
    void requestResponseAndStreamBetweenTheServerAndAClientConnection()
    {
        final RivuletConnection connection = connections.connect("127.0.0.1:" + server.port());

        assertThat(connection.requestResponse(Message.of("ping")).map(Message::dataUtf8).block(TIMEOUT))
            .isEqualTo("pong:ping");
        final List<String> stream = connection.requestStream(Message.of("3")).map(Message::dataUtf8)
            .collectList().block(TIMEOUT);
        assertThat(stream).containsExactly("1", "2", "3");
        assertThat(connection.connections()).isEqualTo(1);

        // The connection is lost (closed under the application): the next request connects again by itself.
        final Connection first = connection.connection().block(TIMEOUT);
        first.close();
        first.onClose().onErrorResume(error -> Mono.empty()).block(TIMEOUT);
        assertThat(connection.requestResponse(Message.of("again")).map(Message::dataUtf8).block(TIMEOUT))
            .isEqualTo("pong:again");
        assertThat(connection.connections()).isEqualTo(2);

        connection.close();
        assertThat(connection.isClosed()).isTrue();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application
    {
        @Bean
        Responder responder()
        {
            return Responder.builder()
                .requestResponse(request -> Mono.just(Message.of("pong:" + request.dataUtf8())))
                .requestStream(request -> Flux.range(1, Integer.parseInt(request.dataUtf8()))
                    .map(i -> Message.of(Integer.toString(i))))
                .build();
        }
    }
}
