package io.rivulet.tck;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * What a process holds that a leak would grow: open file descriptors ({@code /proc/self/fd}), live threads, direct
 * buffers (count and bytes, from the "direct" {@link BufferPoolMXBean}) and whatever a transport adds (registered
 * memory). {@link #awaitWithin} compares a later snapshot with an earlier one, collecting garbage and waiting a
 * bounded time for closes and cleaners to finish.
 *
 * @param values resource name to amount, in a fixed order.
 */
public record ResourceSnapshot(Map<String, Long> values)
{
    public static final String FILE_DESCRIPTORS = "file descriptors";
    public static final String THREADS = "threads";
    public static final String DIRECT_BUFFERS = "direct buffers";
    public static final String DIRECT_BYTES = "direct bytes";

    /**
     * @param extra the transport's own resources (e.g. registered memory), or an empty map.
     * @return the current amounts.
     */
    public static ResourceSnapshot take(final Map<String, Long> extra)
    {
        final Map<String, Long> values = new LinkedHashMap<>();
        values.put(FILE_DESCRIPTORS, openFileDescriptors());
        values.put(THREADS, (long)ManagementFactory.getThreadMXBean().getThreadCount());
        final BufferPoolMXBean direct = directPool();
        values.put(DIRECT_BUFFERS, direct.getCount());
        values.put(DIRECT_BYTES, direct.getMemoryUsed());
        values.putAll(extra);
        return new ResourceSnapshot(values);
    }

    /**
     * Takes snapshots (after a GC, so that dropped direct buffers are freed) until every resource is within its
     * tolerance of {@code before}, or the timeout passes.
     *
     * @param before     the reference.
     * @param tolerances allowed growth per resource; a resource not named must not grow at all.
     * @param extra      supplies the transport's own resources for each snapshot.
     * @param timeoutMs  longest wait.
     * @return the last snapshot taken; check it with {@link #differencesFrom}.
     */
    public static ResourceSnapshot awaitWithin(
        final ResourceSnapshot before, final Map<String, Long> tolerances, final Supplier<Map<String, Long>> extra,
        final long timeoutMs) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        ResourceSnapshot after;
        do
        {
            System.gc();
            Thread.sleep(100);
            after = take(extra.get());
        }
        while (!after.differencesFrom(before, tolerances).isEmpty() && System.nanoTime() - deadlineNs < 0);
        return after;
    }

    /** @return the resources that grew from {@code before} by more than their tolerance, with both values. */
    public Map<String, String> differencesFrom(final ResourceSnapshot before, final Map<String, Long> tolerances)
    {
        final Map<String, String> differences = new LinkedHashMap<>();
        for (final Map.Entry<String, Long> entry : values.entrySet())
        {
            final long was = before.values.getOrDefault(entry.getKey(), 0L);
            final long tolerance = tolerances.getOrDefault(entry.getKey(), 0L);
            // Only growth is a leak: other tests' resources released meanwhile (closed sockets, collected buffers)
            // may take a value below where it was.
            if (entry.getValue() - was > tolerance)
            {
                differences.put(entry.getKey(), was + " -> " + entry.getValue() + " (tolerance " + tolerance + ")");
            }
        }
        return differences;
    }

    private static long openFileDescriptors()
    {
        try (Stream<Path> descriptors = Files.list(Path.of("/proc/self/fd")))
        {
            return descriptors.count();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot list /proc/self/fd (the leak tests need Linux)", ex);
        }
    }

    private static BufferPoolMXBean directPool()
    {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                return pool;
            }
        }
        throw new IllegalStateException("no direct buffer pool MXBean");
    }
}
