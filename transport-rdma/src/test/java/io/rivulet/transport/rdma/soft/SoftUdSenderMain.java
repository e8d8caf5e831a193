package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.WorkCompletion;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The other process of {@link SoftUdBottleneckTwoProcessTest}: a UD sender whose device has a bottleneck.
 * Arguments: {@code gid qpNumber qkey count bytesPerSecond queueDatagrams}. Posts {@code count} datagrams
 * of {@link SoftBottleneckTest#PAYLOAD} bytes (each carrying its index) at once, waits until the link has
 * carried every queued one, then prints {@code STATS datagrams drops maxQueueDelayNs} and exits.
 */
public final class SoftUdSenderMain
{
    private SoftUdSenderMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final UdAddress destination = new UdAddress(args[0], Integer.parseInt(args[1]), Integer.parseInt(args[2]));
        final int count = Integer.parseInt(args[3]);
        final long bytesPerSecond = Long.parseLong(args[4]);
        final int queue = Integer.parseInt(args[5]);
        final SoftFaults faults = SoftFaults.seeded(1).bottleneck(bytesPerSecond, queue);
        try (SoftVerbsContext context = new SoftVerbsProvider().withFaults(faults).open(InetAddress.getLoopbackAddress()))
        {
            final ProtectionDomain pd = context.allocateProtectionDomain();
            final CompletionQueue cq = context.createCompletionQueue(2 * count);
            final QueuePair qp = context.createUdQueuePair(
                new QueuePairConfig(pd, cq, cq, count, 1, 64, 0, 0, destination.qkey()));
            final MemoryRegion source =
                pd.register(ByteBuffer.allocateDirect(count * SoftBottleneckTest.PAYLOAD), Access.LOCAL_WRITE);
            final AddressHandle ah = context.createAddressHandle(pd, destination);
            final SendWorkRequest send = new SendWorkRequest();
            for (int i = 0; i < count; i++)
            {
                source.buffer().putLong(i * SoftBottleneckTest.PAYLOAD, i);
                qp.postSend(send.clear().wrId(i).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                    .addSge(source.address() + (long)i * SoftBottleneckTest.PAYLOAD, SoftBottleneckTest.PAYLOAD,
                        source.lkey())
                    .ud(ah, destination.qpNumber(), destination.qkey()));
            }
            final WorkCompletion[] completions = { new WorkCompletion() };
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int completed = 0;
            while (completed < count || context.bottleneckDatagrams() + context.bottleneckDrops() < count)
            {
                completed += cq.poll(completions);
                check(deadlineNs);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            // Every queued datagram leaves within queue x serialisation time; wait that out before closing.
            final long drainNs = (long)queue * SoftBottleneckTest.ON_LINK * 1_000_000_000L / bytesPerSecond;
            LockSupport.parkNanos(drainNs + TimeUnit.MILLISECONDS.toNanos(200));
            System.out.println("STATS " + context.bottleneckDatagrams() + " " + context.bottleneckDrops() + " " +
                context.bottleneckMaxQueueDelayNs());
            System.out.flush();
        }
    }

    private static void check(final long deadlineNs)
    {
        if (System.nanoTime() - deadlineNs > 0)
        {
            System.out.println("TIMEOUT");
            System.exit(2);
        }
    }
}
