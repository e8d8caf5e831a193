package io.rivulet.transport.rdma;

import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.TestTime;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicOptions;
import io.rivulet.transport.rdma.soft.SoftFaults;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The publishing process of {@link RdmaUdTopicTwoProcessTest}: a node on the rdma transport (soft provider over
 * sockets: UD over UDP) with {@code topicDatagrams}, 2 % of its UD datagrams dropped. Prints {@code READY host:port},
 * waits for a subscriber, publishes {@code count} messages on {@code md.x} (each its sequence first, and filled
 * with its low byte), prints
 * {@code PUBLISHED}, then serves until its standard input closes or the time limit passes. Arguments: the time
 * limit in milliseconds and the count, then optionally the parent's {@link TestTime} factor, which scales the limit
 * and this process's own waits alike.
 */
public final class UdTopicPublisherMain
{
    private UdTopicPublisherMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length > 2)
        {
            // Before TestTime is first used: it reads the factor once.
            System.setProperty(TestTime.SCALE_PROPERTY, args[2]);
        }
        final long limitMs = TestTime.millis(Long.parseLong(args[0]));
        final int count = Integer.parseInt(args[1]);
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limitMs);
        try (Rivulet node = Rivulet.launch(new Rivulet.Context()
            .transport(new RdmaTransport(RdmaTestSupport.socketProvider()
                .withFaults(SoftFaults.seeded(42).drop(0.02).reorder(0.02))))
            .threadingMode(ThreadingMode.SHARED)
            .topicDatagrams(true)
            .countersFile(false)))
        {
            final Server server = node.bind("127.0.0.1:0", Responder.none()).block(TestTime.seconds(30));
            final Publication publication = node.publication("md.x", TopicOptions.block());
            System.out.println("READY " + server.localAddress());
            System.out.flush();
            while (publication.subscriberCount() == 0 && System.nanoTime() - deadlineNs < 0)
            {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            final UnsafeBuffer message = new UnsafeBuffer(new byte[256]);
            for (int sequence = 1; sequence <= count && System.nanoTime() - deadlineNs < 0; )
            {
                final int length = 64 + sequence % 192;
                message.setMemory(0, length, (byte)sequence);
                message.putInt(0, sequence);
                if (publication.offer(message, 0, length) > 0)
                {
                    sequence++;
                }
                else
                {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
                }
            }
            System.out.println("PUBLISHED");
            System.out.flush();
            while (System.in.read() >= 0 && System.nanoTime() - deadlineNs < 0)
            {
                // serve until the parent closes our input
            }
        }
    }
}
