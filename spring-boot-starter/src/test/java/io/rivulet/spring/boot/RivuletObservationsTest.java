package io.rivulet.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.route.Router;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With an ObservationRegistry bean, each request through the auto-configured connection and server is observed on
 * both sides (timers through Micrometer's meter handler), the routes going through {@link RivuletConnection#route};
 * {@code rivulet.observations.enabled=false} or no registry leaves the node without the interceptor.
 */
class RivuletObservationsTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RivuletAutoConfiguration.class,
            RivuletObservationsAutoConfiguration.class))
        .withPropertyValues("rivulet.counters-file=false", "rivulet.server.port=0");

    @Test
    void requestsThroughTheConnectionAndTheServerAreTimedOnBothSides()
    {
        runner.withUserConfiguration(Observed.class).run(context ->
        {
            assertThat(context).hasNotFailed();
            final MeterRegistry meters = context.getBean(MeterRegistry.class);
            final RivuletConnection connection = context.getBean(RivuletConnections.class)
                .connect(context.getBean(RivuletServer.class).localAddress());

            assertThat(connection.route("greet").requestResponse("Ada", String.class).block(TIMEOUT))
                .isEqualTo("hello Ada");
            assertThat(connection.route("count").requestStream("3", String.class).collectList().block(TIMEOUT))
                .containsExactly("1", "2", "3");

            assertThat(timer(meters, "rivulet.client.requests", "greet").count()).isEqualTo(1);
            assertThat(timer(meters, "rivulet.client.requests", "count").count()).isEqualTo(1);
            // The server's observation ends once its reply is sent, which may be just after the client has it.
            await().atMost(TIMEOUT).untilAsserted(() ->
            {
                assertThat(meters.find("rivulet.server.requests").tag("rivulet.route", "greet").timer())
                    .isNotNull().extracting(Timer::count).isEqualTo(1L);
                assertThat(meters.find("rivulet.server.requests").tag("rivulet.route", "count").timer())
                    .isNotNull().extracting(Timer::count).isEqualTo(1L);
            });
            assertThat(timer(meters, "rivulet.server.requests", "greet").getId().getTag("outcome"))
                .isEqualTo(timer(meters, "rivulet.client.requests", "greet").getId().getTag("outcome"));
            connection.close();
        });
    }

    @Test
    void noInterceptorWhenTurnedOffWithoutARegistryOrWithoutRivuletMicrometer()
    {
        runner.withUserConfiguration(Observed.class).withPropertyValues("rivulet.observations.enabled=false")
            .run(context ->
            {
                assertThat(context).hasNotFailed().doesNotHaveBean(RivuletObservationsAutoConfiguration.class);
                assertThat(context.getBean(Rivulet.class).context().interceptors()).isEmpty();
            });
        runner.run(context ->
        {
            assertThat(context).hasNotFailed().doesNotHaveBean(RivuletObservationsAutoConfiguration.class);
            assertThat(context.getBean(Rivulet.class).context().interceptors()).isEmpty();
        });
        runner.withUserConfiguration(Observed.class)
            .withClassLoader(new FilteredClassLoader(io.rivulet.micrometer.observation.RivuletObservations.class))
            .run(context -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(RivuletObservationsAutoConfiguration.class));
    }

    @Test
    void theInterceptorIsOnTheNodeWithARegistry()
    {
        runner.withUserConfiguration(Observed.class).run(context ->
            assertThat(context.getBean(Rivulet.class).context().interceptors()).hasSize(1)
                .first().hasToString("RivuletObservations"));
    }

    private static Timer timer(final MeterRegistry meters, final String name, final String route)
    {
        final Timer timer = meters.find(name).tag("rivulet.route", route).timer();
        assertThat(timer).as(name + " for route " + route).isNotNull();
        return timer;
    }

    /** An application with an observation registry whose observations become timers, and a router. */
    @Configuration(proxyBeanMethods = false)
    static class Observed
    {
        @Bean
        MeterRegistry meterRegistry()
        {
            return new SimpleMeterRegistry();
        }

        @Bean
        ObservationRegistry observationRegistry(final MeterRegistry meters)
        {
            final ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
            return registry;
        }

        @Bean
        Responder routes()
        {
            return Router.builder()
                .requestResponse("greet", String.class, name -> Mono.just("hello " + name))
                .requestStream("count", String.class, n -> Flux.range(1, Integer.parseInt(n)).map(String::valueOf))
                .build();
        }
    }
}
