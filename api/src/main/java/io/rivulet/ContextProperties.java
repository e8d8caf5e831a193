package io.rivulet;

import io.rivulet.security.Authenticator;
import org.agrona.SystemUtil;

/**
 * How {@link Rivulet.Context} reads its {@code rivulet.*} system properties and checks values: each failure is a
 * {@link ConfigurationException} that names the property.
 */
final class ContextProperties
{
    private ContextProperties()
    {
    }

    static void require(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new ConfigurationException(message);
        }
    }

    static ThreadingMode threadingModeProperty()
    {
        final String value = System.getProperty("rivulet.threadingMode", "SHARED");
        try
        {
            return ThreadingMode.valueOf(value.trim().toUpperCase());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigurationException("rivulet.threadingMode: unknown threading mode '" + value +
                "' (DEDICATED, SHARED, INVOKER)");
        }
    }

    static EngineFailure engineFailureProperty()
    {
        final String value = System.getProperty("rivulet.engineFailure", "close");
        try
        {
            return EngineFailure.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigurationException("rivulet.engineFailure: unknown value '" + value + "' (close, exit)");
        }
    }

    static int size(final String property, final int defaultValue)
    {
        try
        {
            return SystemUtil.getSizeAsInt(property, defaultValue);
        }
        catch (final RuntimeException ex)
        {
            throw new ConfigurationException(property + ": " + ex.getMessage());
        }
    }

    static long sizeLong(final String property, final long defaultValue)
    {
        try
        {
            return SystemUtil.getSizeAsLong(property, defaultValue);
        }
        catch (final RuntimeException ex)
        {
            throw new ConfigurationException(property + ": " + ex.getMessage());
        }
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
            return Authenticator.tokens(java.util.Arrays.stream(tokens.split(",")).map(String::trim)
                .filter(token -> !token.isEmpty()).toArray(String[]::new));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigurationException("rivulet.authTokens: " + ex.getMessage());
        }
    }

    static long duration(final String property, final long defaultNs)
    {
        try
        {
            return SystemUtil.getDurationInNanos(property, defaultNs);
        }
        catch (final RuntimeException ex)
        {
            throw new ConfigurationException(property + ": " + ex.getMessage());
        }
    }
}
