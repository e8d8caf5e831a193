package io.rivulet.spring.boot;

import io.rivulet.Acceptor;
import io.rivulet.ConfigurationException;
import io.rivulet.Message;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the auto-configured server serves, on a real port: the application's Acceptor (choosing, or refusing, each
 * connection from its SETUP) before its Responder; more than one of a kind fails the start naming them.
 */
class RivuletAcceptorTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RivuletAutoConfiguration.class))
        .withPropertyValues("rivulet.counters-file=false", "rivulet.server.port=0");

    @Test
    void theAcceptorBeanChoosesEachConnectionsResponderAndRefusesWithAReason()
    {
        final Acceptor goldOnly = (setup, connection) ->
        {
            if (!"gold".equals(setup.dataUtf8()))
            {
                throw new RejectedException("only gold clients, not '" + setup.dataUtf8() + "'");
            }
            return echo("gold:");
        };
        runner.withBean(Acceptor.class, () -> goldOnly)
            .withBean(Responder.class, () -> echo("responder:")) // beside an acceptor, not served by itself
            .run(context ->
            {
                assertThat(context).hasNotFailed();
                final Rivulet node = context.getBean(Rivulet.class);
                final String address = context.getBean(RivuletServer.class).localAddress();

                final var gold = node.connect(address, Responder.none(), Message.of("gold")).block(TIMEOUT);
                assertThat(gold.requestResponse(Message.of("hi")).map(Message::dataUtf8).block(TIMEOUT))
                    .isEqualTo("gold:hi");
                gold.close();

                assertThatThrownBy(() -> node.connect(address, Responder.none(), Message.of("bronze")).block(TIMEOUT))
                    .isInstanceOf(RejectedException.class).hasMessageContaining("only gold clients, not 'bronze'");
            });
    }

    @Test
    void withoutAnAcceptorTheResponderBeanServesEveryConnection()
    {
        runner.withBean(Responder.class, () -> echo("responder:")).run(context ->
        {
            final Rivulet node = context.getBean(Rivulet.class);
            final var connection = node.connect(context.getBean(RivuletServer.class).localAddress()).block(TIMEOUT);
            assertThat(connection.requestResponse(Message.of("hi")).map(Message::dataUtf8).block(TIMEOUT))
                .isEqualTo("responder:hi");
            connection.close();
        });
    }

    @Test
    void twoAcceptorsFailTheStartNamingThem()
    {
        runner.withBean("first", Acceptor.class, () -> Acceptor.of(Responder.none()))
            .withBean("second", Acceptor.class, () -> Acceptor.of(Responder.none()))
            .run(context ->
            {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause().isInstanceOf(ConfigurationException.class)
                    .hasMessage("rivulet.server: 2 Acceptor beans [first, second], but the server serves one: keep " +
                        "one, or mark the one to serve @Primary");
            });
    }

    @Test
    void twoRespondersWithoutAnAcceptorFailTheStartNamingThem()
    {
        runner.withBean("quotes", Responder.class, Responder::none)
            .withBean("orders", Responder.class, Responder::none)
            .run(context ->
            {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause().isInstanceOf(ConfigurationException.class)
                    .hasMessage("rivulet.server: 2 Responder beans [quotes, orders], but the server serves one: " +
                        "keep one, or mark the one to serve @Primary, or define an Acceptor that chooses");
            });
    }

    private static Responder echo(final String prefix)
    {
        return Responder.builder()
            .requestResponse(request -> Mono.just(Message.of(prefix + request.dataUtf8())))
            .build();
    }
}
