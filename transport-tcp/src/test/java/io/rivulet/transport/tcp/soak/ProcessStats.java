package io.rivulet.transport.tcp.soak;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What another process holds, read from Linux's {@code /proc/<pid>}: resident memory ({@code status}, VmRSS), open
 * file descriptors ({@code fd}) and threads ({@code task}).
 *
 * @param rssKb   resident set in KiB.
 * @param fds     open file descriptors.
 * @param threads live threads.
 */
record ProcessStats(long rssKb, int fds, int threads)
{
    /**
     * @param pid the process.
     * @return its figures now.
     * @throws IOException when the process is gone (or /proc cannot be read).
     */
    static ProcessStats of(final long pid) throws IOException
    {
        final Path proc = Path.of("/proc", Long.toString(pid));
        return new ProcessStats(rssKb(proc.resolve("status")), count(proc.resolve("fd")), count(proc.resolve("task")));
    }

    /** @return the resident set in MiB. */
    long rssMb()
    {
        return rssKb / 1024;
    }

    private static long rssKb(final Path status) throws IOException
    {
        final List<String> lines = Files.readAllLines(status);
        for (final String line : lines)
        {
            if (line.startsWith("VmRSS:"))
            {
                // "VmRSS:	  123456 kB"
                final String[] fields = line.substring("VmRSS:".length()).trim().split("\\s+");
                return Long.parseLong(fields[0]);
            }
        }
        throw new IOException("no VmRSS in " + status);
    }

    private static int count(final Path directory) throws IOException
    {
        int count = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory))
        {
            for (final Path ignored : entries)
            {
                count++;
            }
        }
        return count;
    }
}
