package io.rivulet.bench.rivulet;

import io.rivulet.Transports;
import io.rivulet.bench.harness.Line;

/**
 * Says whether a transport is on the class path: prints {@code INFO available=true|false reason=...}.
 * The coordinator runs it before the rows that need the RDMA transport, and reports them as skipped when
 * it is not there, rather than inventing numbers.
 */
public final class RivuletProbe
{
    private RivuletProbe()
    {
    }

    public static void main(final String[] argv)
    {
        final String name = argv.length > 0 ? argv[0] : "rdma";
        try
        {
            Transports.byName(name);
            Line.of(Line.INFO, "available", true, "reason", "transport '" + name + "' found").print(System.out);
        }
        catch (final RuntimeException | LinkageError ex)
        {
            Line.of(Line.INFO, "available", false, "reason", String.valueOf(ex.getMessage())).print(System.out);
        }
    }
}
