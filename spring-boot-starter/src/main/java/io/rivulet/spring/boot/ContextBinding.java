package io.rivulet.spring.boot;

import io.rivulet.ConfigurationException;
import io.rivulet.Rivulet;
import io.rivulet.Transports;
import io.rivulet.security.Authenticator;
import org.springframework.util.unit.DataSize;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/**
 * Applies {@link RivuletProperties} onto a {@link Rivulet.Context}: each property that is set replaces the
 * Context's value, each unset one leaves the Context's default (its system property). Checks only what the
 * Context's types cannot hold (a size beyond an int); the Context's {@code conclude()} checks the rest and names
 * the setting.
 *
 * <p>Stateless; thread-safe.
 */
final class ContextBinding
{
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
        intSize("rivulet.max-frame-length", properties.getMaxFrameLength(), context::maxFrameLength);
        intSize("rivulet.max-message-length", properties.getMaxMessageLength(), context::maxMessageLength);
        set(properties.getStreamWindow(), context::streamWindow);
        intSize("rivulet.outbound-ring-length", properties.getOutboundRingLength(), context::outboundRingLength);
        intSize("rivulet.link-buffer-length", properties.getLinkBufferLength(), context::linkBufferLength);
        nanos(properties.getKeepaliveInterval(), ns -> context.keepaliveInterval(ns, TimeUnit.NANOSECONDS));
        nanos(properties.getKeepaliveTimeout(), ns -> context.keepaliveTimeout(ns, TimeUnit.NANOSECONDS));
        nanos(properties.getConnectTimeout(), ns -> context.connectTimeout(ns, TimeUnit.NANOSECONDS));
        set(properties.getTopicWindow(), context::topicWindow);
        nanos(properties.getTopicHeartbeatInterval(), ns -> context.topicHeartbeatInterval(ns, TimeUnit.NANOSECONDS));
        nanos(properties.getTopicHeartbeatTimeout(), ns -> context.topicHeartbeatTimeout(ns, TimeUnit.NANOSECONDS));
        nanos(properties.getSetupTimeout(), ns -> context.setupTimeout(ns, TimeUnit.NANOSECONDS));
        set(properties.getMaxStreams(), context::maxStreams);
        set(properties.getMaxPendingRequests(), context::maxPendingRequests);
        longSize(properties.getMaxParkedBytes(), context::maxParkedBytes);
        set(properties.getMaxConnections(), context::maxConnections);
        longSize(properties.getMaxConnectionMemory(), context::maxConnectionMemory);
        longSize(properties.getMaxNodeMemory(), context::maxNodeMemory);
        nanos(properties.getMaxKeepaliveTimeout(), ns -> context.maxKeepaliveTimeout(ns, TimeUnit.NANOSECONDS));
        nanos(properties.getIdleTimeout(), ns -> context.idleTimeout(ns, TimeUnit.NANOSECONDS));
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

    private static <T> void set(final T value, final Consumer<T> setter)
    {
        if (value != null)
        {
            setter.accept(value);
        }
    }

    private static void intSize(final String property, final DataSize size, final IntConsumer setter)
    {
        if (size != null)
        {
            final long bytes = size.toBytes();
            if (bytes > Integer.MAX_VALUE || bytes < Integer.MIN_VALUE)
            {
                throw new ConfigurationException(property + " must be below 2GB: " + size);
            }
            setter.accept((int)bytes);
        }
    }

    private static void longSize(final DataSize size, final LongConsumer setter)
    {
        if (size != null)
        {
            setter.accept(size.toBytes());
        }
    }

    private static void nanos(final Duration duration, final LongConsumer setter)
    {
        if (duration != null)
        {
            setter.accept(duration.toNanos());
        }
    }
}
