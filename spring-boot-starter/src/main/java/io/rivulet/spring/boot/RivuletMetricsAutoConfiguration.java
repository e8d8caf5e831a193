package io.rivulet.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.rivulet.Rivulet;
import io.rivulet.micrometer.RivuletMetrics;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Binds the node's counters to the application's {@link MeterRegistry} ({@link RivuletMetrics}) when Micrometer and
 * rivulet-micrometer are on the class path and the application has a registry: its own bean, or Spring Boot's
 * (spring-boot-micrometer-metrics, after whose auto-configuration this one runs).
 *
 * <p>Spring calls the bean method once, on the thread that refreshes the context.
 */
@AutoConfiguration(after = RivuletAutoConfiguration.class, afterName = {
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration"})
@ConditionalOnClass({MeterRegistry.class, RivuletMetrics.class})
@ConditionalOnBean({MeterRegistry.class, Rivulet.class})
public class RivuletMetricsAutoConfiguration
{
    /**
     * @param node       the node whose counters are exposed.
     * @param registries the application's registries: the primary one (Boot's composite) if there is one, else each.
     * @return the binding, which is not itself a {@code MeterBinder} so that Boot's metrics do not bind it twice.
     */
    @Bean
    @ConditionalOnMissingBean
    public RivuletMeterBinding rivuletMeterBinding(final Rivulet node, final ObjectProvider<MeterRegistry> registries)
    {
        final RivuletMetrics metrics = RivuletMetrics.of(node);
        final MeterRegistry unique = registries.getIfUnique();
        if (unique != null)
        {
            metrics.bindTo(unique);
        }
        else
        {
            registries.orderedStream().forEach(metrics::bindTo);
        }
        return new RivuletMeterBinding(metrics);
    }
}
