package io.rivulet.transport.rdma.ibverbs;

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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The verbs SPI on a real device through rdma-core and librivulet-verbs, and what only this provider does: chains
 * of work requests posted with one call, error completions that keep the device's detail, a UD queue pair brought
 * back from ERROR, READs and atomics agreed at set-up.
 */
@Tag("rdma-hardware")
class IbverbsHardwareTest extends VerbsHardwareSuite
{
    @Override
    protected VerbsProvider provider()
    {
        return new IbverbsProvider();
    }

    @Override
    protected int depth()
    {
        return 256;
    }

    @Test
    void shouldPostChainsOfSendsAndReceivesLongerThanOneNativeCall() throws IOException
    {
        final Connected pair = connect(0);
        final int count = 100; // two chains: 64 and 36
        final ReceiveWorkRequest[] receives = new ReceiveWorkRequest[count];
        final SendWorkRequest[] sends = new SendWorkRequest[count];
        for (int i = 0; i < count; i++)
        {
            receives[i] = new ReceiveWorkRequest().set(1000 + i, server.recvRegion.address() + 64L * i, 64,
                server.recvRegion.lkey());
            client.sendRegion.buffer().putInt(16 * i, i);
            sends[i] = new SendWorkRequest().wrId(i).opcode(Opcode.SEND).flags(i == count - 1 ? SendWorkRequest.SIGNALED : 0)
                .addSge(client.sendRegion.address() + 16L * i, 16, client.sendRegion.lkey());
        }
        pair.serverQp().postReceive(receives, count);
        pair.clientQp().postSend(sends, count);

        // one signalled send covers the unsignalled ones before it: RC completes in order
        final WorkCompletion last = await(client.sendCq);
        assertThat(last.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(last.wrId()).isEqualTo(count - 1);
        for (int i = 0; i < count; i++)
        {
            final WorkCompletion received = await(server.recvCq);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.wrId()).as("receives complete in posting order").isEqualTo(1000 + i);
            assertThat(received.byteLength()).isEqualTo(16);
            assertThat(server.recvRegion.buffer().getInt(64 * i)).isEqualTo(i);
        }
    }

    @Test
    void shouldPostAndPollWithoutAllocatingOnceWarm() throws IOException
    {
        final Connected pair = connect(0);
        final int chain = 16;
        final ReceiveWorkRequest[] receives = new ReceiveWorkRequest[chain];
        final SendWorkRequest[] sends = new SendWorkRequest[chain];
        for (int i = 0; i < chain; i++)
        {
            receives[i] = new ReceiveWorkRequest();
            sends[i] = new SendWorkRequest();
        }
        final WorkCompletion[] completions = new WorkCompletion[chain];
        for (int i = 0; i < chain; i++)
        {
            completions[i] = new WorkCompletion();
        }
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        long allocated = 0;
        for (int round = 0; round < 200; round++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < chain; i++)
            {
                receives[i].set(i, server.recvRegion.address() + 64L * i, 64, server.recvRegion.lkey());
                sends[i].clear().wrId(i).opcode(Opcode.SEND).flags(i == chain - 1 ? SendWorkRequest.SIGNALED : 0)
                    .addSge(client.sendRegion.address() + 64L * i, 64, client.sendRegion.lkey());
            }
            pair.serverQp().postReceive(receives, chain);
            pair.clientQp().postSend(sends, chain);
            int received = 0;
            int sent = 0;
            final long deadline = System.nanoTime() + io.rivulet.transport.rdma.HardwareRdma.timeoutNs(20);
            while ((received < chain || sent < 1) && System.nanoTime() - deadline < 0)
            {
                received += server.recvCq.poll(completions, chain - received);
                sent += client.sendCq.poll(completions, 1);
            }
            if (round >= 100)
            {
                allocated += threads.getCurrentThreadAllocatedBytes() - before;
            }
            if (received != chain || sent != 1)
            {
                // checked without AssertJ inside the measured rounds: its objects would count as allocation
                throw new AssertionError("round " + round + ": " + received + " receives, " + sent + " sends completed");
            }
        }
        // 100 warm rounds of a 16-request chain each way and their completions: a stray JIT or profiler allocation
        // fits the bound, one object per request or per round would not
        assertThat(allocated).as("bytes allocated by 100 warm rounds").isLessThan(2048);
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
        assertThat(failed.status()).isNotEqualTo(WcStatus.SUCCESS);
        assertThat(failed.opcode()).as("undefined in an error completion").isEqualTo(WcOpcode.UNKNOWN);
        assertThat(failed.qpNumber()).isEqualTo(pair.clientQp().qpNumber());
        assertThat(failed.byteLength()).isZero();
        assertThat(pair.clientQp().state()).isEqualTo(QpState.ERROR);
    }

    @Test
    void shouldAgreeOnReadsInFlightAtSetUp() throws IOException
    {
        final Connected pair = connect(0);
        final int depth = ((IbverbsConnection)pair.clientConnection()).initiatorDepth();
        assertThat(depth).isPositive()
            .isLessThanOrEqualTo(client.context.attributes().maxInitiatorReads())
            .isLessThanOrEqualTo(server.context.attributes().maxResponderReads());
        assertThat(((IbverbsConnection)pair.serverConnection()).initiatorDepth())
            .isLessThanOrEqualTo(client.context.attributes().maxResponderReads());
    }
}
