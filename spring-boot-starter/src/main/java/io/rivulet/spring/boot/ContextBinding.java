package io.rivulet.spring.boot;

import io.rivulet.ConfigurationException;
import io.rivulet.Rivulet;
import io.rivulet.Transports;
import io.rivulet.security.Authenticator;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/**
 * Applies {@link RivuletProperties} onto a {@link Rivulet.Context}: each property that is set replaces the
 * Context's value, each unset one leaves the Context's default (its system property). Reads sizes and durations
 * ({@link PropertyForms}), refusing what is not one, or a size beyond the setting's type, with the core's message
 * naming the property; the Context's {@code conclude()} checks the rest and names the setting.
 *
 * <p>Stateless; thread-safe.
 */
final class ContextBinding
{
    /** Context settings whose property field has another name. */
    private static final Map<String, String> FIELD_OF_SETTING = Map.of(
        "countersDirectory", "countersDir",
        "deleteCountersOnClose", "countersDeleteOnClose");

    private ContextBinding()
    {
    }

    /**
     * @param properties the bound {@code rivulet.*} properties.
     * @param context    the Context to fill.
     * @return the context.
     * @throws ConfigurationException naming a property the Context cannot take.
     */
    static Rivulet.Context apply(final RivuletProperties properties, final Rivulet.Context context)
    {
        if (properties.getTransport() != null)
        {
            try
            {
                context.transport(Transports.byName(properties.getTransport()));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new ConfigurationException("rivulet.transport: " + ex.getMessage());
            }
        }
        set(properties.getThreadingMode(), context::threadingMode);
        set(properties.getIdleStrategy(), context::idleStrategy);
        set(properties.getReplyIdleStrategy(), context::replyIdleStrategy);
        set(properties.getReplyWaitRunsEngine(), context::replyWaitRunsEngine);
        intSize("rivulet.max-frame-length", properties.getMaxFrameLength(), context::maxFrameLength);
        intSize("rivulet.max-message-length", properties.getMaxMessageLength(), context::maxMessageLength);
        set(properties.getStreamWindow(), context::streamWindow);
        intSize("rivulet.outbound-ring-length", properties.getOutboundRingLength(), context::outboundRingLength);
        intSize("rivulet.link-buffer-length", properties.getLinkBufferLength(), context::linkBufferLength);
        nanos("rivulet.keepalive-interval", properties.getKeepaliveInterval(),
            ns -> context.keepaliveInterval(ns, TimeUnit.NANOSECONDS));
        nanos("rivulet.keepalive-timeout", properties.getKeepaliveTimeout(),
            ns -> context.keepaliveTimeout(ns, TimeUnit.NANOSECONDS));
        nanos("rivulet.connect-timeout", properties.getConnectTimeout(),
            ns -> context.connectTimeout(ns, TimeUnit.NANOSECONDS));
        set(properties.getTopicWindow(), context::topicWindow);
        nanos("rivulet.topic-heartbeat-interval", properties.getTopicHeartbeatInterval(),
            ns -> context.topicHeartbeatInterval(ns, TimeUnit.NANOSECONDS));
        nanos("rivulet.topic-heartbeat-timeout", properties.getTopicHeartbeatTimeout(),
            ns -> context.topicHeartbeatTimeout(ns, TimeUnit.NANOSECONDS));
        nanos("rivulet.setup-timeout", properties.getSetupTimeout(),
            ns -> context.setupTimeout(ns, TimeUnit.NANOSECONDS));
        set(properties.getMaxStreams(), context::maxStreams);
        set(properties.getMaxPendingRequests(), context::maxPendingRequests);
        longSize("rivulet.max-parked-bytes", properties.getMaxParkedBytes(), context::maxParkedBytes);
        set(properties.getMaxConnections(), context::maxConnections);
        set(properties.getMaxPendingSetupsPerAddress(), context::maxPendingSetupsPerAddress);
        longSize("rivulet.max-connection-memory", properties.getMaxConnectionMemory(), context::maxConnectionMemory);
        longSize("rivulet.max-node-memory", properties.getMaxNodeMemory(), context::maxNodeMemory);
        nanos("rivulet.max-keepalive-timeout", properties.getMaxKeepaliveTimeout(),
            ns -> context.maxKeepaliveTimeout(ns, TimeUnit.NANOSECONDS));
        nanos("rivulet.idle-timeout", properties.getIdleTimeout(),
            ns -> context.idleTimeout(ns, TimeUnit.NANOSECONDS));
        set(properties.getAuthToken(), context::authToken);
        final List<String> tokens = properties.getAuthTokens();
        if (tokens != null && !tokens.isEmpty())
        {
            try
            {
                context.authenticator(Authenticator.tokens(tokens.stream().map(String::trim).toArray(String[]::new)));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new ConfigurationException("rivulet.auth-tokens: " + ex.getMessage());
            }
        }
        set(properties.getTopicDatagrams(), context::topicDatagrams);
        set(properties.getNodeName(), context::nodeName);
        set(properties.getCountersDir(), context::countersDirectory);
        set(properties.getCountersFile(), context::countersFile);
        set(properties.getCountersDeleteOnClose(), context::deleteCountersOnClose);
        set(properties.getMaxCounters(), context::maxCounters);
        intSize("rivulet.error-log-length", properties.getErrorLogLength(), context::errorLogLength);
        set(properties.getEngineFailure(), context::engineFailure);
        return context;
    }

    /**
     * The Context names a value it refuses by its setter ({@code Context.maxFrameLength(100)}), since it was set
     * through one: when the value came from a {@code rivulet.*} property, say so in the property's own spelling.
     *
     * @param refused    the Context's refusal.
     * @param properties what was bound.
     * @return the refusal naming the property as written, or {@code refused} when no property gave the value.
     */
    static ConfigurationException named(final ConfigurationException refused, final RivuletProperties properties)
    {
        final String setting = refused.setting();
        if (setting == null)
        {
            return refused;
        }
        final String field = FIELD_OF_SETTING.getOrDefault(setting, setting);
        final Object value;
        try
        {
            value = RivuletProperties.class.getMethod("get" + Character.toUpperCase(field.charAt(0)) +
                field.substring(1)).invoke(properties);
        }
        catch (final ReflectiveOperationException ex)
        {
            return refused; // a setting with no property
        }
        if (value == null)
        {
            return refused; // not set by a property: the Context's own message names its source
        }
        final String property = "rivulet." + field.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
        final ConfigurationException named = new ConfigurationException(property + "=" + value + " (Context." +
            setting + "(" + refused.value() + ")): " + refused.problem(), setting, refused.value(), refused.problem());
        named.initCause(refused);
        return named;
    }

    private static <T> void set(final T value, final Consumer<T> setter)
    {
        if (value != null)
        {
            setter.accept(value);
        }
    }

    private static void intSize(final String property, final String size, final IntConsumer setter)
    {
        if (size != null)
        {
            setter.accept((int)PropertyForms.size(property, size, Integer.MAX_VALUE));
        }
    }

    private static void longSize(final String property, final String size, final LongConsumer setter)
    {
        if (size != null)
        {
            setter.accept(PropertyForms.size(property, size, Long.MAX_VALUE));
        }
    }

    private static void nanos(final String property, final String duration, final LongConsumer setter)
    {
        if (duration != null)
        {
            setter.accept(PropertyForms.durationNs(property, duration));
        }
    }
}
