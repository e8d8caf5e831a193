package io.rivulet.bench.harness;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The line protocol between a benchmark JVM and the coordinator: one line per record on stdout, a type
 * word then {@code key=value} fields, separated by tabs (values never hold tabs or newlines).
 *
 * <pre>
 * READY     port=41231  port2=41232           a server is listening
 * INFO      system=...  version=...  ...      what a client measures and how
 * PROGRESS  workload=pingpong  size=32  phase=measure  done=12000  total=50000
 * RESULT    workload=pingpong  api=...  size=32  warmup=...  count=...  elapsedNs=...  hist=BASE64
 * ERROR     workload=...  size=...  message=...
 * DONE
 * </pre>
 *
 * <p>Immutable, thread-safe to print (one {@code println} per record).
 */
public final class Line
{
    public static final String READY = "READY";
    public static final String INFO = "INFO";
    public static final String PROGRESS = "PROGRESS";
    public static final String RESULT = "RESULT";
    public static final String ERROR = "ERROR";
    public static final String DONE = "DONE";
    /** How a warm-up went: its operations, time, whether it ended steady, and every window's rate. */
    public static final String WARMUP = "WARMUP";
    /** Fan-out at scale, coordinator to publisher: publish {@code count} messages at {@code rate} (0: flat out). */
    public static final String PUBLISH = "PUBLISH";
    /** Fan-out at scale, publisher to coordinator: a run's messages are all offered, from {@code startNs}. */
    public static final String PUBLISHED = "PUBLISHED";
    /** Fan-out at scale, coordinator to subscribers: report once every subscriber has {@code target} messages. */
    public static final String AWAIT = "AWAIT";
    /** Fan-out at scale, subscribers to coordinator: all have them; the last arrived at {@code lastNs}. */
    public static final String RECEIVED = "RECEIVED";

    private final String type;
    private final Map<String, String> fields;

    public Line(final String type, final Map<String, String> fields)
    {
        this.type = type;
        this.fields = fields;
    }

    public static Line of(final String type, final Object... keyValues)
    {
        final Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i + 1 < keyValues.length; i += 2)
        {
            fields.put(String.valueOf(keyValues[i]), String.valueOf(keyValues[i + 1]));
        }
        return new Line(type, fields);
    }

    /** @return the parsed line, or null when it is not a protocol line (a log line, say). */
    public static Line parse(final String text)
    {
        final String[] parts = text.split("\t");
        switch (parts[0])
        {
            case READY:
            case INFO:
            case PROGRESS:
            case RESULT:
            case ERROR:
            case DONE:
            case WARMUP:
            case PUBLISH:
            case PUBLISHED:
            case AWAIT:
            case RECEIVED:
                break;
            default:
                return null;
        }
        final Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++)
        {
            final int eq = parts[i].indexOf('=');
            if (eq > 0)
            {
                fields.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
            }
        }
        return new Line(parts[0], fields);
    }

    public String type()
    {
        return type;
    }

    public Map<String, String> fields()
    {
        return fields;
    }

    public String get(final String key)
    {
        return fields.get(key);
    }

    public String get(final String key, final String defaultValue)
    {
        return fields.getOrDefault(key, defaultValue);
    }

    public long number(final String key)
    {
        return Long.parseLong(fields.get(key));
    }

    public Line with(final String key, final Object value)
    {
        final Map<String, String> copy = new LinkedHashMap<>(fields);
        copy.put(key, clean(String.valueOf(value)));
        return new Line(type, copy);
    }

    public void print(final PrintStream out)
    {
        out.println(toString());
        out.flush();
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder(type);
        fields.forEach((key, value) -> text.append('\t').append(key).append('=').append(clean(value)));
        return text.toString();
    }

    private static String clean(final String value)
    {
        return value.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }
}
