package io.rivulet.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rivulet.ConfigurationException;
import io.rivulet.EngineFailure;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.micrometer.RivuletMetrics;
import org.junit.jupiter.api.Test;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import java.net.ConnectException;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Conditions, property binding and failures of the auto-configuration, without a running application. */
class RivuletAutoConfigurationTest
{
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RivuletAutoConfiguration.class, RivuletMetricsAutoConfiguration.class))
        .withPropertyValues("rivulet.counters-file=false");

    @Test
    void bindsPropertiesOntoTheContextAndLeavesUnsetOnesAtTheirDefault()
    {
        final Rivulet.Context defaults = new Rivulet.Context();
        runner.withPropertyValues(
            "rivulet.node-name=bound",
            "rivulet.threading-mode=dedicated",
            "rivulet.idle-strategy=yield",
            "rivulet.reply-idle-strategy=busy",
            "rivulet.reply-wait-runs-engine=false",
            "rivulet.max-frame-length=32KB",
            "rivulet.outbound-ring-length=512KB",
            "rivulet.max-message-length=4MB",
            "rivulet.keepalive-interval=200ms",
            "rivulet.keepalive-timeout=3s",
            "rivulet.connect-timeout=1500ms",
            "rivulet.max-streams=100",
            "rivulet.max-pending-setups-per-address=32",
            "rivulet.max-parked-bytes=8MB",
            "rivulet.idle-timeout=0",
            "rivulet.auth-token=secret",
            "rivulet.engine-failure=exit")
            .run(context ->
            {
                assertThat(context).hasNotFailed().hasSingleBean(Rivulet.class).hasSingleBean(RivuletConnections.class);
                final Rivulet.Context bound = context.getBean(Rivulet.class).context();
                assertThat(bound.nodeName()).isEqualTo("bound");
                assertThat(bound.threadingMode()).isEqualTo(ThreadingMode.DEDICATED);
                assertThat(bound.idleStrategy()).isInstanceOf(org.agrona.concurrent.YieldingIdleStrategy.class);
                assertThat(bound.replyIdleStrategy().get())
                    .isInstanceOf(org.agrona.concurrent.BusySpinIdleStrategy.class);
                assertThat(bound.replyWaitRunsEngine()).isFalse();
                assertThat(defaults.replyWaitRunsEngine()).isTrue();
                assertThat(bound.maxFrameLength()).isEqualTo(32 * 1024);
                assertThat(bound.outboundRingLength()).isEqualTo(512 * 1024);
                assertThat(bound.maxMessageLength()).isEqualTo(4 * 1024 * 1024);
                assertThat(bound.keepaliveIntervalNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
                assertThat(bound.keepaliveTimeoutNs()).isEqualTo(TimeUnit.SECONDS.toNanos(3));
                assertThat(bound.connectTimeoutNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1500));
                assertThat(bound.maxStreams()).isEqualTo(100);
                assertThat(bound.maxPendingSetupsPerAddress()).isEqualTo(32);
                assertThat(bound.maxParkedBytes()).isEqualTo(8L * 1024 * 1024);
                assertThat(bound.idleTimeoutNs()).isZero();
                assertThat(bound.authToken()).isEqualTo("secret");
                assertThat(bound.engineFailure()).isEqualTo(EngineFailure.EXIT);
                assertThat(bound.countersFile()).isFalse();
                // Unset: the Context's own default.
                assertThat(bound.streamWindow()).isEqualTo(defaults.streamWindow());
                assertThat(bound.maxConnections()).isEqualTo(defaults.maxConnections());
                assertThat(bound.setupTimeoutNs()).isEqualTo(defaults.setupTimeoutNs());
            });
    }

    @Test
    void aBadEnumValueFailsNamingTheProperty()
    {
        runner.withPropertyValues("rivulet.threading-mode=sideways").run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(IllegalArgumentException.class);
            final Throwable bind = findCause(context.getStartupFailure(), BindException.class);
            assertThat(bind).isNotNull();
            assertThat(bind.getMessage()).contains("rivulet.threading-mode");
        });
    }

    @Test
    void anUnknownSslBundleFailsNamingIt()
    {
        runner.withPropertyValues("rivulet.ssl.bundle=missing").run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("rivulet.ssl.bundle=missing");
        });
    }

    @Test
    void customizersRunAfterThePropertiesInOrder()
    {
        runner.withPropertyValues("rivulet.node-name=from-properties", "rivulet.max-streams=10")
            .withUserConfiguration(Customizers.class)
            .run(context ->
            {
                final Rivulet.Context bound = context.getBean(Rivulet.class).context();
                assertThat(bound.nodeName()).isEqualTo("second");
                assertThat(bound.maxStreams()).isEqualTo(11);
            });
    }

    @Test
    void theApplicationsOwnNodeReplacesTheAutoConfiguredOne()
    {
        runner.withUserConfiguration(OwnNode.class).run(context ->
        {
            assertThat(context).hasSingleBean(Rivulet.class);
            assertThat(context.getBean(Rivulet.class).context().nodeName()).isEqualTo("own");
            assertThat(context).hasSingleBean(RivuletConnections.class);
        });
    }

    @Test
    void noServerWithoutAPort()
    {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RivuletServer.class));
    }

    @Test
    void theServerBindsWhenTheContextStartsAndClosesWithIt()
    {
        final RivuletServer[] server = new RivuletServer[1];
        final int[] port = new int[1];
        runner.withPropertyValues("rivulet.server.port=0").withBean(Responder.class, Responder::none).run(context ->
        {
            server[0] = context.getBean(RivuletServer.class);
            assertThat(server[0].isRunning()).isTrue();
            port[0] = server[0].port();
            assertThat(port[0]).isPositive();
            assertThat(server[0].localAddress()).isEqualTo("127.0.0.1:" + port[0]);
            try (Socket socket = new Socket("127.0.0.1", port[0]))
            {
                assertThat(socket.isConnected()).isTrue();
            }
        });
        assertThat(server[0].isRunning()).isFalse();
        // The listener closed with the context: the port refuses connections.
        assertThatThrownBy(() -> new Socket("127.0.0.1", port[0]).close()).isInstanceOf(ConnectException.class);
    }

    @Test
    void metricsAreBoundToTheApplicationsRegistry()
    {
        runner.withPropertyValues("rivulet.node-name=metered").withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .run(context ->
            {
                assertThat(context).hasSingleBean(RivuletMeterBinding.class);
                final MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.get("rivulet.connections.opened").tag("node", "metered").functionCounter().count())
                    .isZero();
            });
    }

    @Test
    void metricsAreBoundOnceToSpringBootsOwnRegistry()
    {
        // Spring Boot's metrics auto-configurations make the registry: the binding must come after them (its
        // @ConditionalOnBean), bind once to the composite (the primary), and not be bound again as a MeterBinder.
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RivuletAutoConfiguration.class, RivuletMetricsAutoConfiguration.class,
                MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class))
            .withPropertyValues("rivulet.counters-file=false", "rivulet.node-name=boot-metered")
            .run(context ->
            {
                assertThat(context).hasNotFailed().hasSingleBean(RivuletMeterBinding.class);
                final MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.find("rivulet.connections.opened").tag("node", "boot-metered")
                    .functionCounters()).hasSize(1);
                assertThat(context.getBean(SimpleMeterRegistry.class)
                    .find("rivulet.connections.opened").functionCounters()).hasSize(1);
            });
    }

    @Test
    void noMetricsWithoutARegistryOrWithoutMicrometer()
    {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RivuletMeterBinding.class));
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withClassLoader(new FilteredClassLoader(RivuletMetrics.class))
            .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RivuletMeterBinding.class));
    }

    private static Throwable findCause(final Throwable failure, final Class<? extends Throwable> type)
    {
        for (Throwable cause = failure; cause != null; cause = cause.getCause())
        {
            if (type.isInstance(cause))
            {
                return cause;
            }
        }
        return null;
    }

    @Configuration(proxyBeanMethods = false)
    static class Customizers
    {
        @Bean
        @Order(2)
        RivuletContextCustomizer second()
        {
            return context -> context.nodeName("second").maxStreams(context.maxStreams() + 1);
        }

        @Bean
        @Order(1)
        RivuletContextCustomizer first()
        {
            return context -> context.nodeName("first");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnNode
    {
        @Bean(destroyMethod = "close")
        Rivulet ownNode()
        {
            return Rivulet.launch(new Rivulet.Context().nodeName("own").countersFile(false));
        }
    }
}
