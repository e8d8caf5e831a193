package io.rivulet.samples.spring.server;

import io.rivulet.Responder;
import io.rivulet.route.Router;
import io.rivulet.samples.spring.QuoteRequest;
import io.rivulet.samples.spring.Quotes;
import io.rivulet.spring.boot.RivuletServer;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

/**
 * The quote service: a Spring Boot application whose only Rivulet code is its {@link Responder} bean, a
 * {@link Router} of the quote protocol's routes; the starter serves it on {@code rivulet.server.port} (quote-server.properties). Prints {@code quote-server: listening on
 * host:port} once ready, which ./rivulet-spring-sample and the tests wait for.
 *
 * <p>Thread-safe: Spring calls its methods once each.
 */
@SpringBootApplication
public class QuoteServer
{
    /** The line printed once the server listens; the port follows it. */
    public static final String READY = "quote-server: listening on ";

    /**
     * @param args Spring Boot arguments, e.g. {@code --rivulet.server.port=0}.
     */
    public static void main(final String[] args)
    {
        final SpringApplication application = new SpringApplication(QuoteServer.class);
        application.setDefaultProperties(java.util.Map.of("spring.config.name", "quote-server"));
        application.run(args);
    }

    /** @return what the server answers: the quote protocol's two routes, the records as JSON. */
    @Bean
    public Responder quoteRoutes()
    {
        return Router.builder()
            .requestResponse(Quotes.QUOTE, QuoteRequest.class, Quotes::quote)
            .requestStream(Quotes.TICKS, QuoteRequest.class, Quotes::ticks)
            .build();
    }

    /** Says where the server listens: with port 0, only the running server knows. */
    @EventListener(ApplicationReadyEvent.class)
    public void ready(final ApplicationReadyEvent event)
    {
        System.out.println(READY + event.getApplicationContext().getBean(RivuletServer.class).localAddress());
        System.out.flush();
    }
}
