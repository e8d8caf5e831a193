package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.soft.SoftTestSupport.Device;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** UD across two JVMs over UDP, the sender's device behind a bottleneck: queueing delay and tail drops. */
class SoftUdBottleneckTwoProcessTest
{
    private static final int QKEY = 0x3333;
    private static final int GRH = 40;
    private static final int COUNT = 12;
    private static final long BYTES_PER_SECOND = 20_000;
    private static final int QUEUE = 4;
    private static final long TIMEOUT_SECONDS = 60;

    @Test
    void shouldQueueAndTailDropAcrossProcesses() throws Exception
    {
        try (Device device = new Device(new SoftVerbsProvider(), 64))
        {
            final QueuePair receiver = device.context.createUdQueuePair(device.udConfig(COUNT, QKEY));
            final int slot = GRH + SoftBottleneckTest.PAYLOAD;
            final MemoryRegion sink = device.register(COUNT * slot, Access.LOCAL_WRITE);
            final ReceiveWorkRequest receive = new ReceiveWorkRequest();
            for (int i = 0; i < COUNT; i++)
            {
                receiver.postReceive(receive.set(i, sink.address() + (long)i * slot, slot, sink.lkey()));
            }
            final UdAddress address = receiver.udAddress();

            final List<String> command = new ArrayList<>();
            command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            command.add("--add-opens");
            command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
            command.add("--add-exports");
            command.add("java.base/sun.nio.ch=ALL-UNNAMED");
            command.add("-Xmx128m");
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(SoftUdSenderMain.class.getName());
            command.add(address.gid());
            command.add(Integer.toString(address.qpNumber()));
            command.add(Integer.toString(address.qkey()));
            command.add(Integer.toString(COUNT));
            command.add(Long.toString(BYTES_PER_SECOND));
            command.add(Integer.toString(QUEUE));
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
            }, "soft-ud-sender-output");
            reader.setDaemon(true);
            reader.start();
            try
            {
                final List<Long> delivered = new ArrayList<>();
                final WorkCompletion[] completions = { new WorkCompletion() };
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
                String stats = null;
                final StringBuilder seen = new StringBuilder();
                while (stats == null)
                {
                    assertThat(System.nanoTime() - deadlineNs).as("child output so far:\n%s", seen).isNegative();
                    while (device.receiveCq.poll(completions) > 0)
                    {
                        assertThat(completions[0].status()).isEqualTo(WcStatus.SUCCESS);
                        delivered.add(sink.buffer().getLong((int)completions[0].wrId() * slot + GRH));
                    }
                    final String line = lines.poll(1, TimeUnit.MILLISECONDS);
                    if (line != null && line.startsWith("STATS"))
                    {
                        stats = line;
                    }
                    else if (line != null)
                    {
                        seen.append(line).append('\n');
                    }
                }
                final String[] fields = stats.split(" ");
                final long datagrams = Long.parseLong(fields[1]);
                final long drops = Long.parseLong(fields[2]);
                final long maxQueueDelayNs = Long.parseLong(fields[3]);
                while (delivered.size() < datagrams)
                {
                    assertThat(System.nanoTime() - deadlineNs).as("delivered %d of %d", delivered.size(), datagrams)
                        .isNegative();
                    if (device.receiveCq.poll(completions) > 0)
                    {
                        delivered.add(sink.buffer().getLong((int)completions[0].wrId() * slot + GRH));
                    }
                    else
                    {
                        LockSupport.parkNanos(100_000);
                    }
                }
                final long serialisationNs = SoftBottleneckTest.ON_LINK * 1_000_000_000L / BYTES_PER_SECOND;
                System.out.printf("soft bottleneck across processes: %d posted, %d carried, %d tail-dropped, " +
                    "max queue delay %,d us (one datagram holds the link %,d us)%n", COUNT, datagrams, drops,
                    maxQueueDelayNs / 1000, serialisationNs / 1000);
                assertThat(drops).as("a queue of %d cannot hold %d posted at once", QUEUE, COUNT).isPositive();
                assertThat(datagrams + drops).isEqualTo(COUNT);
                assertThat(delivered).hasSize((int)datagrams).isSorted();
                assertThat(delivered.get(0)).isZero();
                assertThat(maxQueueDelayNs).as("a datagram waited behind another").isGreaterThanOrEqualTo(serialisationNs);
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("child exited").isTrue();
                assertThat(child.exitValue()).isZero();
            }
            finally
            {
                child.destroyForcibly();
            }
        }
    }
}
