package io.rivulet.counters;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Where node files live: by default {@code /dev/shm/rivulet-<user>/} (else {@code <java.io.tmpdir>/rivulet-<user>/}),
 * one {@code <node>-<pid>.rivulet} file per running node. Tools list the directory to find nodes; a node cleans up the files of dead processes
 * there when it starts.
 */
public final class NodeDirectory
{
    private NodeDirectory()
    {
    }

    /** Linux's shared-memory file system: mapped files there never wait on disk writeback. */
    private static final Path SHARED_MEMORY = Paths.get("/dev/shm");

    /**
     * The default directory: {@code /dev/shm/rivulet-<user.name>} where {@code /dev/shm} exists (Linux), else
     * {@code <java.io.tmpdir>/rivulet-<user.name>}. Like Aeron's default, it keeps the node file in memory: a
     * counter store into a file-backed mapping on a disk can stall while the kernel writes the page back, which
     * on a loaded machine stalled the conductor for over a second.
     */
    public static Path defaultDirectory()
    {
        final String user = System.getProperty("user.name", "default").replaceAll("[^A-Za-z0-9._-]", "_");
        final Path base = Files.isDirectory(SHARED_MEMORY) && Files.isWritable(SHARED_MEMORY) ? SHARED_MEMORY :
            Paths.get(System.getProperty("java.io.tmpdir"));
        return base.resolve("rivulet-" + user);
    }

    /**
     * @param directory the node directory.
     * @param nodeName  a node name; characters outside {@code [A-Za-z0-9._-]} become {@code _}.
     * @return the file a node of that name in this process uses.
     */
    public static Path fileFor(final Path directory, final String nodeName)
    {
        return directory.resolve(nodeName.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + ProcessHandle.current().pid() +
            NodeFileLayout.FILE_SUFFIX);
    }

    /**
     * @param directory a node directory.
     * @return its node files, sorted by name; empty when the directory does not exist.
     * @throws IOException when the directory cannot be read.
     */
    public static List<Path> list(final Path directory) throws IOException
    {
        final List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(directory))
        {
            return files;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory, "*" + NodeFileLayout.FILE_SUFFIX))
        {
            for (final Path file : stream)
            {
                files.add(file);
            }
        }
        files.sort(null);
        return files;
    }

    /**
     * Deletes the node files whose process is gone (a node killed without a clean close). Files that cannot be
     * read as node files, and those of live processes, are left alone.
     *
     * @param directory a node directory.
     * @return how many files were deleted.
     */
    public static int deleteStale(final Path directory)
    {
        int deleted = 0;
        try
        {
            for (final Path file : list(directory))
            {
                final long pid;
                try (NodeFile node = NodeFile.open(file))
                {
                    pid = node.pid();
                }
                catch (final IOException ex)
                {
                    continue;
                }
                if (pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).isEmpty() && Files.deleteIfExists(file))
                {
                    deleted++;
                }
            }
        }
        catch (final IOException ex)
        {
            return deleted; // best effort: a directory we cannot read holds nothing of ours to clean
        }
        return deleted;
    }
}
