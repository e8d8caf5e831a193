package io.rivulet.tools;

import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

import java.util.List;
import java.util.concurrent.Callable;

/** {@code rivulet demo}: runs {@link io.rivulet.samples.Demo} with the remaining arguments. */
@Command(name = "demo",
    description = "The guided demo, two nodes and every interaction model (the samples' Demo; --help for its options).")
final class DemoCommand implements Callable<Integer>
{
    /** Everything after the command name, options included, for the sample to parse. */
    @Unmatched
    List<String> args;

    @Override
    public Integer call() throws Exception
    {
        return SampleLauncher.run(io.rivulet.samples.Demo::main, args);
    }
}
