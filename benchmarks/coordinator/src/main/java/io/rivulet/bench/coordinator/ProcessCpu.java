package io.rivulet.bench.coordinator;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time a process has used, from {@code /proc/<pid>/task/<tid>/schedstat} (its first field: nanoseconds on a CPU),
 * summed over the process's threads. Nanoseconds, where {@code /proc/<pid>/task/<tid>/stat}'s utime and stime count
 * clock ticks of 10 ms, too coarse for a run of a few hundred milliseconds of CPU. A thread that ends between two
 * readings takes its time with it; the fan-out's threads live as long as their process.
 *
 * <p>Stateless.
 */
final class ProcessCpu
{
    private ProcessCpu()
    {
    }

    /** @return the process's CPU time so far in ns, or -1 when /proc does not say (not Linux, or it ended). */
    static long nanos(final long pid)
    {
        final Path tasks = Path.of("/proc", Long.toString(pid), "task");
        long total = 0;
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks))
        {
            for (final Path thread : threads)
            {
                try
                {
                    final String text = Files.readString(thread.resolve("schedstat")).trim();
                    final int space = text.indexOf(' ');
                    total += Long.parseLong(space < 0 ? text : text.substring(0, space));
                }
                catch (final IOException | NumberFormatException ended)
                {
                    // The thread ended while we listed them.
                }
            }
        }
        catch (final IOException ex)
        {
            return -1;
        }
        return total;
    }
}
