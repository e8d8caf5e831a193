package io.rivulet.region;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import io.rivulet.spi.Transport;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One-sided remote memory between nodes over a transport, run by each transport module through a subclass (like
 * the transport compatibility suite): byte-exact round trips across a whole region, exact fetch-and-add from two
 * nodes of four threads each, a compare-and-swap spin lock, every refusal with the region's bytes unchanged and
 * the connection still serving, and the counters that show who did the work. Nodes run SHARED with the default
 * back-off idle strategy, as on a 2-core machine.
 */
public abstract class RemoteRegionSuite
{
    private static final Duration TIMEOUT = TestTime.seconds(60);

    /** Application handler invocations on the target: region operations must never reach them. */
    private final AtomicInteger handlerCalls = new AtomicInteger();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();

    /** @return the transport under test. */
    protected abstract Transport transport();

    /** @return true when the transport reaches the target's memory one-sided (its engine applies nothing). */
    protected abstract boolean oneSided();

    /** @return where target nodes listen: loopback with an ephemeral port unless the transport needs another. */
    protected String bindAddress()
    {
        return "127.0.0.1:0";
    }

    /**
     * @return what a refusal by the target itself (not the local checks) reports: the NIC's REMOTE_ACCESS over
     * RDMA, or the engine's precise reason over TCP.
     */
    protected RegionAccessException.Reason targetRefusal(final RegionAccessException.Reason engineReason)
    {
        return oneSided() ? RegionAccessException.Reason.REMOTE_ACCESS : engineReason;
    }

