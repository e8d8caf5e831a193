package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.WcOpcode;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The other process of {@link SoftTwoProcessTest}: exposes a region for remote READ, WRITE and atomics
 * (which its soft NIC thread serves; this main thread never touches the region) and echoes every SEND
 * back as a SEND_WITH_IMM whose immediate is the length. Prints {@code READY port address rkey length}
 * once listening; exits when the peer disconnects or after a minute.
 */
public final class SoftPeerMain
{
    static final int REGION_LENGTH = 4096;
    static final int SLOT = 1024;

    private SoftPeerMain()
    {
    }

    /** The byte at {@code index} of the exposed region before anyone writes it. */
    static byte pattern(final int index)
    {
        return (byte)(index * 13 + 1);
    }

    public static void main(final String[] args) throws Exception
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (SoftVerbsContext context = new SoftVerbsProvider().open(InetAddress.getLoopbackAddress()))
        {
            final ProtectionDomain pd = context.allocateProtectionDomain();
            final CompletionQueue sendCq = context.createCompletionQueue(64);
            final CompletionQueue receiveCq = context.createCompletionQueue(64);
            final ByteBuffer exposedBuffer = ByteBuffer.allocateDirect(REGION_LENGTH).order(ByteOrder.nativeOrder());
            for (int i = 0; i < REGION_LENGTH; i++)
            {
                exposedBuffer.put(i, pattern(i));
            }
            final MemoryRegion exposed = pd.register(exposedBuffer, Access.LOCAL_WRITE | Access.REMOTE_READ |
                Access.REMOTE_WRITE | Access.REMOTE_ATOMIC);
            final MemoryRegion slots = pd.register(ByteBuffer.allocateDirect(4 * SLOT), Access.LOCAL_WRITE);

            try (CmListener listener = context.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4))
            {
                System.out.println("READY " + listener.localAddress().getPort() + " " + exposed.address() + " " +
                    exposed.rkey() + " " + exposed.length());
                System.out.flush();

                CmRequest request;
                while ((request = listener.poll()) == null)
                {
                    check(deadlineNs);
                    LockSupport.parkNanos(100_000);
                }
                final CmConnection connection = request.accept(
                    new QueuePairConfig(pd, sendCq, receiveCq, 16, 16, 0, 7, 7, 0));
                final QueuePair qp = connection.queuePair();
                final ReceiveWorkRequest receive = new ReceiveWorkRequest();
                for (int i = 0; i < 2; i++)
                {
                    qp.postReceive(receive.set(i, slots.address() + (long)i * SLOT, SLOT, slots.lkey()));
                }
                while (connection.poll() == null)
                {
                    check(deadlineNs);
                    LockSupport.parkNanos(100_000);
                }

                final SendWorkRequest send = new SendWorkRequest();
                final WorkCompletion[] completions = { new WorkCompletion(), new WorkCompletion() };
                while (!connection.isDisconnected())
                {
                    check(deadlineNs);
                    if (receiveCq.poll(completions) == 0)
                    {
                        LockSupport.parkNanos(100_000);
                        continue;
                    }
                    final WorkCompletion wc = completions[0];
                    if (wc.status() != WcStatus.SUCCESS)
                    {
                        break; // flushed by the disconnect
                    }
                    System.out.println("RECEIVED " + wc.byteLength());
                    System.out.flush();
                    if (wc.opcode() == WcOpcode.RECV)
                    {
                        final long echoSlot = slots.address() + 2L * SLOT;
                        final long receivedSlot = slots.address() + wc.wrId() * SLOT;
                        slots.buffer().put((int)(echoSlot - slots.address()), slots.buffer(),
                            (int)(receivedSlot - slots.address()), wc.byteLength());
                        qp.postSend(send.clear().wrId(100).opcode(Opcode.SEND_WITH_IMM)
                            .flags(SendWorkRequest.SIGNALED).immData(wc.byteLength())
                            .addSge(echoSlot, wc.byteLength(), slots.lkey()));
                        qp.postReceive(receive.set(wc.wrId(), receivedSlot, SLOT, slots.lkey()));
                        sendCq.poll(completions);
                    }
                }
                connection.close();
            }
        }
        System.out.println("DONE");
        System.out.flush();
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
