package io.rivulet.tools;

import io.rivulet.ConfigurationException;
import io.rivulet.Rivulet;
import io.rivulet.Transports;
import picocli.CommandLine.Option;

/** Options every command that starts a node shares: transport and node name. */
final class NodeOptions
{
    @Option(names = "--transport", paramLabel = "NAME", defaultValue = "tcp",
        description = "tcp or rdma (default ${DEFAULT-VALUE}; rdma uses rivulet.rdma.provider, auto by default)")
    String transport;

    @Option(names = "--node-name", paramLabel = "NAME",
        description = "the node's name in its node file, as rivulet stat shows it")
    String nodeName;

    @Option(names = "--counters-dir", paramLabel = "DIR",
        description = "where the node file goes (default: rivulet.countersDir, else /dev/shm/rivulet-<user>, or under java.io.tmpdir)")
    String countersDirectory;

    /** @return a context for a node with these options; other settings come from rivulet.* properties. */
    Rivulet.Context context()
    {
        final Rivulet.Context context = new Rivulet.Context();
        try
        {
            context.transport(Transports.byName(transport));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigurationException(ex.getMessage());
        }
        if (nodeName != null)
        {
            context.nodeName(nodeName);
        }
        if (countersDirectory != null)
        {
            context.countersDirectory(countersDirectory);
        }
        return context;
    }
}
