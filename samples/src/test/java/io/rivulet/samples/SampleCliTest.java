package io.rivulet.samples;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** The samples' command lines reject what they do not understand, naming it, before anything starts. */
class SampleCliTest
{
    @Test
    void unknownOptionExitsWithUsageCodeAndNamesIt()
    {
        final Run run = Run.of(new Ping(), "--count", "10", "--bogus", "1");

        assertThat(run.exitCode).isEqualTo(SampleCli.USAGE_EXIT_CODE).isNotZero();
        assertThat(run.err).contains("--bogus").contains("Usage: rivulet-demo ping");
    }

    @Test
    void badNumberExitsWithUsageCodeAndNamesTheOption()
    {
        final Run run = Run.of(new Pong(), "--port", "seven");

        assertThat(run.exitCode).isEqualTo(SampleCli.USAGE_EXIT_CODE);
        assertThat(run.err).contains("--port").contains("'seven'");
    }

    @Test
    void valueOutOfRangeExitsWithUsageCodeAndNamesTheOption()
    {
        final Run run = Run.of(new Demo(), "--round-trips", "0");

        assertThat(run.exitCode).isEqualTo(SampleCli.USAGE_EXIT_CODE);
        assertThat(run.err).contains("--round-trips must be within [1, 10000000], got 0");
    }

    @Test
    void badEngineOptionExitsWithUsageCodeAndNamesIt()
    {
        final Run run = Run.of(new KeyValueLookup(), "--threading", "SOMETIMES");

        assertThat(run.exitCode).isEqualTo(SampleCli.USAGE_EXIT_CODE);
        assertThat(run.err).contains("--threading").contains("SOMETIMES");
    }

    @Test
    void numbersMayBeWrittenWithUnderscores()
    {
        final SequenceGenerator sequence = new SequenceGenerator();
        SampleCli.commandLine(sequence).parseArgs("--ids", "20_000");

        assertThat(sequence.ids).isEqualTo(20_000);
        assertThat(sequence.block).isEqualTo(100);
    }

    @Test
    void helpExitsZeroAndShowsDefaults()
    {
        final Run run = Run.of(new Ping(), "--help");

        assertThat(run.exitCode).isZero();
        assertThat(run.out).contains("--count=N").contains("(default 100000)").contains("(default 7070)");
    }

    /** One in-process run of a command line: exit code and what it printed. */
    private record Run(int exitCode, String out, String err)
    {
        static Run of(final Object command, final String... args)
        {
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            final CommandLine commandLine = SampleCli.commandLine(command);
            commandLine.setOut(new PrintWriter(out, true));
            commandLine.setErr(new PrintWriter(err, true));
            final int exitCode = commandLine.execute(args);
            return new Run(exitCode, out.toString(), err.toString());
        }
    }
}
