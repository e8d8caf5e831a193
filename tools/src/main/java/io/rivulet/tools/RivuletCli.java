package io.rivulet.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code rivulet} command line: watch a running node's counters and errors ({@code stat}), see which RDMA
 * providers and devices this machine has ({@code devices}), and run the samples ({@code ping}, {@code pong},
 * {@code demo}) or a topic publisher and subscriber ({@code publish}, {@code subscribe}).
 */
@Command(
    name = "rivulet",
    mixinStandardHelpOptions = true,
    versionProvider = RivuletCli.Version.class,
    description = "Observe and exercise Rivulet nodes.",
    subcommands = {
        StatCommand.class,
        DevicesCommand.class,
        PingCommand.class,
        PongCommand.class,
        DemoCommand.class,
        PublishCommand.class,
        SubscribeCommand.class,
        CommandLine.HelpCommand.class
    })
public final class RivuletCli implements Runnable
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits with its code. */
    public static void main(final String[] args)
    {
        System.exit(commandLine().execute(args));
    }

    /** @return the command line, for tests that run a command in this JVM and capture its output. */
    public static CommandLine commandLine()
    {
        return new CommandLine(new RivuletCli());
    }

    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command: stat, devices, ping, pong, " +
            "demo, publish, subscribe (rivulet help COMMAND for its options)");
    }

    /** The version from the jar's manifest, or "development" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            final String version = RivuletCli.class.getPackage().getImplementationVersion();
            return new String[]{"rivulet " + (version == null ? "development" : version)};
        }
    }
}
