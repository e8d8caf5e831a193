package io.rivulet.samples;

import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.Responder;
import io.rivulet.region.ExposedRegion;
import io.rivulet.region.RegionAccess;
import io.rivulet.region.RemoteRegion;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import reactor.core.publisher.Flux;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A distributed sequence generator: one node exposes an 8-byte counter with atomic access only, and client nodes
 * take ids with remote fetch-and-add, one at a time or in blocks. Every id is handed out exactly once, with no
 * server code in the path (RDMA: the NIC does the add; TCP: the server's engine does).
 *
 * <p>Exits 0 when the ids taken are exactly 0 .. n-1, each once, and the counter holds n.
 */
@Command(name = "rivulet-demo sequence", mixinStandardHelpOptions = true,
    versionProvider = SampleCli.Version.class,
    description = "A distributed sequence generator: client nodes take ids from a counter on a server node with " +
        "remote fetch-and-add (RDMA: one-sided, the server's CPU does nothing; TCP: the server's engine applies " +
        "them). Checks that every id was handed out exactly once. All nodes run in this JVM.")
public final class SequenceGenerator implements Callable<Integer>
{
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private final PrintStream out = System.out;

    @Spec
    CommandSpec spec;

    @Mixin
    EngineOptions engine;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "2",
        description = "client nodes (default ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "2",
        description = "threads per client node (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--ids", paramLabel = "N", defaultValue = "10000",
        description = "ids each thread takes one at a time (default ${DEFAULT-VALUE})")
    int ids;

    @Option(names = "--block", paramLabel = "N", defaultValue = "100",
        description = "ids per block in the block-reservation step (default ${DEFAULT-VALUE})")
    int block;

    /** Runs the sample with the command line's options and exits with its code. */
    public static void main(final String[] argv)
    {
        System.exit(SampleCli.execute(new SequenceGenerator(), argv));
    }

    /** @return 0 when every id was handed out exactly once; a failed step exits 1 itself. */
    @Override
    public Integer call() throws Exception
    {
        SampleCli.checkRange(spec, "--clients", clients, 1, 16);
        SampleCli.checkRange(spec, "--threads", threads, 1, 32);
        SampleCli.checkRange(spec, "--ids", ids, 1, 1_000_000);
        SampleCli.checkRange(spec, "--block", block, 1, 1_000_000);
        engine.context(); // reports a bad option or rivulet.* property before anything starts
        run();
        return 0;
    }

    private void run() throws Exception
    {
        final List<String> errors = new CopyOnWriteArrayList<>();
        final DemoSteps steps = new DemoSteps("SEQUENCE DEMO", out, errors, "the engines");
        steps.startWatchdog(TimeUnit.MINUTES.toMillis(5));
        final long startNs = System.nanoTime();
        final List<Rivulet> nodes = new ArrayList<>();
        final ExecutorService pool = Executors.newFixedThreadPool(clients * threads);
        try
        {
            final Rivulet server = launch(errors, nodes);
            out.println("Distributed sequence generator over " + server.context().transport().name() + ": " +
                clients + " client nodes x " + threads + " threads, all in this JVM");
            final ExposedRegion counter = server.exposeRegion("sequence", 8, RegionAccess.ATOMIC);
            final Server bound = server.bind("127.0.0.1:0", Responder.none()).block(TIMEOUT);
            final List<RemoteRegion> regions = new ArrayList<>();
            for (int c = 0; c < clients; c++)
            {
                regions.add(launch(errors, nodes).connect(bound.localAddress()).block(TIMEOUT)
                    .remoteRegion("sequence").block(TIMEOUT));
            }
            out.println("   counter: region 'sequence', 8 bytes, " + regions.get(0).access() + ", " +
                (regions.get(0).isOneSided() ? "one-sided fetch-and-add (RDMA)" :
                "fetch-and-add applied by the server's engine (TCP: the server's CPU does it)"));
            final BitSet taken = new BitSet();
            final long[] total = { 0 };

            steps.step("1. Every thread takes " + ids + " ids, one fetch-and-add each (up to 16 in flight)", () ->
            {
                final long stepNs = System.nanoTime();
                final List<Future<List<Long>>> results = new ArrayList<>();
                for (final RemoteRegion region : regions)
                {
                    for (int t = 0; t < threads; t++)
                    {
                        results.add(pool.submit(() -> Flux.range(0, ids).flatMap(i -> region.fetchAndAdd(0, 1), 16)
                            .collectList().block(TIMEOUT)));
                    }
                }
                for (final Future<List<Long>> result : results)
                {
                    for (final long id : result.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                    {
                        DemoSteps.check(!taken.get((int)id), "id " + id + " handed out twice");
                        taken.set((int)id);
                        total[0]++;
                    }
                }
                final double seconds = (System.nanoTime() - stepNs) / 1e9;
                out.printf("   %,d ids in %.2f s: %,.0f ids/s; distinct: %,d; lowest %d, highest %,d%n", total[0],
                    seconds, total[0] / seconds, taken.cardinality(), taken.nextSetBit(0), taken.length() - 1);
                DemoSteps.check(taken.cardinality() == total[0] && taken.length() == total[0],
                    "the ids are not exactly 0 .. " + (total[0] - 1));
            });

            steps.step("2. Block reservation: one fetch-and-add of " + block + " reserves " + block + " ids", () ->
            {
                final long first = regions.get(0).fetchAndAdd(0, block).block(TIMEOUT);
                final long next = regions.get(regions.size() - 1).fetchAndAdd(0, 1).block(TIMEOUT);
                out.printf("   client 1 reserved ids %,d .. %,d; the next client's id is %,d%n", first,
                    first + block - 1, next);
                DemoSteps.check(first == total[0] && next == first + block, "the block overlaps other ids");
                total[0] += block + 1;
            });

            steps.step("3. The server's own view of the counter", () ->
            {
                final long value = counter.buffer().getLongVolatile(0);
                out.printf("   counter = %,d; server engine operations applied: %,d; client one-sided posts: %,d%n",
                    value, server.counters().regionOpsEmulated.get(), postedByClients(nodes));
                DemoSteps.check(value == total[0], "the counter holds " + value + ", expected " + total[0]);
            });
            DemoSteps.check(errors.isEmpty(), "engine errors: " + errors);
        }
        finally
        {
            pool.shutdownNow();
            for (int i = nodes.size() - 1; i >= 0; i--)
            {
                nodes.get(i).close();
            }
        }
        out.println();
        out.printf("Sequence demo passed: %d steps in %.1f s.%n", steps.passed(), (System.nanoTime() - startNs) / 1e9);
    }

    private static long postedByClients(final List<Rivulet> nodes)
    {
        long posted = 0;
        for (int i = 1; i < nodes.size(); i++)
        {
            posted += nodes.get(i).counters().regionOpsPosted.get();
        }
        return posted;
    }

    private Rivulet launch(final List<String> errors, final List<Rivulet> nodes)
    {
        final Rivulet node = Rivulet.launch(engine.context().errorHandler(e -> errors.add(String.valueOf(e))));
        nodes.add(node);
        return node;
    }
}
