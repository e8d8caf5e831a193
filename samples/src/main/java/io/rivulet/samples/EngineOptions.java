package io.rivulet.samples;

import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.Transports;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.Locale;

/**
 * The engine options the samples share ({@code --transport}, {@code --threading}, {@code --idle}), a picocli
 * mixin. What is not given falls back to the {@code rivulet.*} system properties and then the defaults.
 */
public final class EngineOptions
{
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--transport", paramLabel = "NAME",
        description = "transport to use (default: rivulet.transport, else tcp); rdma uses the soft provider when no " +
            "RDMA device is present")
    String transport;

    @Option(names = "--threading", paramLabel = "MODE",
        description = "engine threads per node: SHARED (1, the default) or DEDICATED (2)")
    String threading;

    @Option(names = "--idle", paramLabel = "STRATEGY",
        description = "engine idle strategy: backoff (default), busy, yield, sleep, noop; busy gives the lowest " +
            "latency at the cost of a spinning core")
    String idle;

    /**
     * Builds a node context from these options.
     *
     * @return a context to launch with.
     * @throws ParameterException naming the option when one does not parse, or a rivulet.* property does not.
     */
    public Rivulet.Context context()
    {
        final Rivulet.Context context;
        try
        {
            context = new Rivulet.Context();
        }
        catch (final RuntimeException ex)
        {
            // A rivulet.* system property that does not parse.
            throw usageError("bad configuration: " + ex.getMessage());
        }
        if (transport != null)
        {
            try
            {
                context.transport(Transports.byName(transport));
            }
            catch (final IllegalArgumentException ex)
            {
                throw usageError("--transport: " + ex.getMessage());
            }
        }
        if (threading != null)
        {
            try
            {
                context.threadingMode(ThreadingMode.valueOf(threading.toUpperCase(Locale.ROOT)));
            }
            catch (final IllegalArgumentException ex)
            {
                throw usageError("--threading must be DEDICATED or SHARED, got '" + threading + "'");
            }
        }
        if (context.threadingMode() == ThreadingMode.INVOKER)
        {
            // The samples block on the main thread, so nothing would drive an invoker-mode engine.
            throw usageError("threading mode INVOKER needs an application-driven duty cycle; the samples " +
                "support DEDICATED and SHARED");
        }
        if (idle != null)
        {
            // An unknown name is reported when the node launches, as a ConfigurationException.
            context.idleStrategy(idle);
        }
        return context;
    }

    /**
     * @param message what is wrong.
     * @return an exception for the command using these options, to throw.
     */
    public ParameterException usageError(final String message)
    {
        return new ParameterException(mixee.commandLine(), message);
    }
}
