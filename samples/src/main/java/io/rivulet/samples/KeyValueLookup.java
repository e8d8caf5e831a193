package io.rivulet.samples;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.region.ExposedRegion;
import io.rivulet.region.RegionAccess;
import io.rivulet.region.RemoteRegion;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import reactor.core.publisher.Mono;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A remote key-value lookup in the style of FaRM: the server keeps a hash table in a region it exposes read-only;
 * clients find values by reading the table's buckets with one-sided reads, so the server's application (and, over
 * RDMA, its CPU) does nothing for a lookup. Over TCP the server's engine serves the reads instead.
 *
 * <pre>
 *   region "kv.table" = header (64 bytes) + buckets of 64 bytes, open addressing with linear probing
 *   header   magic i64 | bucket count i32 | entries i32
 *   bucket   hash i64 (0 = empty) | key length u16 | value length u16 | key (24 bytes) | value (28 bytes)
 * </pre>
 *
 * <p>A client reads the header once, then for a batch of keys reads every key's home bucket in one
 * {@link RemoteRegion#readBatch} (all in flight together) and follows probe chains with further reads.
 * Exits 0 when every lookup returned what the server stored.
 */
@Command(name = "rivulet-demo kv", mixinStandardHelpOptions = true, versionProvider = SampleCli.Version.class,
    description = "A remote key-value lookup: the server exposes a hash table as a read-only region and the client " +
        "finds values with one-sided reads of its buckets (RDMA: the server's CPU does nothing; TCP: its engine " +
        "serves the reads). Both nodes run in this JVM.")
public final class KeyValueLookup implements Callable<Integer>
{
    static final long MAGIC = 0x5249_564B_5654_424CL; // "RIVKVTBL"
    static final int HEADER = 64;
    static final int BUCKET = 64;
    static final int KEY_OFFSET = 12;
    static final int MAX_KEY = 24;
    static final int VALUE_OFFSET = KEY_OFFSET + MAX_KEY;
    static final int MAX_VALUE = BUCKET - VALUE_OFFSET;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final PrintStream out = System.out;

    @Spec
    CommandSpec spec;

    @Mixin
    EngineOptions engine;

    @Option(names = "--entries", paramLabel = "N", defaultValue = "2000",
        description = "keys the server stores (default ${DEFAULT-VALUE})")
    int entries;

    @Option(names = "--lookups", paramLabel = "N", defaultValue = "10000",
        description = "lookups the client makes, a tenth of them for absent keys (default ${DEFAULT-VALUE})")
    int lookups;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "32",
        description = "keys looked up per batch of one-sided reads (default ${DEFAULT-VALUE})")
    int batch;

    /** Runs the sample with the command line's options and exits with its code. */
    public static void main(final String[] argv)
    {
        System.exit(SampleCli.execute(new KeyValueLookup(), argv));
    }

    /** @return 0 when every lookup returned what the server stored; a failed step exits 1 itself. */
    @Override
    public Integer call()
    {
        SampleCli.checkRange(spec, "--entries", entries, 1, 1_000_000);
        SampleCli.checkRange(spec, "--lookups", lookups, 1, 10_000_000);
        SampleCli.checkRange(spec, "--batch", batch, 1, 1024);
        engine.context(); // reports a bad option or rivulet.* property before anything starts
        run();
        return 0;
    }

    private void run()
    {
        final List<String> errors = new CopyOnWriteArrayList<>();
        final DemoSteps steps = new DemoSteps("KV DEMO", out, errors, "the engines");
        steps.startWatchdog(TimeUnit.MINUTES.toMillis(5));
        final AtomicLong handlerCalls = new AtomicLong();
        final long startNs = System.nanoTime();
        try (Rivulet server = Rivulet.launch(engine.context().errorHandler(e -> errors.add(String.valueOf(e))));
             Rivulet client = Rivulet.launch(engine.context().errorHandler(e -> errors.add(String.valueOf(e)))))
        {
            out.println("Remote key-value lookup over " + server.context().transport().name() +
                " (two nodes in this JVM)");
            final int buckets = Integer.highestOneBit(Math.max(16, entries * 2 - 1)) << 1; // load factor <= 0.5
            final ExposedRegion[] table = new ExposedRegion[1];
            final Connection[] connection = new Connection[1];
            final RemoteRegion[] remote = new RemoteRegion[1];

            steps.step("1. The server fills a hash table and exposes it read-only", () ->
            {
                table[0] = server.exposeRegion("kv.table", HEADER + buckets * BUCKET, RegionAccess.READ);
                final MutableDirectBuffer memory = table[0].buffer();
                for (int i = 0; i < entries; i++)
                {
                    put(memory, buckets, key(i), value(i));
                }
                memory.putInt(8, buckets);
                memory.putInt(12, entries);
                table[0].buffer().putLongVolatile(0, MAGIC); // last: a reader that sees the magic sees the table
                out.printf("   region kv.table: %,d bytes, %,d buckets of %d bytes, %,d entries%n",
                    table[0].length(), buckets, BUCKET, entries);
            });

            steps.step("2. The client looks the region up over the connection", () ->
            {
                final Server bound = server.bind("127.0.0.1:0", Responder.builder()
                    .requestResponse(request ->
                    {
                        handlerCalls.incrementAndGet();
                        return Mono.just(Message.of("unused"));
                    }).build()).block(TIMEOUT);
                connection[0] = client.connect(bound.localAddress()).block(TIMEOUT);
                remote[0] = connection[0].remoteRegion("kv.table").block(TIMEOUT);
                final DirectBuffer header = remote[0].read(0, HEADER).block(TIMEOUT);
                DemoSteps.check(header.getLong(0) == MAGIC, "the table's header does not carry the magic number");
                DemoSteps.check(header.getInt(8) == buckets, "the header names " + header.getInt(8) + " buckets");
                out.printf("   %s: rkey 0x%08x, %s, %s%n", remote[0].name(), remote[0].descriptor().rkey(),
                    remote[0].access(), remote[0].isOneSided() ? "one-sided reads (RDMA)" :
                    "reads emulated by the server's engine (TCP: the server's CPU serves them)");
            });

            steps.step("3. Lookups with one-sided reads, " + batch + " keys per batch", () ->
            {
                final long emulatedBefore = server.counters().regionOpsEmulated.get();
                long reads = 0;
                int hits = 0;
                int misses = 0;
                final long lookupStartNs = System.nanoTime();
                for (int done = 0; done < lookups; done += batch)
                {
                    final int n = Math.min(batch, lookups - done);
                    final String[] keys = new String[n];
                    final boolean[] present = new boolean[n];
                    for (int i = 0; i < n; i++)
                    {
                        final int k = (int)(((done + i) * 2_654_435_761L) % (entries + entries / 9 + 1));
                        keys[i] = key(k);
                        present[i] = k < entries;
                    }
                    final Lookup result = lookupBatch(remote[0], buckets, keys);
                    reads += result.reads;
                    for (int i = 0; i < n; i++)
                    {
                        final String expected = present[i] ? value(Integer.parseInt(keys[i].substring(5))) : null;
                        DemoSteps.check(java.util.Objects.equals(result.values[i], expected),
                            "lookup of " + keys[i] + " returned " + result.values[i] + ", expected " + expected);
                        if (expected != null)
                        {
                            hits++;
                        }
                        else
                        {
                            misses++;
                        }
                    }
                }
                final double seconds = (System.nanoTime() - lookupStartNs) / 1e9;
                out.printf("   %,d lookups (%,d found, %,d absent) in %.2f s: %,.0f lookups/s%n", lookups, hits, misses,
                    seconds, lookups / seconds);
                out.printf("   %,d reads of %d-byte buckets, %.2f per lookup (linear probing, chains followed batch by batch)%n", reads,
                    BUCKET, (double)reads / lookups);
                out.printf("   server application handlers called: %d; server engine operations applied: %,d%n",
                    handlerCalls.get(), server.counters().regionOpsEmulated.get() - emulatedBefore);
                out.printf("   client one-sided operations posted: %,d%n", client.counters().regionOpsPosted.get());
                DemoSteps.check(handlerCalls.get() == 0, "the server's application ran for a lookup");
            });

            steps.step("4. The server updates a value in place; the client's next read sees it", () ->
            {
                final String key = key(7);
                final int bucket = find(table[0].buffer(), buckets, key);
                putValue(table[0].buffer(), bucket, "updated by the server");
                final Lookup result = lookupBatch(remote[0], buckets, new String[] { key });
                out.println("   " + key + " -> " + result.values[0]);
                DemoSteps.check("updated by the server".equals(result.values[0]), "the update is not visible");
            });

            steps.step("5. The server revokes the region; the client is told and refused", () ->
            {
                table[0].revoke();
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!remote[0].isRevoked() && System.nanoTime() < deadline)
                {
                    Thread.sleep(1);
                }
                DemoSteps.check(remote[0].isRevoked(), "no revocation notice arrived");
                try
                {
                    remote[0].read(0, HEADER).block(TIMEOUT);
                    throw new IllegalStateException("a read of a revoked region succeeded");
                }
                catch (final io.rivulet.region.RegionAccessException expected)
                {
                    out.println("   read after revoke: " + expected.reason() + " - " + expected.getMessage());
                }
                DemoSteps.check(connection[0].isOpen(), "the connection closed");
            });
            DemoSteps.check(errors.isEmpty(), "engine errors: " + errors);
        }
        out.println();
        out.printf("KV demo passed: %d steps in %.1f s.%n", 5, (System.nanoTime() - startNs) / 1e9);
    }

    /** What a batch of lookups found: the values (null when absent) and the reads it took. */
    private record Lookup(String[] values, long reads)
    {
    }

    /**
     * Reads every key's home bucket in one batch (all reads in flight together), then the next bucket of every key
     * whose probe chain goes on, again as one batch, until every key is found or meets an empty bucket.
     */
    static Lookup lookupBatch(final RemoteRegion region, final int buckets, final String[] keys)
    {
        final int n = keys.length;
        final String[] values = new String[n];
        final int[] bucket = new int[n];
        final long[] hashes = new long[n];
        int[] open = new int[n];
        for (int i = 0; i < n; i++)
        {
            hashes[i] = hash(keys[i]);
            bucket[i] = home(hashes[i], buckets);
            open[i] = i;
        }
        int openCount = n;
        long reads = 0;
        for (int probe = 0; probe < buckets && openCount > 0; probe++)
        {
            final long[] offsets = new long[openCount];
            for (int j = 0; j < openCount; j++)
            {
                offsets[j] = HEADER + (long)bucket[open[j]] * BUCKET;
            }
            final List<DirectBuffer> read = region.readBatch(offsets, BUCKET).block(TIMEOUT);
            reads += openCount;
            final int[] next = new int[openCount];
            int nextCount = 0;
            for (int j = 0; j < openCount; j++)
            {
                final int i = open[j];
                final DirectBuffer current = read.get(j);
                final long stored = current.getLong(0);
                if (stored == 0)
                {
                    continue; // an empty bucket ends the chain: absent
                }
                if (stored == hashes[i] && keyOf(current).equals(keys[i]))
                {
                    values[i] = valueOf(current);
                    continue;
                }
                bucket[i] = (bucket[i] + 1) & (buckets - 1);
                next[nextCount++] = i;
            }
            open = next;
            openCount = nextCount;
        }
        return new Lookup(values, reads);
    }

    static void put(final MutableDirectBuffer memory, final int buckets, final String key, final String value)
    {
        final long hash = hash(key);
        int bucket = home(hash, buckets);
        while (memory.getLong(HEADER + bucket * BUCKET) != 0)
        {
            bucket = (bucket + 1) & (buckets - 1);
        }
        final int at = HEADER + bucket * BUCKET;
        final byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        memory.putShort(at + 8, (short)keyBytes.length);
        memory.putBytes(at + KEY_OFFSET, keyBytes);
        putValue(memory, bucket, value);
        memory.putLong(at, hash);
    }

    static void putValue(final MutableDirectBuffer memory, final int bucket, final String value)
    {
        final int at = HEADER + bucket * BUCKET;
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        memory.putShort(at + 10, (short)bytes.length);
        memory.putBytes(at + VALUE_OFFSET, bytes);
    }

    static int find(final DirectBuffer memory, final int buckets, final String key)
    {
        final long hash = hash(key);
        int bucket = home(hash, buckets);
        while (memory.getLong(HEADER + bucket * BUCKET) != hash)
        {
            bucket = (bucket + 1) & (buckets - 1);
        }
        return bucket;
    }

    static String key(final int i)
    {
        return String.format("user:%05d", i);
    }

    static String value(final int i)
    {
        return "name-" + Integer.toHexString(i * 7919) + "-" + (i % 97);
    }

    /** A 64-bit hash that is never 0 (0 marks an empty bucket). */
    static long hash(final String key)
    {
        long h = 0xcbf2_9ce4_8422_2325L;
        for (int i = 0; i < key.length(); i++)
        {
            h ^= key.charAt(i);
            h *= 0x1000_0000_01b3L;
        }
        return h | 1;
    }

    private static int home(final long hash, final int buckets)
    {
        return (int)((hash ^ (hash >>> 32)) & (buckets - 1));
    }

    private static String keyOf(final DirectBuffer bucket)
    {
        final int length = Math.min(MAX_KEY, bucket.getShort(8) & 0xFFFF);
        return bucket.getStringWithoutLengthUtf8(KEY_OFFSET, length);
    }

    private static String valueOf(final DirectBuffer bucket)
    {
        final int length = Math.min(MAX_VALUE, bucket.getShort(10) & 0xFFFF);
        return bucket.getStringWithoutLengthUtf8(VALUE_OFFSET, length);
    }
}
