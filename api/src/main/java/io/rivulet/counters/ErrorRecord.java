package io.rivulet.counters;

/**
 * One distinct error from a node's error log: the same stack trace seen {@code count} times.
 *
 * @param count     times it was observed.
 * @param firstMs   epoch ms of the first observation.
 * @param lastMs    epoch ms of the last observation.
 * @param text      the stack trace.
 */
public record ErrorRecord(int count, long firstMs, long lastMs, String text)
{
    /** @return the first line of the stack trace (the exception and its message). */
    public String summary()
    {
        final int end = text.indexOf('\n');
        return (end < 0 ? text : text.substring(0, end)).trim();
    }
}
