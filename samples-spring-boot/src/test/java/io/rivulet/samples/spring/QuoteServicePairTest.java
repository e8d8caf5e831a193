package io.rivulet.samples.spring;

import io.rivulet.samples.spring.client.QuoteClient;
import io.rivulet.samples.spring.client.QuoteReport;
import io.rivulet.samples.spring.server.QuoteServer;
import io.rivulet.spring.boot.RivuletServer;
import io.rivulet.tck.TestTime;
import io.rivulet.spring.boot.RivuletConnections;
import io.rivulet.ApplicationErrorException;
import io.rivulet.RejectedException;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The sample pair in one JVM: the quote service as the test's application (its quote-server.properties, a free
 * port), and the client service started beside it from its own quote-client.properties, pointed at that port. The
 * client's report must hold the deterministic quotes and five ticks, which crossed as JSON records on two routes.
 */
@SpringBootTest(classes = QuoteServer.class,
    properties = {"spring.config.name=quote-server", "rivulet.server.port=0", "rivulet.counters-file=false"})
class QuoteServicePairTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

    @Autowired
    private RivuletServer server;

    @Autowired
    private RivuletConnections connections;

    @Test
    void theClientServiceGetsQuotesAndTicksFromTheQuoteService()
    {
        final SpringApplication client = new SpringApplication(QuoteClient.class);
        client.setDefaultProperties(Map.of("spring.config.name", "quote-client"));
        try (ConfigurableApplicationContext context = client.run("--quote.server=" + server.localAddress(),
            "--rivulet.counters-file=false", "--quote.timeout=" + TIMEOUT.toMillis() + "ms"))
        {
            final List<String> lines = context.getBean(QuoteReport.class).lines();
            assertThat(lines).containsExactly(
                "quote-client: asking " + server.localAddress() + " for ACME, INITECH, GLOBEX",
                "quote-client: quote ACME " + Quotes.price("ACME", 0).toPlainString(),
                "quote-client: quote INITECH " + Quotes.price("INITECH", 0).toPlainString(),
                "quote-client: quote GLOBEX " + Quotes.price("GLOBEX", 0).toPlainString(),
                "quote-client: following 5 ticks of ACME",
                "quote-client: tick ACME " + Quotes.price("ACME", 0).toPlainString(),
                "quote-client: tick ACME " + Quotes.price("ACME", 1).toPlainString(),
                "quote-client: tick ACME " + Quotes.price("ACME", 2).toPlainString(),
                "quote-client: tick ACME " + Quotes.price("ACME", 3).toPlainString(),
                "quote-client: tick ACME " + Quotes.price("ACME", 4).toPlainString(),
                "quote-client: done");
        }
    }

    @Test
    void aRequestThatIsNotASymbolOrForAnUnknownRouteGetsAnErrorAndTheServiceGoesOn()
    {
        final var connection = connections.connect(server.localAddress());
        final var quote = connection.route(Quotes.QUOTE);
        assertThatThrownBy(() -> quote.requestResponse(new QuoteRequest("acme; drop"), Quote.class).block(TIMEOUT))
            .isInstanceOf(ApplicationErrorException.class).hasMessageContaining("not a symbol: 'acme; drop'");
        assertThatThrownBy(() -> connection.route("price").requestResponse(new QuoteRequest("ACME"), Quote.class)
            .block(TIMEOUT))
            .isInstanceOf(RejectedException.class).hasMessageContaining("no route 'price' (routes: quote, ticks)");
        assertThat(quote.requestResponse(new QuoteRequest("ACME"), Quote.class).block(TIMEOUT))
            .isEqualTo(new Quote("ACME", Quotes.price("ACME", 0), 0));
        connection.close();
    }
}
