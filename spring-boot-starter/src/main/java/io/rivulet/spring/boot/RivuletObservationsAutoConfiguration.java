package io.rivulet.spring.boot;

import io.micrometer.observation.ObservationRegistry;
import io.rivulet.micrometer.observation.RivuletObservations;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Observes every request the auto-configured node sends and serves ({@link RivuletObservations}: timers
 * {@code rivulet.client.requests} and {@code rivulet.server.requests} with Micrometer's meter handler, spans with a
 * tracing bridge) when Micrometer's observation API and rivulet-micrometer are on the class path and the application
 * has an {@link ObservationRegistry} bean: its own, or Spring Boot's (spring-boot-micrometer-observation, after
 * whose auto-configuration this one runs). {@code rivulet.observations.enabled=false} turns it off.
 *
 * <p>It registers the interceptor through a {@link RivuletContextCustomizer}, so it applies to the node
 * {@link RivuletAutoConfiguration} launches and not to one the application defines itself. Spring calls the bean
 * method once, on the thread that refreshes the context.
 */
@AutoConfiguration(before = RivuletAutoConfiguration.class,
    afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass({ObservationRegistry.class, RivuletObservations.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnProperty(prefix = "rivulet.observations", name = "enabled", havingValue = "true", matchIfMissing = true)
public class RivuletObservationsAutoConfiguration
{
    /**
     * @param registry where the observations go.
     * @return adds {@code RivuletObservations.interceptor(registry)} to the node's Context.
     */
    @Bean
    public RivuletContextCustomizer rivuletObservationsCustomizer(final ObservationRegistry registry)
    {
        return context -> context.interceptor(RivuletObservations.interceptor(registry));
    }
}
