package io.rivulet.bench.coordinator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What the numbers were measured on: they only mean something next to this.
 *
 * @param cpus     processors available to the JVM (nproc).
 * @param cpuModel model name from /proc/cpuinfo.
 * @param virtual  true when /proc/cpuinfo shows the hypervisor flag.
 * @param memory   total memory.
 * @param os       distribution and kernel.
 * @param jdk      the JVM every benchmark process runs on.
 * @param commit   Rivulet's git commit, with a note when the work tree has changes.
 * @param load     the load average when the run started: other work on the machine skews every row.
 * @param wakeUps  what waking a parked thread costs here ({@link WakeUpProbe}), measured when the run started.
 */
record Machine(
    int cpus, String cpuModel, boolean virtual, String memory, String os, String jdk, String commit, String load,
    String wakeUps)
{
    static Machine describe(final Path root)
    {
        final List<String> cpuinfo = lines(Path.of("/proc/cpuinfo"));
        String model = System.getProperty("os.arch");
        boolean virtual = false;
        for (final String line : cpuinfo)
        {
            if (line.startsWith("model name") && line.contains(":") && model.equals(System.getProperty("os.arch")))
            {
                model = line.substring(line.indexOf(':') + 1).trim();
            }
            if (line.startsWith("flags") && line.contains(" hypervisor"))
            {
                virtual = true;
            }
        }
        String memory = "unknown";
        for (final String line : lines(Path.of("/proc/meminfo")))
        {
            if (line.startsWith("MemTotal:"))
            {
                final long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
                memory = String.format(Locale.ROOT, "%.1f GiB", kib / 1024.0 / 1024.0);
            }
        }
        String distribution = System.getProperty("os.name");
        for (final String line : lines(Path.of("/etc/os-release")))
        {
            if (line.startsWith("PRETTY_NAME="))
            {
                distribution = line.substring("PRETTY_NAME=".length()).replace("\"", "");
            }
        }
        final String os = distribution + ", " + System.getProperty("os.name") + " " + System.getProperty("os.version") +
            " " + System.getProperty("os.arch");
        final String jdk = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") +
            " (" + System.getProperty("java.vendor") + ")";
        String commit = run(root, "git", "rev-parse", "--short", "HEAD");
        if (commit.isEmpty())
        {
            commit = "unknown (not a git work tree)";
        }
        else if (!run(root, "git", "status", "--porcelain", "--untracked-files=no").isEmpty())
        {
            commit += " with uncommitted changes";
        }
        final List<String> loadavg = lines(Path.of("/proc/loadavg"));
        final String load = loadavg.isEmpty() ? "unknown" : String.join(" / ",
            List.of(loadavg.get(0).split(" ")).subList(0, 3)) + " (1 / 5 / 15 min)";
        return new Machine(Runtime.getRuntime().availableProcessors(), model, virtual, memory, os, jdk, commit, load,
            WakeUpProbe.describe());
    }

    String describe()
    {
        return String.format(Locale.ROOT, "%d × %s%s, %s RAM; %s; %s; load average at start %s; a park/unpark " +
            "round trip between two threads (median of each of %d trials) %s", cpus, cpuModel,
            virtual ? " (virtual machine)" : "", memory, os, jdk, load, WakeUpProbe.TRIALS, wakeUps);
    }

    private static List<String> lines(final Path path)
    {
        try
        {
            return Files.readAllLines(path, StandardCharsets.UTF_8);
        }
        catch (final IOException | RuntimeException ex)
        {
            return List.of();
        }
    }

    private static String run(final Path directory, final String... command)
    {
        try
        {
            final Process process = new ProcessBuilder(command).directory(directory.toFile())
                .redirectErrorStream(true).start();
            final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0 ? output : "";
        }
        catch (final IOException ex)
        {
            return "";
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
