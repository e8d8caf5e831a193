package io.rivulet.tools;

import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

import java.util.List;
import java.util.concurrent.Callable;

/** {@code rivulet ping}: runs {@link io.rivulet.samples.Ping} with the remaining arguments. */
@Command(name = "ping", description = "Round-trip latency against a running pong (the samples' Ping; --help for its options).")
final class PingCommand implements Callable<Integer>
{
    /** Everything after the command name, options included, for the sample to parse. */
    @Unmatched
    List<String> args;

    @Override
    public Integer call() throws Exception
    {
        return SampleLauncher.run(io.rivulet.samples.Ping::main, args);
    }
}
