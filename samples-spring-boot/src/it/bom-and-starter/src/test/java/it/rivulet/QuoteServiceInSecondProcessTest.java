package it.rivulet;

import io.rivulet.samples.spring.Quote;
import io.rivulet.samples.spring.QuoteRequest;
import io.rivulet.samples.spring.Quotes;
import io.rivulet.spring.boot.RivuletConnection;
import io.rivulet.spring.boot.RivuletConnections;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's quote service runs in its own JVM (java -cp with this project's test class path and Rivulet's JVM
 * flags); this project's Spring Boot application, built from the BOM and the starter only, calls it.
 */
@SpringBootTest(properties = "rivulet.counters-file=false")
class QuoteServiceInSecondProcessTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String READY = "quote-server: listening on ";

    private static Process server;
    private static String address;

    @Autowired
    private RivuletConnections connections;

    @BeforeAll
    static void startTheQuoteService() throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(System.getProperty("rivulet.jvm.flags").trim().split("\\s+")));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
            "io.rivulet.samples.spring.server.QuoteServer", "--rivulet.server.port=0", "--rivulet.counters-file=false"));
        server = new ProcessBuilder(command).redirectErrorStream(true).start();
        final CompletableFuture<String> ready = new CompletableFuture<>();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)))
            {
                for (String line = lines.readLine(); line != null; line = lines.readLine())
                {
                    System.out.println("[quote-server] " + line);
                    if (line.startsWith(READY))
                    {
                        ready.complete(line.substring(READY.length()).trim());
                    }
                }
                ready.completeExceptionally(new IllegalStateException("the quote service exited before listening"));
            }
            catch (final Exception ex)
            {
                ready.completeExceptionally(ex);
            }
        }, "quote-server-output");
        reader.setDaemon(true);
        reader.start();
        address = ready.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    @AfterAll
    static void stopTheQuoteService() throws Exception
    {
        if (server != null)
        {
            server.destroy();
            assertThat(server.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("the quote service stopped").isTrue();
        }
    }

    @Test
    void aQuoteAndTicksFromTheServiceInTheOtherJvm()
    {
        assertThat(server.pid()).isNotEqualTo(ProcessHandle.current().pid());
        final RivuletConnection quotes = connections.connect(address);

        assertThat(quotes.route(Quotes.QUOTE).requestResponse(new QuoteRequest("ACME"), Quote.class).block(TIMEOUT))
            .isEqualTo(new Quote("ACME", Quotes.price("ACME", 0), 0));
        assertThat(quotes.route(Quotes.TICKS).requestStream(new QuoteRequest("GLOBEX"), Quote.class).take(3)
            .collectList().block(TIMEOUT))
            .containsExactly(Quotes.quote("GLOBEX", 0), Quotes.quote("GLOBEX", 1), Quotes.quote("GLOBEX", 2));
    }

    /** This project's own application: nothing but the starter's auto-configuration. */
    @SpringBootApplication
    static class Application
    {
    }
}
