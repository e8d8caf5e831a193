package io.rivulet.transport.rdma;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.region.ExposedRegion;
import io.rivulet.region.RegionAccess;
import io.rivulet.region.RegionAccessException;
import io.rivulet.region.RemoteRegion;
import io.rivulet.spi.ExposedMemory;
import io.rivulet.spi.OneSidedTransport;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.rdma.soft.SoftVerbsContext;
import io.rivulet.transport.rdma.verbs.Access;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What one-sided access over RDMA adds to the remote region suite: registration with exactly the requested access,
 * rkeys never handed out again after a revoke, a NIC refusal that costs one operation and one one-sided queue pair
 * but never the messaging connection, READs and atomics in flight kept within what the target's device serves,
 * atomics refused cleanly when either device has none, and the soft provider's socket mode (as between processes).
 */
class RdmaOneSidedTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void close() throws Exception
    {
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            closeables.get(i).close();
        }
    }

    @Test
    void shouldRegisterExactlyTheRequestedAccessAndNeverReuseAnRkey() throws Exception
    {
        final RdmaTransportDriver driver = new RdmaTransport(RdmaTestSupport.provider()).open(RdmaTestSupport.SETTINGS);
        closeables.add(driver);
        assertThat(access(driver, OneSidedTransport.READ)).isEqualTo(Access.REMOTE_READ);
        assertThat(access(driver, OneSidedTransport.WRITE)).isEqualTo(Access.REMOTE_WRITE | Access.LOCAL_WRITE);
        assertThat(access(driver, OneSidedTransport.ATOMIC | OneSidedTransport.READ))
            .isEqualTo(Access.REMOTE_ATOMIC | Access.REMOTE_READ | Access.LOCAL_WRITE);

        final Set<Integer> rkeys = new HashSet<>();
        for (int i = 0; i < 1_000; i++)
        {
            final ExposedMemory memory = driver.expose(64 + i, OneSidedTransport.READ);
            assertThat(memory.buffer().capacity()).isEqualTo(64 + i);
            assertThat(memory.address() % RdmaExposedMemory.ALIGNMENT).as("page aligned").isZero();
            assertThat(rkeys.add(memory.rkey())).as("rkey %d handed out before", memory.rkey()).isTrue();
            memory.close();
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldCostOneOperationAndOneQueuePairButNeverTheConnectionWhenTheNicRefuses()
    {
        final RdmaTransport targetTransport = new RdmaTransport(RdmaTestSupport.provider());
        final Rivulet target = launch(targetTransport);
        final ExposedRegion exposed = target.exposeRegion("guarded", 1024, RegionAccess.READ, RegionAccess.WRITE);
        exposed.buffer().putLong(0, 0x1122_3344_5566_7788L);
        final String address = target.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("pong"))).build()).block(TIMEOUT).localAddress();
        final Connection connection = launch(new RdmaTransport(RdmaTestSupport.provider())).connect(address).block(TIMEOUT);
        final RemoteRegion region = connection.remoteRegion("guarded").block(TIMEOUT);
        final RdmaTransportDriver targetDriver = targetTransport.drivers().get(0);
        final long violationsBefore = RdmaTestSupport.device(targetDriver).remoteAccessViolations();

        assertThat(region.read(0, 8).block(TIMEOUT).getLong(0)).isEqualTo(0x1122_3344_5566_7788L);
        Await.until(TestTime.seconds(20), () -> targetDriver.oneSidedQueuePairs() == 1,
            () -> "the target accepted the one-sided queue pair");

        // Valid writes in flight before and behind one refused write: the refused one fails; those behind it on the
        // queue pair come back flushed, never executed, and are posted again on a new queue pair.
        final RemoteRegion forged = connection.remoteRegion(region.descriptor().withRkey(region.descriptor().rkey() + 77));
        final List<Mono<Void>> writes = new ArrayList<>();
        for (int i = 1; i <= 40; i++)
        {
            writes.add(region.write(i * 8, new byte[] { (byte)i, 0, 0, 0, 0, 0, 0, 0 }));
            if (i == 4)
            {
                writes.add(forged.write(512, new byte[8]));
            }
        }
        final List<Throwable> failures = Flux.merge(Flux.fromIterable(writes)
                .map(write -> write.then(Mono.<Throwable>empty()).onErrorResume(Mono::just)))
            .collectList().block(TIMEOUT);
        assertThat(failures).hasSize(1);
        assertThat(failures.get(0)).isInstanceOf(RegionAccessException.class).hasMessageContaining("NIC refused");
        assertThat(((RegionAccessException)failures.get(0)).reason()).isEqualTo(RegionAccessException.Reason.REMOTE_ACCESS);
        for (int i = 1; i <= 40; i++)
        {
            assertThat(exposed.buffer().getByte(i * 8)).as("write %d landed", i).isEqualTo((byte)i);
        }
        assertThat(exposed.buffer().getLong(512)).as("the refused write left its target").isZero();
        assertThat(RdmaTestSupport.device(targetDriver).remoteAccessViolations()).isGreaterThan(violationsBefore);

        // The messaging connection never noticed; a new one-sided queue pair replaced the failed one.
        assertThat(connection.isOpen()).isTrue();
        assertThat(connection.requestResponse(Message.of("ping")).block(TIMEOUT).dataUtf8()).isEqualTo("pong");
        assertThat(region.read(0, 8).block(TIMEOUT).getLong(0)).isEqualTo(0x1122_3344_5566_7788L);
        Await.until(TestTime.seconds(20), () -> targetDriver.oneSidedQueuePairs() == 1,
            () -> "the failed queue pair is closed, its replacement open");
        assertThat(target.counters().regionOpsEmulated.get()).isZero();
        assertThat(target.counters().protocolErrors.get()).isZero();
    }

    @Test
    @ScaledTimeout(120)
    void shouldWorkOverTheSoftProvidersSockets()
    {
        final Rivulet target = launch(new RdmaTransport(RdmaTestSupport.socketProvider()));
        final ExposedRegion exposed = target.exposeRegion("over-sockets", 64 * 1024, RegionAccess.READ,
            RegionAccess.WRITE, RegionAccess.ATOMIC);
        final String address = target.bind("127.0.0.1:0", Responder.none()).block(TIMEOUT).localAddress();
        final Rivulet requester = launch(new RdmaTransport(RdmaTestSupport.socketProvider()));
        final RemoteRegion region = requester.connect(address).block(TIMEOUT).remoteRegion("over-sockets").block(TIMEOUT);
        assertThat(region.isOneSided()).isTrue();

        final byte[] bytes = new byte[30_000];
        new java.util.SplittableRandom(3).nextBytes(bytes);
        region.write(1000, bytes).block(TIMEOUT);
        final byte[] local = new byte[bytes.length];
        exposed.buffer().getBytes(1000, local);
        assertThat(local).isEqualTo(bytes);
        final byte[] read = new byte[bytes.length];
        region.read(1000, bytes.length).block(TIMEOUT).getBytes(0, read);
        assertThat(read).isEqualTo(bytes);
        final long sum = Flux.range(0, 5_000).flatMap(i -> region.fetchAndAdd(0, 1), 16).count().block(TIMEOUT);
        assertThat(sum).isEqualTo(5_000);
        assertThat(exposed.buffer().getLongVolatile(0)).isEqualTo(5_000);
        assertThat(target.counters().regionOpsEmulated.get()).isZero();
        assertThat(requester.counters().regionOpsPosted.get()).isGreaterThanOrEqualTo(5_000 + 2);
    }

    @Test
    @ScaledTimeout(120)
    void shouldKeepReadsAndAtomicsInFlightWithinWhatTheTargetsDeviceServes()
    {
        // soft serves 16 at once; this target says its device serves 2, as a small NIC (or a DiSNI peer whose
        // connection manager could not agree on less than the device maximum) would
        final ReshapedVerbsProvider requesterProvider = new ReshapedVerbsProvider(RdmaTestSupport.provider(),
            ReshapedVerbsProvider.reads(16, 16));
        final Rivulet target = launch(new RdmaTransport(new ReshapedVerbsProvider(RdmaTestSupport.provider(),
            ReshapedVerbsProvider.reads(2, 16))));
        final ExposedRegion exposed = target.exposeRegion("served-two-at-once", 64 * 1024, RegionAccess.READ,
            RegionAccess.WRITE, RegionAccess.ATOMIC);
        for (int i = 0; i < 64 * 1024; i += 8)
        {
            exposed.buffer().putLong(i, i * 31L);
        }
        final String address = target.bind("127.0.0.1:0", Responder.none()).block(TIMEOUT).localAddress();
        final Rivulet requester = launch(new RdmaTransport(requesterProvider));
        final RemoteRegion region = requester.connect(address).block(TIMEOUT).remoteRegion("served-two-at-once")
            .block(TIMEOUT);
        assertThat(region.descriptor().endpoint()).contains(";reads=2;atomics=1");

        final long[] offsets = new long[512];
        for (int i = 0; i < offsets.length; i++)
        {
            offsets[i] = 8L + (i * 64L) % (32 * 1024); // the word at 0 is the counter below
        }
        final Mono<Boolean> reads = region.readBatch(offsets, 64).map(buffers ->
        {
            for (int i = 0; i < buffers.size(); i++)
            {
                for (int word = 0; word < 64; word += 8)
                {
                    assertThat(buffers.get(i).getLong(word)).isEqualTo((offsets[i] + word) * 31L);
                }
            }
            return true;
        });
        final Mono<Long> adds = Flux.range(0, 2_000).flatMap(i -> region.fetchAndAdd(0, 1), 64).count();
        final Mono<Long> writes = Flux.range(0, 256)
            .flatMap(i -> region.write(32 * 1024 + i * 8L, new byte[] {(byte)(int)i, 1, 2, 3, 4, 5, 6, 7}), 64).count();
        Mono.when(reads, adds, writes).block(TIMEOUT);

        assertThat(exposed.buffer().getLongVolatile(0)).isEqualTo(2_000);
        assertThat(exposed.buffer().getByte(32 * 1024 + 255 * 8)).isEqualTo((byte)255);
        assertThat(requesterProvider.readAtomicsPosted()).isGreaterThanOrEqualTo(512 + 2_000);
        assertThat(requesterProvider.mostReadAtomicsOutstanding())
            .as("READs and atomics outstanding at once on the requester's queue pair").isBetween(1, 2);
        assertThat(target.counters().regionOpsEmulated.get()).isZero();
    }

    @Test
    @ScaledTimeout(60)
    void shouldFailAtomicsCleanlyWhenTheTargetsDeviceHasNone()
    {
        final RdmaTransport targetTransport = new RdmaTransport(new ReshapedVerbsProvider(RdmaTestSupport.provider(),
            ReshapedVerbsProvider.noAtomics()));
        final Rivulet target = launch(targetTransport);
        final ExposedRegion exposed = target.exposeRegion("no-atomics-there", 4096, RegionAccess.READ,
            RegionAccess.ATOMIC);
        exposed.buffer().putLong(8, 0x0102_0304_0506_0708L);
        final String address = target.bind("127.0.0.1:0", Responder.none()).block(TIMEOUT).localAddress();
        final ReshapedVerbsProvider requesterProvider = new ReshapedVerbsProvider(RdmaTestSupport.provider(),
            attributes -> attributes);
        final RemoteRegion region = launch(new RdmaTransport(requesterProvider)).connect(address).block(TIMEOUT)
            .remoteRegion("no-atomics-there").block(TIMEOUT);
        assertThat(region.read(8, 8).block(TIMEOUT).getLong(0)).isEqualTo(0x0102_0304_0506_0708L);
        final RdmaTransportDriver targetDriver = targetTransport.drivers().get(0);
        Await.until(TestTime.seconds(20), () -> targetDriver.oneSidedQueuePairs() == 1,
            () -> "the target accepted the one-sided queue pair");

        assertThatThrownBy(() -> region.fetchAndAdd(0, 1).block(TIMEOUT))
            .isInstanceOf(RegionAccessException.class)
            .hasMessageContaining("the target's RDMA device executes no atomics")
            .satisfies(ex -> assertThat(((RegionAccessException)ex).reason())
                .isEqualTo(RegionAccessException.Reason.UNSUPPORTED));
        assertThatThrownBy(() -> region.compareAndSwap(0, 0, 1).block(TIMEOUT))
            .isInstanceOf(RegionAccessException.class)
            .hasMessageContaining("the target's RDMA device executes no atomics");

        // nothing reached either device, and the path still serves: no queue pair failed or was replaced
        assertThat(requesterProvider.readAtomicsPosted()).as("the one READ only").isEqualTo(1);
        assertThat(exposed.buffer().getLongVolatile(0)).isZero();
        assertThat(region.read(8, 8).block(TIMEOUT).getLong(0)).isEqualTo(0x0102_0304_0506_0708L);
        assertThat(targetDriver.oneSidedQueuePairs()).isEqualTo(1);
        assertThat(((SoftVerbsContext)ReshapedVerbsProvider.delegateOf(targetDriver.verbsContext())).queuePairErrors())
            .isZero();
    }

    @Test
    @ScaledTimeout(60)
    void shouldFailAtomicsCleanlyWhenThisNodesDeviceHasNone()
    {
        final Rivulet target = launch(new RdmaTransport(RdmaTestSupport.provider()));
        final ExposedRegion exposed = target.exposeRegion("atomics-there", 4096, RegionAccess.READ,
            RegionAccess.ATOMIC);
        final String address = target.bind("127.0.0.1:0", Responder.none()).block(TIMEOUT).localAddress();
        final RemoteRegion region = launch(new RdmaTransport(new ReshapedVerbsProvider(RdmaTestSupport.provider(),
            ReshapedVerbsProvider.noAtomics()))).connect(address).block(TIMEOUT).remoteRegion("atomics-there")
            .block(TIMEOUT);

        assertThatThrownBy(() -> region.compareAndSwap(0, 0, 1).block(TIMEOUT))
            .isInstanceOf(RegionAccessException.class)
            .hasMessageContaining("this node's RDMA device executes no atomics");
        assertThat(exposed.buffer().getLongVolatile(0)).isZero();
        assertThat(region.read(0, 8).block(TIMEOUT).getLong(0)).isZero();
    }

    private static int access(final RdmaTransportDriver driver, final int access) throws Exception
    {
        final RdmaExposedMemory memory = (RdmaExposedMemory)driver.expose(4096, access);
        try
        {
            return memory.registeredAccess();
        }
        finally
        {
            memory.close();
        }
    }

    private Rivulet launch(final RdmaTransport transport)
    {
        final Rivulet node = Rivulet.launch(new Rivulet.Context().transport(transport));
        closeables.add(node);
        return node;
    }
}
