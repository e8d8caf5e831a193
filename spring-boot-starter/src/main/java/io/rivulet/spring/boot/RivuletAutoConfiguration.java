package io.rivulet.spring.boot;

import io.rivulet.Acceptor;
import io.rivulet.ConfigurationException;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
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
 * application's {@link Acceptor} bean (which chooses each connection's responder), else its {@link Responder} bean;
 * and {@link RivuletConnections} for client connections. Each bean backs off
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
        try
        {
            return Rivulet.launch(context);
        }
        catch (final ConfigurationException refused)
        {
            throw ContextBinding.named(refused, properties);
        }
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
     * @param acceptors  the application's {@link Acceptor}, which chooses each connection's responder, if it has one.
     * @param responders else the application's {@link Responder}, serving every connection; without either,
     *                   {@link Responder#none()}.
     * @return the server, bound when the context starts.
     * @throws ConfigurationException when the application has more than one acceptor, or no acceptor and more than
     *                                one responder, none of them {@code @Primary}.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "rivulet.server", name = "port")
    public RivuletServer rivuletServer(
        final Rivulet node,
        final RivuletProperties properties,
        final ObjectProvider<Acceptor> acceptors,
        final ObjectProvider<Responder> responders)
    {
        final RivuletProperties.Server server = properties.getServer();
        // The one place deciding what each accepted connection is served.
        final Acceptor served = served(acceptors, responders);
        final Function<String, Mono<Server>> bind = address -> node.bind(address, served);
        return new RivuletServer(server.getAddress() + ":" + server.getPort(), bind);
    }

    private static Acceptor served(final ObjectProvider<Acceptor> acceptors, final ObjectProvider<Responder> responders)
    {
        final Acceptor acceptor = single(acceptors, Acceptor.class);
        if (acceptor != null)
        {
            return acceptor;
        }
        final Responder responder = single(responders, Responder.class);
        return Acceptor.of(responder == null ? Responder.none() : responder);
    }

    private static <T> T single(final ObjectProvider<T> beans, final Class<T> type)
    {
        try
        {
            return beans.getIfAvailable();
        }
        catch (final NoUniqueBeanDefinitionException ex)
        {
            final String names = ex.getBeanNamesFound() == null ? "" : " " + ex.getBeanNamesFound();
            throw new ConfigurationException("rivulet.server: " + ex.getNumberOfBeansFound() + " " +
                type.getSimpleName() + " beans" + names + ", but the server serves one: keep one, or mark the one " +
                "to serve @Primary" + (type == Responder.class ? ", or define an Acceptor that chooses" : ""));
        }
    }
}
