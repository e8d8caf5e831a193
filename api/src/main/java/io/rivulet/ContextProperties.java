package io.rivulet;

import io.rivulet.security.Authenticator;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.MulticastSettings;
import io.rivulet.spi.PropertyValues;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * How {@link Rivulet.Context} reads its {@code rivulet.*} system properties: parsing through {@link PropertyValues},
 * so that each failure is a {@link ConfigurationException} naming the property as written, and a check that no
 * property of the core's names is misspelt.
 */
final class ContextProperties
{
    /** Settings whose property is not {@code rivulet.<setting>}. */
    static final Map<String, String> PROPERTY_OF_SETTING = Map.of(
        "countersDirectory", "rivulet.countersDir",
        "deleteCountersOnClose", "rivulet.countersDeleteOnClose",
        "authenticator", "rivulet.authTokens");

    /** Every property of the core namespace, {@code rivulet.<name>} without a further dot (README, Configuration). */
    static final Set<String> CORE_PROPERTIES = Set.of(
        "rivulet.transport", "rivulet.threadingMode", "rivulet.idleStrategy", "rivulet.replyIdleStrategy",
        "rivulet.replyWaitRunsEngine",
        "rivulet.maxFrameLength",
        "rivulet.maxMessageLength", "rivulet.streamWindow", "rivulet.outboundRingLength", "rivulet.linkBufferLength",
        "rivulet.keepaliveInterval", "rivulet.keepaliveTimeout", "rivulet.connectTimeout", "rivulet.frameLimit",
        "rivulet.topicWindow", "rivulet.topicHeartbeatInterval", "rivulet.topicHeartbeatTimeout",
        "rivulet.setupTimeout", "rivulet.maxStreams", "rivulet.maxPendingRequests", "rivulet.maxParkedBytes",
        "rivulet.maxConnections", "rivulet.maxPendingSetupsPerAddress", "rivulet.maxConnectionMemory",
        "rivulet.maxNodeMemory",
        "rivulet.maxKeepaliveTimeout", "rivulet.idleTimeout", "rivulet.authToken", "rivulet.authTokens",
        "rivulet.authBackoff", "rivulet.authBackoffMax", "rivulet.authBackoffAddresses", "rivulet.topicDatagrams",
        "rivulet.datagrams", "rivulet.topicMulticast", "rivulet.topicMulticastReceive",
        "rivulet.nodeName", "rivulet.countersDir", "rivulet.countersFile", "rivulet.countersDeleteOnClose",
        "rivulet.maxCounters", "rivulet.errorLogLength", "rivulet.engineFailure");

    private ContextProperties()
    {
    }

    static ThreadingMode threadingModeProperty()
    {
        final String value = System.getProperty("rivulet.threadingMode", "SHARED");
        try
        {
            return ThreadingMode.valueOf(value.trim().toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            throw PropertyValues.invalid("rivulet.threadingMode", value,
                "unknown threading mode; one of SHARED, DEDICATED, INVOKER");
        }
    }

    static EngineFailure engineFailureProperty()
    {
        final String value = System.getProperty("rivulet.engineFailure", "close");
        try
        {
            return EngineFailure.valueOf(value.trim().toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            throw PropertyValues.invalid("rivulet.engineFailure", value, "unknown value; one of close, exit");
        }
    }

    static int size(final String property, final int defaultValue)
    {
        return PropertyValues.size(property, defaultValue);
    }

    static long sizeLong(final String property, final long defaultValue)
    {
        return PropertyValues.sizeLong(property, defaultValue);
    }

    static long duration(final String property, final long defaultNs)
    {
        return PropertyValues.durationNs(property, defaultNs);
    }

    static boolean flag(final String property, final boolean defaultValue)
    {
        return PropertyValues.flag(property, defaultValue);
    }

    static Authenticator tokensProperty()
    {
        final String tokens = System.getProperty("rivulet.authTokens");
        if (tokens == null || tokens.isBlank())
        {
            return null;
        }
        try
        {
            return Authenticator.tokens(Arrays.stream(tokens.split(",")).map(String::trim)
                .filter(token -> !token.isEmpty()).toArray(String[]::new));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigurationException("rivulet.authTokens: " + ex.getMessage());
        }
    }

    /**
     * Fails on a property of a namespace the core owns ({@code rivulet.<name>} and {@code rivulet.ud.<name>}) that no
     * setting reads: a misspelt name would otherwise be ignored in silence. Other namespaces ({@code rivulet.tcp.},
     * {@code rivulet.rdma.}, {@code rivulet.actors.}, ...) belong to their modules.
     *
     * @param properties the system properties.
     * @throws ConfigurationException naming the unknown property, and the known one it most resembles.
     */
    static void checkNames(final Properties properties)
    {
        for (final String name : properties.stringPropertyNames().stream().sorted().toList())
        {
            if (!name.startsWith("rivulet."))
            {
                continue;
            }
            final String rest = name.substring("rivulet.".length());
            if (rest.indexOf('.') < 0 && !CORE_PROPERTIES.contains(name))
            {
                throw unknown(name, properties.getProperty(name), CORE_PROPERTIES);
            }
            if (rest.startsWith("ud.") && !DatagramSettings.PROPERTIES.contains(name))
            {
                throw unknown(name, properties.getProperty(name), DatagramSettings.PROPERTIES);
            }
            if (rest.startsWith("multicast.") && !MulticastSettings.PROPERTIES.contains(name))
            {
                throw unknown(name, properties.getProperty(name), MulticastSettings.PROPERTIES);
            }
        }
    }

    private static ConfigurationException unknown(final String name, final String value, final Set<String> known)
    {
        final List<String> candidates = known.stream().sorted().toList();
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (final String candidate : candidates)
        {
            final int distance = distance(name.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
            if (distance < bestDistance)
            {
                best = candidate;
                bestDistance = distance;
            }
        }
        final String hint = bestDistance <= Math.max(2, name.length() / 5) ? "did you mean " + best + "? " : "";
        return new ConfigurationException(name + "=" + value + ": unknown property; " + hint +
            "README's Configuration section lists the rivulet.* properties");
    }

    /** Levenshtein distance; names are short. */
    private static int distance(final String a, final String b)
    {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++)
        {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++)
        {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++)
            {
                final int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            final int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