    @AfterEach
    void closeNodes()
    {
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(120)
    void shouldRoundTripBytesAtOffsetsAcrossTheWholeRegion()
    {
        final int length = 256 * 1024;
        final Rivulet target = launch();
        final ExposedRegion exposed = target.exposeRegion("round-trip", length, RegionAccess.READ, RegionAccess.WRITE);
        final Connection connection = connect(launch(), bind(target));
        final RemoteRegion region = connection.remoteRegion("round-trip").block(TIMEOUT);
        assertThat(region.length()).isEqualTo(length);
        assertThat(region.isOneSided()).isEqualTo(oneSided());

        // Writes of many sizes, from 1 byte to 40 KiB (more than one frame or path operation), tiling the region.
        final SplittableRandom random = new SplittableRandom(42);
        final byte[] expected = new byte[length];
        int offset = 0;
        int writes = 0;
        while (offset < length)
        {
            final int size = Math.min(length - offset, 1 + random.nextInt(writes % 7 == 0 ? 40 * 1024 : 300));
            final byte[] bytes = new byte[size];
            random.nextBytes(bytes);
            System.arraycopy(bytes, 0, expected, offset, size);
            region.write(offset, bytes).block(TIMEOUT);
            offset += size;
            writes++;
        }
        final byte[] local = new byte[length];
        exposed.buffer().getBytes(0, local);
        assertThat(local).as("the target's memory after %d writes", writes).isEqualTo(expected);

        // Read back: the whole region at once, then slices at offsets across it, then a batch of small lookups.
        assertThat(bytes(region.read(0, length).block(TIMEOUT))).isEqualTo(expected);
        for (int i = 0; i < 200; i++)
        {
            final int at = random.nextInt(length);
            final int size = 1 + random.nextInt(Math.min(length - at, 20_000));
            assertThat(bytes(region.read(at, size).block(TIMEOUT))).as("read %d+%d", at, size)
                .isEqualTo(Arrays.copyOfRange(expected, at, at + size));
        }
        assertThat(bytes(region.read(length - 1, 1).block(TIMEOUT))).containsExactly(expected[length - 1]);
        final long[] offsets = { 0, 64, 4096, length - 64, 12_345 };
        final List<DirectBuffer> batch = region.readBatch(offsets, 64).block(TIMEOUT);
        assertThat(batch).hasSize(offsets.length);
        for (int i = 0; i < offsets.length; i++)
        {
            assertThat(bytes(batch.get(i))).isEqualTo(Arrays.copyOfRange(expected, (int)offsets[i], (int)offsets[i] + 64));
        }
        assertWorkDoneBy(target, writes + 206);
    }

    @Test
    @ScaledTimeout(300)
    void shouldCountExactlyWhenTwoNodesOfFourThreadsFetchAndAddOneRemoteWord() throws Exception
    {
        final int nodesCount = 2;
        final int threads = 4;
        final int perThread = 100_000;
        final int localAdds = 50_000;
        final Rivulet target = launch();
        final ExposedRegion exposed = target.exposeRegion("sequence", 64, RegionAccess.ATOMIC, RegionAccess.READ);
        final String address = bind(target);
        final List<RemoteRegion> regions = new ArrayList<>();
        for (int n = 0; n < nodesCount; n++)
        {
            regions.add(connect(launch(), address).remoteRegion("sequence").block(TIMEOUT));
        }

        // Each thread keeps up to 16 of its own in flight; every previous value must be handed out exactly once.
        final BitSet seen = new BitSet();
        final ExecutorService pool = Executors.newFixedThreadPool(nodesCount * threads + 1);
        try
        {
            final List<Future<long[]>> results = new ArrayList<>();
            for (int n = 0; n < nodesCount; n++)
            {
                final RemoteRegion region = regions.get(n);
                for (int t = 0; t < threads; t++)
                {
                    results.add(pool.submit(() -> Flux.range(0, perThread)
                        .flatMap(i -> region.fetchAndAdd(8, 1), 16)
                        .collectList()
                        .map(list -> list.stream().mapToLong(Long::longValue).toArray())
                        .block(TestTime.seconds(240))));
                }
            }
            // The target's own application adds locally at the same time, to the same word.
            final Future<?> local = pool.submit(() ->
            {
                for (int i = 0; i < localAdds; i++)
                {
                    exposed.buffer().getAndAddLong(8, 1);
                }
            });
            local.get(TestTime.millis(240, TimeUnit.SECONDS), TimeUnit.MILLISECONDS);
            long remotes = 0;
            for (final Future<long[]> result : results)
            {
                for (final long previous : result.get(TestTime.millis(240, TimeUnit.SECONDS), TimeUnit.MILLISECONDS))
                {
                    assertThat(seen.get((int)previous)).as("previous value %d handed out twice", previous).isFalse();
                    seen.set((int)previous);
                    remotes++;
                }
            }
            final long total = (long)nodesCount * threads * perThread;
            assertThat(remotes).isEqualTo(total);
            assertThat(exposed.buffer().getLongVolatile(8)).isEqualTo(total + localAdds);
            assertThat(regions.get(0).read(8, 8).block(TIMEOUT).getLong(0)).isEqualTo(total + localAdds);
            assertThat(exposed.buffer().getLong(0)).as("the word before is untouched").isZero();
            assertThat(exposed.buffer().getLong(16)).as("the word after is untouched").isZero();
            assertWorkDoneBy(target, total + 1);
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    @Test
    @ScaledTimeout(180)
    void shouldProtectARemoteCounterWithACompareAndSwapSpinLock() throws Exception
    {
        final int nodesCount = 2;
        final int threads = 2;
        final int increments = 300;
        final Rivulet target = launch();
        final ExposedRegion exposed = target.exposeRegion("locked-counter", 64, RegionAccess.ATOMIC,
            RegionAccess.READ, RegionAccess.WRITE);
        final String address = bind(target);
        final ExecutorService pool = Executors.newFixedThreadPool(nodesCount * threads);
        try
        {
            final List<Future<Integer>> results = new ArrayList<>();
            for (int n = 0; n < nodesCount; n++)
            {
                final RemoteRegion region = connect(launch(), address).remoteRegion("locked-counter").block(TIMEOUT);
                for (int t = 0; t < threads; t++)
                {
                    final long owner = n * 100L + t + 1;
                    results.add(pool.submit(() -> lockedIncrements(region, owner, increments)));
                }
            }
            int contended = 0;
            for (final Future<Integer> result : results)
            {
                contended += result.get(TestTime.millis(150, TimeUnit.SECONDS), TimeUnit.MILLISECONDS);
            }
            final AtomicBuffer memory = exposed.buffer();
            assertThat(memory.getLongVolatile(8)).as("no lost update").isEqualTo((long)nodesCount * threads * increments);
            assertThat(memory.getLongVolatile(0)).as("the lock is free").isZero();
            assertThat(contended).as("the lock was contended at least once (the test exercised it)").isPositive();
            assertWorkDoneBy(target, (long)nodesCount * threads * increments * 4);
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    /** @return how many acquisitions found the lock taken. */
    private static int lockedIncrements(final RemoteRegion region, final long owner, final int increments)
    {
        int contended = 0;
        for (int i = 0; i < increments; i++)
        {
            long spins = 0;
            while (region.compareAndSwap(0, 0, owner).block(TIMEOUT) != 0)
            {
                spins++;
                if ((spins & 7) == 0)
                {
                    LockSupport.parkNanos(10_000); // back off on 2 cores
                }
            }
            contended += spins > 0 ? 1 : 0;
            // Inside the lock: a plain read-modify-write of the counter, which would lose updates without it.
            final long value = region.read(8, 8).block(TIMEOUT).getLong(0);
            final byte[] next = new byte[8];
            new UnsafeBuffer(next).putLong(0, value + 1);
            region.write(8, next).block(TIMEOUT);
            assertThat(region.compareAndSwap(0, owner, 0).block(TIMEOUT)).as("the owner releases").isEqualTo(owner);
        }
        return contended;
    }

    @Test
    @ScaledTimeout(120)
    void shouldRefuseEveryBadAccessClearlyAndLeaveTheBytesAndTheConnectionAsTheyWere()
    {
        final int length = 4096;
        final Rivulet target = launch();
        final ExposedRegion readOnly = target.exposeRegion("read-only", length, RegionAccess.READ);
        final ExposedRegion atomics = target.exposeRegion("atomics", length, RegionAccess.ATOMIC, RegionAccess.READ);
        final SplittableRandom random = new SplittableRandom(7);
        final byte[] original = new byte[length];
        random.nextBytes(original);
        readOnly.buffer().putBytes(0, original);
        atomics.buffer().putBytes(0, original);
        final Connection connection = connect(launch(), bind(target));
        final RemoteRegion region = connection.remoteRegion("read-only").block(TIMEOUT);
        final RemoteRegion atomic = connection.remoteRegion("atomics").block(TIMEOUT);
        final RegionDescriptor descriptor = region.descriptor();
        final byte[] eight = new byte[8];

        // Local first line: refused before anything is sent.
        expectRefusal(region.write(100, eight), RegionAccessException.Reason.PERMISSION, "allows only");
        expectRefusal(region.fetchAndAdd(0, 1), RegionAccessException.Reason.PERMISSION, "allows only");
        expectRefusal(region.read(length - 4, 8), RegionAccessException.Reason.OUT_OF_BOUNDS, "outside the region");
        expectRefusal(region.read(-1, 8), RegionAccessException.Reason.OUT_OF_BOUNDS, "outside the region");
        expectRefusal(atomic.fetchAndAdd(12, 1), RegionAccessException.Reason.MISALIGNED, "multiple of 8");
        expectRefusal(atomic.compareAndSwap(length, 0, 1), RegionAccessException.Reason.OUT_OF_BOUNDS, "outside");
        expectRefusal(connection.remoteRegion("no-such-region"), RegionAccessException.Reason.NOT_FOUND, "no-such-region");

        // The target's own check, with descriptors that lie: a wrong key, more access, more length.
        final RemoteRegion wrongKey = connection.remoteRegion(descriptor.withRkey(descriptor.rkey() ^ 0x5A5A_0001));
        expectRefusal(wrongKey.read(0, 8), targetRefusal(RegionAccessException.Reason.BAD_KEY), "");
        final RemoteRegion claimsWrite = connection.remoteRegion(new RegionDescriptor(descriptor.name(),
            descriptor.regionId(), descriptor.address(), descriptor.length(), descriptor.rkey(), 7, descriptor.endpoint()));
        expectRefusal(claimsWrite.write(100, eight), targetRefusal(RegionAccessException.Reason.PERMISSION), "");
        final RemoteRegion claimsLonger = connection.remoteRegion(new RegionDescriptor(descriptor.name(),
            descriptor.regionId(), descriptor.address(), descriptor.length() + 4096, descriptor.rkey(),
            descriptor.access(), descriptor.endpoint()));
        expectRefusal(claimsLonger.read(length - 8, 16), targetRefusal(RegionAccessException.Reason.OUT_OF_BOUNDS), "");

        // The connection and the region keep serving after every refusal.
        assertThat(bytes(region.read(0, length).block(TIMEOUT))).isEqualTo(original);
        final long before = new UnsafeBuffer(original).getLong(16);
        assertThat(atomic.fetchAndAdd(16, 5).block(TIMEOUT)).isEqualTo(before);

        // Revoked: the notice makes the handle refuse locally; a stale descriptor reaches the target, which refuses.
        readOnly.revoke();
        Await.until("the revocation notice arrived", region::isRevoked);
        expectRefusal(region.read(0, 8), RegionAccessException.Reason.REVOKED, "revoked");
        final RemoteRegion stale = connection.remoteRegion(descriptor);
        expectRefusal(stale.read(0, 8), targetRefusal(RegionAccessException.Reason.REVOKED), "");
        expectRefusal(connection.remoteRegion("read-only"), RegionAccessException.Reason.NOT_FOUND, "read-only");

        final byte[] after = new byte[length];
        readOnly.buffer().getBytes(0, after);
        assertThat(after).as("the read-only region is byte-for-byte unchanged").isEqualTo(original);
        atomics.buffer().getBytes(0, after);
        final byte[] expectedAtomics = original.clone();
        new UnsafeBuffer(expectedAtomics).putLong(16, before + 5);
        assertThat(after).as("the atomics region changed only in the word that was added to").isEqualTo(expectedAtomics);
        assertThat(connection.isOpen()).isTrue();
        assertThat(atomic.read(0, 8).block(TIMEOUT).getLong(0)).isEqualTo(new UnsafeBuffer(original).getLong(0));
        assertThat(target.counters().protocolErrors.get()).isZero();
        assertThat(handlerCalls.get()).isZero();
        assertThat(connection.requestResponse(Message.of("still serving")).block(TIMEOUT).dataUtf8())
            .isEqualTo("echo still serving");
    }

    @Test
    @ScaledTimeout(60)
    void shouldFailOperationsWhenTheConnectionIsClosed()
    {
        final Rivulet target = launch();
        target.exposeRegion("closing", 1024, RegionAccess.READ);
        final Connection connection = connect(launch(), bind(target));
        final RemoteRegion region = connection.remoteRegion("closing").block(TIMEOUT);
        assertThat(region.read(0, 8).block(TIMEOUT).capacity()).isEqualTo(8);
        connection.close();
        Await.until("closed", () -> !connection.isOpen());
        assertThatThrownBy(() -> region.read(0, 8).block(TIMEOUT)).isInstanceOf(RivuletException.class);
        assertThatThrownBy(() -> connection.remoteRegion("closing").block(TIMEOUT)).isInstanceOf(RivuletException.class);
    }

    private void assertWorkDoneBy(final Rivulet target, final long operations)
    {
        assertThat(handlerCalls.get()).as("the target's application handlers ran").isZero();
        if (oneSided())
        {
            assertThat(target.counters().regionOpsEmulated.get()).as("operations the target's engine applied").isZero();
        }
        else
        {
            assertThat(target.counters().regionOpsEmulated.get()).as("operations the target's engine applied")
                .isGreaterThanOrEqualTo(operations);
        }
    }

    private static void expectRefusal(
        final Mono<?> operation, final RegionAccessException.Reason reason, final String text)
    {
        assertThatThrownBy(() -> operation.block(TIMEOUT))
            .isInstanceOf(RegionAccessException.class)
            .hasMessageContaining(text)
            .satisfies(error -> assertThat(((RegionAccessException)error).reason()).as(error.getMessage()).isEqualTo(reason));
    }

    private static byte[] bytes(final DirectBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.capacity()];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    private Rivulet launch()
    {
        final Rivulet node = Rivulet.launch(new Rivulet.Context().transport(transport()).errorHandler(errors::add));
        nodes.add(node);
        return node;
    }

    private String bind(final Rivulet node)
    {
        final Responder counting = Responder.builder()
            .requestResponse(request ->
            {
                handlerCalls.incrementAndGet();
                return Mono.just(Message.of("echo " + request.dataUtf8()));
            })
            .fireAndForget(message -> Mono.fromRunnable(handlerCalls::incrementAndGet))
            .requestStream(request ->
            {
                handlerCalls.incrementAndGet();
                return Flux.empty();
            })
            .build();
        final Server server = node.bind(bindAddress(), counting).block(TIMEOUT);
        return server.localAddress();
    }

    private static Connection connect(final Rivulet node, final String address)
    {
        return node.connect(address).block(TIMEOUT);
    }
}
