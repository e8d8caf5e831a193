package io.rivulet.samples.spring.client;

import io.rivulet.spring.boot.RivuletConnection;
import io.rivulet.spring.boot.RivuletConnections;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The client service: a Spring Boot application that keeps one reconnecting connection to the quote service
 * ({@code quote.server}, quote-client.properties) and, on start, asks for quotes and follows a stream of ticks
 * ({@link QuoteReport}), then exits with 0 when every answer came.
 *
 * <p>Thread-safe: Spring calls its methods once each.
 */
@SpringBootApplication
public class QuoteClient
{
    /**
     * @param args Spring Boot arguments, e.g. {@code --quote.server=127.0.0.1:7071}.
     */
    public static void main(final String[] args)
    {
        final SpringApplication application = new SpringApplication(QuoteClient.class);
        application.setDefaultProperties(java.util.Map.of("spring.config.name", "quote-client"));
        System.exit(SpringApplication.exit(application.run(args)));
    }

    /** @return the connection to the quote service, connecting on first use and again after a loss. */
    @Bean
    public RivuletConnection quoteService(final RivuletConnections connections,
        @Value("${quote.server}") final String address)
    {
        return connections.connect(address);
    }
}
