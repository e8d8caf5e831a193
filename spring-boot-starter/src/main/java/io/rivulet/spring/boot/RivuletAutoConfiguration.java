package io.rivulet.spring.boot;

import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import java.util.function.Function;

/**
 * Auto-configures a Rivulet node from the {@code rivulet.*} properties, customised by every
 * {@link RivuletContextCustomizer} bean; a {@link RivuletServer} when {@code rivulet.server.port} is set, serving the
 * application's {@link Responder} bean; and {@link RivuletConnections} for client connections. Each bean backs off
 * when the application defines its own of the type.
 *
 * <p>The node launches when its bean is created, so the beans that take it find it running; it closes when the
 * context closes, after the server and connections (which depend on it).
 *
 * <p>Spring calls the bean methods once each, on the thread that refreshes the context.
 */
@AutoConfiguration(after = SslAutoConfiguration.class)
@EnableConfigurationProperties(RivuletProperties.class)
public class RivuletAutoConfiguration
{
    /**
     * @param properties  the {@code rivulet.*} properties.
     * @param customizers applied after the properties, in order.
     * @param sslBundles  for {@code rivulet.ssl.bundle}.
     * @return the running node.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Rivulet rivulet(
        final RivuletProperties properties,
        final ObjectProvider<RivuletContextCustomizer> customizers,
        final ObjectProvider<SslBundles> sslBundles)
    {
        final Rivulet.Context context = ContextBinding.apply(properties, new Rivulet.Context());
        if (properties.getSsl().getBundle() != null)
        {
            context.transport(SslBundleTransport.transport(
                sslBundles.getIfAvailable(), properties.getSsl(), properties.getTransport()));
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(context));
        return Rivulet.launch(context);
    }

    /**
     * @param node       the node that connects.
     * @param properties {@code rivulet.client.*}: the reconnection back-off.
     * @return the factory of the application's reconnecting connections.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public RivuletConnections rivuletConnections(final Rivulet node, final RivuletProperties properties)
    {
        final RivuletProperties.Client client = properties.getClient();
        final long attempts = client.getMaxAttempts() == null ? Long.MAX_VALUE : client.getMaxAttempts();
        return new RivuletConnections(node,
            Retry.backoff(attempts, client.getFirstBackoff()).maxBackoff(client.getMaxBackoff()));
    }

    /**
     * @param node       the node that listens.
     * @param properties {@code rivulet.server.*}.
     * @param responder  the application's handlers; {@link Responder#none()} when it has none.
     * @return the server, bound when the context starts.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "rivulet.server", name = "port")
    public RivuletServer rivuletServer(
        final Rivulet node, final RivuletProperties properties, final ObjectProvider<Responder> responder)
    {
        final RivuletProperties.Server server = properties.getServer();
        // The one place deciding what each accepted connection is served: a per-connection acceptor plugs in here.
        final Responder served = responder.getIfAvailable(Responder::none);
        final Function<String, Mono<Server>> bind = address -> node.bind(address, served);
        return new RivuletServer(server.getAddress() + ":" + server.getPort(), bind);
    }
}
