package io.rivulet.bench.harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --name value} options of a benchmark JVM. The coordinator writes them; a person may too, when
 * running one system by hand.
 *
 * <p>Not thread-safe.
 */
public final class Args
{
    private final Map<String, String> values = new LinkedHashMap<>();

    public Args(final String[] argv)
    {
        for (int i = 0; i < argv.length; i++)
        {
            final String arg = argv[i];
            if (!arg.startsWith("--"))
            {
                throw new IllegalArgumentException("expected --name value, got '" + arg + "'");
            }
            final String name = arg.substring(2);
            final int eq = name.indexOf('=');
            if (eq > 0)
            {
                values.put(name.substring(0, eq), name.substring(eq + 1));
            }
            else if (i + 1 < argv.length && !argv[i + 1].startsWith("--"))
            {
                values.put(name, argv[++i]);
            }
            else
            {
                values.put(name, "true");
            }
        }
    }

    public boolean has(final String name)
    {
        return values.containsKey(name);
    }

    public String string(final String name, final String defaultValue)
    {
        return values.getOrDefault(name, defaultValue);
    }

    public int integer(final String name, final int defaultValue)
    {
        final String value = values.get(name);
        return value == null ? defaultValue : Integer.parseInt(value.replace("_", ""));
    }

    public long number(final String name, final long defaultValue)
    {
        final String value = values.get(name);
        return value == null ? defaultValue : Long.parseLong(value.replace("_", ""));
    }

    /** @return a comma-separated list, or the default when absent. */
    public List<String> list(final String name, final String defaultValue)
    {
        final List<String> list = new ArrayList<>();
        for (final String part : string(name, defaultValue).split(","))
        {
            if (!part.isBlank())
            {
                list.add(part.trim());
            }
        }
        return list;
    }
}
