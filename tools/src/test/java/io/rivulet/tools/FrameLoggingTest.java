package io.rivulet.tools;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.Transports;
import io.rivulet.tck.Await;
import io.rivulet.topic.Publication;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The frame logger ({@code io.rivulet.FrameLogger}) through this module's SLF4J binding, slf4j-jdk14: at DEBUG (JUL
 * FINE) a request-response between two nodes logs its frames in and out on both sides; at INFO nothing reaches the
 * handler, which listens at every level.
 */
class FrameLoggingTest
{
    private static final String LOGGER = "io.rivulet.FrameLogger";

    private final Logger julLogger = Logger.getLogger(LOGGER);
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler()
    {
        @Override
        public void publish(final LogRecord record)
        {
            lines.add(record.getMessage());
        }

        @Override
        public void flush()
        {
        }

        @Override
        public void close()
        {
        }
    };
    private Level previousLevel;

    @BeforeEach
    void listen()
    {
        previousLevel = julLogger.getLevel();
        capture.setLevel(Level.ALL);
        julLogger.addHandler(capture);
    }

    @AfterEach
    void restore()
    {
        julLogger.removeHandler(capture);
        julLogger.setLevel(previousLevel);
    }

    @Test
    void atDebugARequestResponseLogsItsFramesInAndOutOnBothSides()
    {
        julLogger.setLevel(Level.FINE);
        try (Rivulet server = Rivulet.launch(new Rivulet.Context().transport(Transports.tcp()).countersFile(false));
             Rivulet client = Rivulet.launch(new Rivulet.Context().transport(Transports.tcp()).countersFile(false)))
        {
            final Server bound = server.bind("127.0.0.1:0", Responder.builder()
                .requestResponse(request -> Mono.just(Message.of("Hello, " + request.dataUtf8())))
                .build()).block(Duration.ofSeconds(10));
            final Connection connection = client.connect(bound.localAddress()).block(Duration.ofSeconds(10));
            assertThat(connection.requestResponse(Message.of("Ada")).block(Duration.ofSeconds(10)).dataUtf8())
                .isEqualTo("Hello, Ada");

            final String toServer = " -> " + bound.localAddress() + " ";
            // Outbound lines come from the sender agent after the link took the frame: wait for the last one.
            Await.until("the server's reply was logged as sent", () -> lines.stream().anyMatch(line ->
                line.startsWith("out ") && !line.contains(toServer) && line.contains(" PAYLOAD stream 1 ")));
            assertThat(lines).as("the client sends SETUP and the request, and receives the reply")
                .anyMatch(line -> line.startsWith("out conn ") && line.contains(toServer) && line.contains(" SETUP "))
                .anyMatch(line -> line.startsWith("out conn ") && line.contains(toServer) &&
                    line.contains(" REQUEST_RESPONSE stream 1 flags 0x04 [NEXT] ") &&
                    line.endsWith("data 3: 41 64 61 |Ada|"))
                .anyMatch(line -> line.startsWith("in  conn ") && line.contains(toServer) &&
                    line.contains(" PAYLOAD stream 1 flags 0x06 [COMPLETE NEXT] ") && line.endsWith("|Hello, Ada|"));
            assertThat(lines).as("the server receives SETUP and the request, and sends the reply")
                .anyMatch(line -> line.startsWith("in  conn ") && line.contains(" " + bound.localAddress() + " -> ") &&
                    line.contains(" SETUP "))
                .anyMatch(line -> line.startsWith("in  conn ") && line.contains(" " + bound.localAddress() + " -> ") &&
                    line.contains(" REQUEST_RESPONSE stream 1 ") && line.endsWith("|Ada|"))
                .anyMatch(line -> line.startsWith("out conn ") && line.contains(" " + bound.localAddress() + " -> ") &&
                    line.contains(" PAYLOAD stream 1 ") && line.endsWith("|Hello, Ada|"));
        }
    }

    @Test
    void atDebugTopicDataOfferedStraightFromThePublicationLogIsLoggedToo()
    {
        julLogger.setLevel(Level.FINE);
        try (Rivulet server = Rivulet.launch(new Rivulet.Context().transport(Transports.tcp()).countersFile(false));
             Rivulet client = Rivulet.launch(new Rivulet.Context().transport(Transports.tcp()).countersFile(false)))
        {
            final Server bound = server.bind("127.0.0.1:0", Responder.none()).block(Duration.ofSeconds(10));
            final Publication publication = server.publication("logged.ticks");
            final Connection connection = client.connect(bound.localAddress()).block(Duration.ofSeconds(10));
            final List<String> received = new CopyOnWriteArrayList<>();
            connection.subscribe("logged.*").subscribe(message -> received.add(message.dataUtf8()), error -> { });
            Await.until("the subscriber attached", () -> publication.subscriberCount() == 1);
            final UnsafeBuffer tick = new UnsafeBuffer("tick".getBytes(StandardCharsets.US_ASCII));
            Await.until("the tick was accepted", () -> publication.offer(tick, 0, tick.capacity()) > 0);
            Await.until("the tick arrived", () -> received.contains("tick"));

            final String fromServer = " " + bound.localAddress() + " -> ";
            assertThat(lines)
                .anyMatch(line -> line.startsWith("out conn ") && line.contains(fromServer) &&
                    line.contains(" TOPIC_DATA ") && line.endsWith("|tick|"))
                .anyMatch(line -> line.startsWith("in  conn ") && !line.contains(fromServer) &&
                    line.contains(" TOPIC_DATA ") && line.endsWith("|tick|"));
        }
    }

    @Test
    void atInfoNothingIsLogged()
    {
        julLogger.setLevel(Level.INFO);
        try (Rivulet server = Rivulet.launch(new Rivulet.Context().transport(Transports.tcp()).countersFile(false));
             Rivulet client = Rivulet.launch(new Rivulet.Context().transport(Transports.tcp()).countersFile(false)))
        {
            final Server bound = server.bind("127.0.0.1:0", Responder.builder()
                .requestResponse(request -> Mono.just(Message.of("Hello, " + request.dataUtf8())))
                .build()).block(Duration.ofSeconds(10));
            final Connection connection = client.connect(bound.localAddress()).block(Duration.ofSeconds(10));
            assertThat(connection.requestResponse(Message.of("Ada")).block(Duration.ofSeconds(10)).dataUtf8())
                .isEqualTo("Hello, Ada");
            Await.until("the server sent its reply", () -> server.counters().framesSent.get() >= 2);
        }
        assertThat(lines).isEmpty();
    }
}
