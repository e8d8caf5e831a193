package io.rivulet.bench.aeron;

import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.rivulet.bench.harness.Payloads;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Aeron's serving loop, on a thread of its own: echoes ECHO, counts DATA, answers SYNC. Messages larger
 * than the MTU arrive in fragments and are reassembled first.
 */
final class Pong implements Runnable
{
    private final Subscription subscription;
    private final ExclusivePublication publication;
    private final IdleStrategy idle;
    private final UnsafeBuffer reply = new UnsafeBuffer(ByteBuffer.allocateDirect(1 << 16));
    private volatile boolean running = true;
    private long counted;

    Pong(final Subscription subscription, final ExclusivePublication publication, final IdleStrategy idle)
    {
        this.subscription = subscription;
        this.publication = publication;
        this.idle = idle;
    }

    @Override
    public void run()
    {
        final FragmentHandler handler = new FragmentAssembler((buffer, offset, length, header) ->
        {
            try
            {
                switch (AeronNode.kind(buffer, offset))
                {
                    case Payloads.ECHO:
                        reply.putBytes(0, buffer, offset, length);
                        AeronNode.offer(publication, reply, length, idle);
                        break;
                    case Payloads.DATA:
                        counted++;
                        break;
                    case Payloads.SYNC:
                        reply.putBytes(0, buffer, offset, length);
                        reply.putLong(Payloads.VALUE_OFFSET, counted, ByteOrder.LITTLE_ENDIAN);
                        AeronNode.offer(publication, reply, length, idle);
                        break;
                    default:
                        throw new IllegalStateException("unknown kind " + AeronNode.kind(buffer, offset));
                }
            }
            catch (final java.util.concurrent.TimeoutException ex)
            {
                throw new IllegalStateException(ex);
            }
        });
        while (running)
        {
            idle.idle(subscription.poll(handler, 16));
        }
    }

    void stop()
    {
        running = false;
    }
}
