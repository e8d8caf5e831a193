package io.rivulet.spring.boot;

import io.rivulet.Rivulet;

/**
 * Changes the {@link Rivulet.Context} of the auto-configured node after the {@code rivulet.*} properties are applied
 * and before the node launches: for what properties cannot say (an authenticator, an error handler, a thread
 * factory, protocol extensions). Every bean of this type is applied, in {@code @Order} order.
 *
 * <pre>{@code
 * @Bean
 * RivuletContextCustomizer authentication()
 * {
 *     return context -> context.authenticator(Authenticator.principals("CN=orders"));
 * }
 * }</pre>
 *
 * <p>Implementations are called once, on the thread that creates the node bean.
 */
@FunctionalInterface
public interface RivuletContextCustomizer
{
    /**
     * @param context the node's configuration, not yet concluded.
     */
    void customize(Rivulet.Context context);
}
