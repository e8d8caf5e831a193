package io.rivulet.bench.harness;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** A benchmark JVM's command line: the harness's options and a system's, checked before anything starts. */
class ClientMainCommandLineTest
{
    @Test
    void badNumberExitsWithUsageCodeAndNamesTheOption()
    {
        final AtomicReference<SystemOptions> started = new AtomicReference<>();
        final CommandLine commandLine = ClientMain.commandLine(new SystemOptions(), options ->
        {
            started.set(options);
            throw new IllegalStateException("must not start");
        });
        final StringWriter err = new StringWriter();
        commandLine.setErr(new PrintWriter(err, true));

        final int exitCode = commandLine.execute("--pp-count", "lots");

        assertThat(exitCode).isEqualTo(BenchCli.USAGE_EXIT_CODE).isNotZero();
        assertThat(err.toString()).contains("--pp-count").contains("'lots'").contains("Usage: TestSystem");
        assertThat(started.get()).isNull();
    }

    @Test
    void unknownOptionExitsWithUsageCodeAndNamesIt()
    {
        final StringWriter err = new StringWriter();
        final CommandLine commandLine = ServerMain.commandLine(new SystemOptions(), options -> null);
        commandLine.setErr(new PrintWriter(err, true));

        final int exitCode = commandLine.execute("--variant", "busy", "--bogus", "1");

        assertThat(exitCode).isEqualTo(BenchCli.USAGE_EXIT_CODE);
        assertThat(err.toString()).contains("--bogus");
    }

    @Test
    void parsesHarnessAndSystemOptionsTogether()
    {
        final SystemOptions system = new SystemOptions();
        final CommandLine commandLine = ClientMain.commandLine(system, options -> null);

        commandLine.parseArgs("--variant", "blocking", "--sizes", "32,4096", "--pp-count", "100_000", "--port=7");

        final ClientMain.Workloads workloads = commandLine.getCommand();
        assertThat(workloads.sizes).containsExactly(32, 4096);
        assertThat(workloads.ppCount).isEqualTo(100_000);
        assertThat(workloads.workloads).isEqualTo(List.of("pingpong", "oneway", "reqresp"));
        assertThat(system.variant).isEqualTo("blocking");
        assertThat(system.port).isEqualTo(7);
    }

    /** A system's options, as a benchmark module declares them. */
    @Command(name = "TestSystem")
    static final class SystemOptions
    {
        @Option(names = "--variant", defaultValue = "busy")
        String variant;

        @Option(names = "--port", defaultValue = "0")
        int port;
    }
}
