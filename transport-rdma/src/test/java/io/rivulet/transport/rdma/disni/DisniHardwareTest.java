package io.rivulet.transport.rdma.disni;

import io.rivulet.tck.Await;
import io.rivulet.transport.rdma.HardwareRdma;
import io.rivulet.transport.rdma.VerbsHardwareSuite;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import io.rivulet.transport.rdma.verbs.WcOpcode;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The verbs SPI on a real device through DiSNI (with librivulet-verbs for UD and atomics). Needs libdisni, built by
 * hand from DiSNI's sources, on {@code java.library.path} (see README, "Running on RDMA hardware").
 */
@Tag("rdma-hardware")
class DisniHardwareTest extends VerbsHardwareSuite
{
    @Override
    protected VerbsProvider provider()
    {
        return new DisniVerbsProvider();
    }

    @Test
    void shouldReuseThePrebuiltCalls() throws IOException
    {
        final Connected pair = connect(64);
        for (int i = 0; i < 50; i++)
        {
            pair.serverQp().postReceive(new ReceiveWorkRequest().set(i % 8,
                server.recvRegion.address() + (i % 8) * 256L, 256, server.recvRegion.lkey()));
            client.sendRegion.buffer().putInt(0, i);
            pair.clientQp().postSend(new SendWorkRequest().wrId(i).opcode(Opcode.SEND)
                .flags(SendWorkRequest.SIGNALED | SendWorkRequest.INLINE)
                .addSge(client.sendRegion.address(), 32, client.sendRegion.lkey()));
            assertThat(await(client.sendCq).status()).isEqualTo(WcStatus.SUCCESS);
            final WorkCompletion received = await(server.recvCq);
            assertThat(received.byteLength()).isEqualTo(32);
        }
        assertThat(((DisniQueuePair)pair.clientQp()).sendCallBuilds()).isEqualTo(1);
        assertThat(((DisniQueuePair)pair.serverQp()).receiveCallBuilds()).isEqualTo(8);
    }

    /**
     * The sender thread asks {@code isDisconnected()} after a failed post (DEDICATED mode); it must never take the
     * context's connection manager events, which only the conductor may (DiSNI's id map and the listener's queue are
     * not thread-safe). So however often another thread asks, the peer's DISCONNECTED waits on the event channel
     * until the owner takes it.
     */
    @Test
    void shouldLeaveConnectionManagerEventsToTheContextsOwnerThread() throws Exception
    {
        final Connected pair = connect(0);
        pair.clientConnection().close();

        final AtomicInteger seenDisconnected = new AtomicInteger();
        final long askForNs = HardwareRdma.timeoutNs(1);
        final Thread sender = new Thread(() ->
        {
            final long deadline = System.nanoTime() + askForNs;
            while (System.nanoTime() - deadline < 0)
            {
                if (pair.serverConnection().isDisconnected())
                {
                    seenDisconnected.incrementAndGet();
                }
                Thread.onSpinWait();
            }
        }, "sender");
        sender.start();
        sender.join();
        assertThat(seenDisconnected.get()).as("disconnects seen without the owner taking events").isZero();
        assertThat(pair.serverQp().state()).isEqualTo(QpState.RTS);

        final int[] handled = {0};
        Await.until(Duration.ofNanos(HardwareRdma.timeoutNs(20)), () ->
        {
            final int events = server.context.pollConnectionEvents();
            handled[0] += events;
            return events;
        }, pair.serverConnection()::isDisconnected, () -> "DISCONNECTED taken by the owner");
        assertThat(handled[0]).isPositive();
        assertThat(pair.serverQp().state()).isEqualTo(QpState.ERROR);
    }

    @Test
    void shouldReportOnlyWhatIbverbsDefinesInAnErrorCompletion() throws IOException
    {
        final Connected pair = connect(0);
        pair.clientQp().postSend(new SendWorkRequest().wrId(77).opcode(Opcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
            .addSge(client.recvRegion.address(), 8, client.recvRegion.lkey())
            .remote(server.remoteRegion.address(), server.remoteRegion.rkey() + 1));

        final WorkCompletion failed = await(client.sendCq);
        assertThat(failed.wrId()).isEqualTo(77);
        assertThat(failed.status()).isIn(WcStatus.REMOTE_ACCESS_ERROR, WcStatus.REMOTE_INVALID_REQUEST_ERROR);
        assertThat(failed.opcode()).as("undefined in an error completion").isEqualTo(WcOpcode.UNKNOWN);
        assertThat(failed.qpNumber()).as("the CQ's only queue pair").isEqualTo(pair.clientQp().qpNumber());
        assertThat(failed.byteLength()).isZero();
        assertThat(failed.vendorError()).as("DiSNI does not hand vendor_err of an error to Java").isZero();
        assertThat(pair.clientQp().state()).isEqualTo(QpState.ERROR);
    }
}
