package io.rivulet.transport.rdma.soft;

import io.rivulet.tck.Await;
import io.rivulet.transport.rdma.soft.SoftTestSupport.Device;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.WcOpcode;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.rivulet.transport.rdma.soft.SoftRcQueuePairTest.fill;
import static io.rivulet.transport.rdma.soft.SoftRcQueuePairTest.slice;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.loopback;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.pollOne;
import static org.assertj.core.api.Assertions.assertThat;

/** RC between two JVMs over the socket fabric: one-sided operations served by the other process's NIC. */
class SoftTwoProcessTest
{
    private static final long STARTUP_TIMEOUT_SECONDS = 60;

    @Test
    void shouldReadWriteFetchAndAddAndSendAcrossProcesses() throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--add-opens");
        command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("--add-exports");
        command.add("java.base/sun.nio.ch=ALL-UNNAMED");
        command.add("-Xmx128m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(SoftPeerMain.class.getName());
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader in = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = in.readLine()) != null)
                {
                    lines.add(line);
                }
            }
            catch (final IOException ignore)
            {
                // the child went away
            }
        }, "soft-peer-output");
        reader.setDaemon(true);
        reader.start();

        try
        {
            final String[] ready = awaitLine(lines, "READY").split(" ");
            final int port = Integer.parseInt(ready[1]);
            final long remoteAddress = Long.parseLong(ready[2]);
            final int rkey = Integer.parseInt(ready[3]);
            final int remoteLength = Integer.parseInt(ready[4]);

            try (Device device = new Device(new SoftVerbsProvider(), 64))
            {
                final CmConnection connection = device.context.connect(
                    new InetSocketAddress(loopback(), port), device.config(16, 7));
                final MemoryRegion local = device.register(3 * 4096, Access.LOCAL_WRITE);
                final ReceiveWorkRequest receive = new ReceiveWorkRequest();
                final QueuePair qp = connection.queuePair();
                qp.postReceive(receive.set(1, local.address() + 8192, 4096, local.lkey()));
                Await.until(Duration.ofSeconds(STARTUP_TIMEOUT_SECONDS), () -> connection.poll() != null,
                    () -> "the connection set up");
                final SendWorkRequest send = new SendWorkRequest();

                // READ the whole exposed region: the other process's NIC thread serves it.
                qp.postSend(send.clear().wrId(1).opcode(Opcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                    .addSge(local.address(), remoteLength, local.lkey()).remote(remoteAddress, rkey));
                assertSuccess(pollOne(device.sendCq), 1, WcOpcode.RDMA_READ);
                for (int i = 0; i < remoteLength; i++)
                {
                    assertThat(local.buffer().get(i)).as("byte %d", i).isEqualTo(SoftPeerMain.pattern(i));
                }

                // WRITE, then READ it back.
                fill(local.buffer(), 4096, 64, 77);
                qp.postSend(send.clear().wrId(2).opcode(Opcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                    .addSge(local.address() + 4096, 64, local.lkey()).remote(remoteAddress + 128, rkey));
                assertSuccess(pollOne(device.sendCq), 2, WcOpcode.RDMA_WRITE);
                qp.postSend(send.clear().wrId(3).opcode(Opcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                    .addSge(local.address() + 4096 + 512, 64, local.lkey()).remote(remoteAddress + 128, rkey));
                assertSuccess(pollOne(device.sendCq), 3, WcOpcode.RDMA_READ);
                assertThat(slice(local.buffer(), 4096 + 512, 64)).isEqualTo(slice(local.buffer(), 4096, 64));

                // FETCH_AND_ADD on the first 8 bytes.
                final long original = local.buffer().getLong(0);
                qp.postSend(send.clear().wrId(4).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendWorkRequest.SIGNALED)
                    .addSge(local.address() + 4096 + 1024, 8, local.lkey()).remote(remoteAddress, rkey).atomic(5, 0));
                assertSuccess(pollOne(device.sendCq), 4, WcOpcode.FETCH_ADD);
                assertThat(local.buffer().getLong(4096 + 1024)).isEqualTo(original);
                qp.postSend(send.clear().wrId(5).opcode(Opcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                    .addSge(local.address() + 4096 + 2048, 8, local.lkey()).remote(remoteAddress, rkey));
                assertSuccess(pollOne(device.sendCq), 5, WcOpcode.RDMA_READ);
                assertThat(local.buffer().getLong(4096 + 2048)).isEqualTo(original + 5);

                // SEND: the other process echoes it with the length as immediate data.
                fill(local.buffer(), 4096 + 3072, 100, 21);
                qp.postSend(send.clear().wrId(6).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                    .addSge(local.address() + 4096 + 3072, 100, local.lkey()));
                assertSuccess(pollOne(device.sendCq), 6, WcOpcode.SEND);
                final WorkCompletion echo = pollOne(device.receiveCq);
                assertThat(echo.status()).isEqualTo(WcStatus.SUCCESS);
                assertThat(echo.wrId()).isEqualTo(1);
                assertThat(echo.byteLength()).isEqualTo(100);
                assertThat(echo.hasImmData()).isTrue();
                assertThat(echo.immData()).isEqualTo(100);
                assertThat(slice(local.buffer(), 8192, 100)).isEqualTo(slice(local.buffer(), 4096 + 3072, 100));
                assertThat(awaitLine(lines, "RECEIVED")).isEqualTo("RECEIVED 100");

                connection.close();
            }
            assertThat(awaitLine(lines, "DONE")).isEqualTo("DONE");
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("child exited").isTrue();
            assertThat(child.exitValue()).isZero();
        }
        finally
        {
            child.destroyForcibly();
        }
    }

    private static void assertSuccess(final WorkCompletion wc, final long wrId, final WcOpcode opcode)
    {
        assertThat(wc.status()).as(wc.toString()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.wrId()).isEqualTo(wrId);
        assertThat(wc.opcode()).isEqualTo(opcode);
    }

    private static String awaitLine(final BlockingQueue<String> lines, final String prefix) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_TIMEOUT_SECONDS);
        final StringBuilder seen = new StringBuilder();
        while (System.nanoTime() - deadlineNs < 0)
        {
            final String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line == null)
            {
                continue;
            }
            if (line.startsWith(prefix))
            {
                return line;
            }
            seen.append(line).append('\n');
        }
        throw new AssertionError("no '" + prefix + "' line from the other process; it printed:\n" + seen);
    }
}
