package io.rivulet.tools;

import io.rivulet.transport.rdma.VerbsProviders;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code rivulet devices}: the RDMA devices the kernel exposes, and for each verbs provider whether it can run
 * here and, when not, why (what is missing and how to fix it).
 */
@Command(name = "devices", mixinStandardHelpOptions = true,
    description = "List RDMA devices and verbs providers, and why a provider is unavailable.")
final class DevicesCommand implements Callable<Integer>
{
    /** Where Linux lists RDMA devices (one directory per device). */
    static final Path SYS_CLASS_INFINIBAND = Path.of("/sys/class/infiniband");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--sysfs", paramLabel = "DIR", hidden = true,
        description = "directory listing RDMA devices (tests point it elsewhere)")
    Path sysfs = SYS_CLASS_INFINIBAND;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final List<String> devices = devices(sysfs);
        if (devices.isEmpty())
        {
            out.println("RDMA devices: none (" + sysfs + " " + (Files.isDirectory(sysfs) ? "is empty" : "does not exist") +
                "): no RDMA NIC or soft-RoCE (rxe) device on this machine");
        }
        else
        {
            out.println("RDMA devices: " + String.join(", ", devices) + " (from " + sysfs + ")");
        }
        out.println("verbs providers:");
        int available = 0;
        for (final VerbsProvider provider : VerbsProviders.all())
        {
            final VerbsProvider.Availability availability = provider.availability();
            out.println("  " + provider.name() + ": " + (availability.available() ? "available" : "unavailable") +
                " - " + availability.reason());
            available += availability.available() ? 1 : 0;
        }
        // the reasons are on the lines above; auto takes the first available of ibverbs, disni, soft
        out.println("auto picks: " + VerbsProviders.chooseAuto().provider().name() + " (the first available of " +
            String.join(", ", VerbsProviders.IBVERBS, VerbsProviders.DISNI, VerbsProviders.SOFT) + ")");
        out.flush();
        return available > 0 ? 0 : 1;
    }

    private static List<String> devices(final Path sysfs)
    {
        if (!Files.isDirectory(sysfs))
        {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(sysfs))
        {
            return entries.map(path -> path.getFileName().toString()).sorted().collect(Collectors.toList());
        }
        catch (final IOException ex)
        {
            return List.of();
        }
    }
}
