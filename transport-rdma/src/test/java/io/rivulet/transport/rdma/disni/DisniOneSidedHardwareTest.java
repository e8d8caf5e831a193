package io.rivulet.transport.rdma.disni;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.region.ExposedRegion;
import io.rivulet.region.RegionAccess;
import io.rivulet.region.RegionAccessException;
import io.rivulet.region.RemoteRegion;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.rdma.HardwareRdma;
import io.rivulet.transport.rdma.RdmaTransport;
import io.rivulet.transport.rdma.jni.NativeLibraryTestSupport;
import io.rivulet.transport.rdma.verbs.DeviceAttributes;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One-sided remote memory between two nodes on the DiSNI provider, on a real device: the target's endpoint advertises
 * what its device serves, READs, WRITEs and atomics land one-sided (the target's engine applies nothing) with more in
 * flight than the path keeps at once, and a NIC refusal costs one operation, never the connection. The engines run
 * DEDICATED, so the connection manager is driven by the conductor while the sender posts. Needs libdisni,
 * librivulet-verbs and an RDMA device (see {@link DisniHardwareTest}); skipped with the reason otherwise.
 */
@Tag("rdma-hardware")
@ScaledTimeout(600)
class DisniOneSidedHardwareTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

    private final List<Rivulet> nodes = new ArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    @AfterEach
    void close()
    {
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldReadWriteAndUpdateRemoteMemoryOneSidedWithinWhatTheTargetServes() throws IOException
    {
        final DisniVerbsProvider provider = new DisniVerbsProvider();
        final var availability = provider.availability();
        assumeTrue(availability.available(), () -> "disni unavailable: " + availability.reason());
        NativeLibraryTestSupport.requireLibrary();
        final InetAddress address = HardwareRdma.address();
        assumeTrue(null != address, "no IPv4 address of an RDMA interface found: pass -D" + HardwareRdma.ADDRESS_PROP +
            "=<ip>");
        final DeviceAttributes device;
        try (VerbsContext context = provider.open(address))
        {
            device = context.attributes();
        }

        final Rivulet target = launch(provider);
        final ExposedRegion exposed = target.exposeRegion("hw.table", 64 * 1024, RegionAccess.READ, RegionAccess.WRITE,
            RegionAccess.ATOMIC);
        final String bound = target.bind(address.getHostAddress() + ":0", Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("pong"))).build()).block(TIMEOUT).localAddress();
        final Connection connection = launch(provider).connect(bound).block(TIMEOUT);
        final RemoteRegion region = connection.remoteRegion("hw.table").block(TIMEOUT);
        assertThat(region.isOneSided()).isTrue();
        assertThat(region.descriptor().endpoint())
            .startsWith(address.getHostAddress() + ":")
            .endsWith(";reads=" + device.maxResponderReads() + ";atomics=" + (device.supportsAtomics() ? 1 : 0));

        final byte[] bytes = new byte[30_000];
        new SplittableRandom(7).nextBytes(bytes);
        region.write(1000, bytes).block(TIMEOUT);
        final byte[] landed = new byte[bytes.length];
        exposed.buffer().getBytes(1000, landed);
        assertThat(landed).isEqualTo(bytes);
        final long[] offsets = new long[64];
        for (int i = 0; i < offsets.length; i++)
        {
            offsets[i] = 1000 + 400L * i;
        }
        final List<byte[]> read = Flux.fromIterable(region.readBatch(offsets, 64).block(TIMEOUT))
            .map(buffer -> copy(buffer, 64)).collectList().block(TIMEOUT);
        for (int i = 0; i < offsets.length; i++)
        {
            final int at = (int)offsets[i] - 1000;
            final byte[] expected = new byte[64];
            System.arraycopy(bytes, at, expected, 0, 64);
            assertThat(read.get(i)).as("READ at %d", offsets[i]).isEqualTo(expected);
        }

        if (device.supportsAtomics())
        {
            // more in flight than a path's slots: the rest wait their turn, none is lost or doubled
            final List<Long> previous = Flux.range(0, 500).flatMap(i -> region.fetchAndAdd(0, 1), 40)
                .collectList().block(TIMEOUT);
            final Set<Long> distinct = new HashSet<>(previous);
            assertThat(distinct).hasSize(500);
            assertThat(distinct).allMatch(value -> value >= 0 && value < 500);
            // the word is in the device's byte order (host order on rxe; unverified on mlx5)
            assertThat(exposed.buffer().getLongVolatile(0)).isIn(500L, Long.reverseBytes(500L));
        }

        // the target's NIC refuses a wrong rkey: that operation fails, the connection and the region keep serving
        final RemoteRegion forged = connection.remoteRegion(region.descriptor().withRkey(region.descriptor().rkey() + 77));
        assertThatThrownBy(() -> forged.read(0, 8).block(TIMEOUT))
            .isInstanceOf(RegionAccessException.class)
            .satisfies(ex -> assertThat(((RegionAccessException)ex).reason())
                .isEqualTo(RegionAccessException.Reason.REMOTE_ACCESS));
        assertThat(copy(region.read(1000, 64).block(TIMEOUT), 64)).isEqualTo(Arrays.copyOf(bytes, 64));
        assertThat(connection.requestResponse(Message.of("ping")).block(TIMEOUT).dataUtf8()).isEqualTo("pong");
        assertThat(target.counters().regionOpsEmulated.get()).isZero();
    }

    private static byte[] copy(final DirectBuffer buffer, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    private Rivulet launch(final DisniVerbsProvider provider)
    {
        // Liveness timeouts scaled like every wait here: in an emulated guest a node's threads may not run for
        // seconds, which the default 5 s keepalive, connect and SETUP timeouts would take for a dead peer.
        final Rivulet node = Rivulet.launch(new Rivulet.Context()
            .transport(new RdmaTransport(provider))
            .threadingMode(ThreadingMode.DEDICATED)
            .keepaliveTimeout(TestTime.millis(5, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .connectTimeout(TestTime.millis(5, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .setupTimeout(TestTime.millis(5, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .countersFile(false)
            .errorHandler(errors::add));
        nodes.add(node);
        return node;
    }
}
