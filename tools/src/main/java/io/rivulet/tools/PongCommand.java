package io.rivulet.tools;

import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

import java.util.List;
import java.util.concurrent.Callable;

/** {@code rivulet pong}: runs {@link io.rivulet.samples.Pong} with the remaining arguments. */
@Command(name = "pong", description = "An echo server for ping (the samples' Pong; --help for its options).")
final class PongCommand implements Callable<Integer>
{
    /** Everything after the command name, options included, for the sample to parse. */
    @Unmatched
    List<String> args;

    @Override
    public Integer call() throws Exception
    {
        return SampleLauncher.run(io.rivulet.samples.Pong::main, args);
    }
}
