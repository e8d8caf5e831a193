package io.rivulet.bench.coordinator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts benchmark JVMs: the same {@code java} as the coordinator's, the module's class path as its build
 * wrote it (target/classes plus target/launcher/classpath.txt), the common flags and the system's own.
 */
final class Jvm
{
    private final Path benchmarks;
    private final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    Jvm(final Path root)
    {
        this.benchmarks = root.resolve("benchmarks");
    }

    /** @return the module's class path; throws naming the missing file when it was not built. */
    String classPath(final String module) throws IOException
    {
        final Path classes = benchmarks.resolve(module).resolve("target/classes");
        final Path file = benchmarks.resolve(module).resolve("target/launcher/classpath.txt");
        if (!Files.isRegularFile(file))
        {
            throw new IOException(file + " is missing: build with ./rivulet-bench (or mvn -Pbenchmarks package)");
        }
        final String dependencies = Files.readString(file, StandardCharsets.UTF_8).trim();
        return dependencies.isEmpty() ? classes.toString() : classes + ":" + dependencies;
    }

    /** @return the class path of the RDMA transport, or null when benchmarks/rdma was not built. */
    String rdmaClassPath() throws IOException
    {
        final Path file = benchmarks.resolve("rdma/target/launcher/classpath.txt");
        return Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8).trim() : null;
    }

    Path rivuletFlagsFile()
    {
        return benchmarks.resolve("rivulet/target/launcher/jvm.options");
    }

    List<String> command(final String classPath, final List<String> flags, final String main, final List<String> args)
    {
        final List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(Plan.COMMON_JVM_FLAGS);
        command.addAll(flags);
        command.add("-cp");
        command.add(classPath);
        command.add(main);
        command.addAll(args);
        return command;
    }

    Process start(final List<String> command, final Path log) throws IOException
    {
        Files.createDirectories(log.getParent());
        // Appended: with --runs each system's processes start once per run, and every run's log is kept.
        Files.writeString(log, String.join(" ", command) + System.lineSeparator(), StandardCharsets.UTF_8,
            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    }
}
