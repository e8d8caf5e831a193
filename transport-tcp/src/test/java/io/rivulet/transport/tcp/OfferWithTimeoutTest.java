package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.MessageClaim;
import io.rivulet.MessageHandler;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code offer} and {@code tryClaim} with a timeout between two nodes over loopback TCP: a producer sends many
 * times what the outbound ring holds, waiting for room each time it is full, and every message arrives once and in
 * order. On an INVOKER node nothing else runs the duty cycle: the waiting producer must run it, or it would wait
 * for ever (the timeout would end it with BACK_PRESSURED and the test would fail).
 */
class OfferWithTimeoutTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final int MESSAGE_LENGTH = 4096;
    /** A 128 KiB ring holds 31 messages of 4 KiB: 3,000 messages fill it about 100 times over. */
    private static final int MESSAGES = 3_000;

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong outOfOrder = new AtomicLong();
    private Rivulet receiverNode;
    private Rivulet senderNode;

    @AfterEach
    void close()
    {
        if (senderNode != null)
        {
            senderNode.close();
        }
        if (receiverNode != null)
        {
            receiverNode.close();
        }
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(120)
    void shouldDeliverEveryOfferedMessageInOrderFromAProducerThatWaitsForRoom()
    {
        final Connection connection = connect(ThreadingMode.SHARED);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);
        for (int i = 0; i < MESSAGES; i++)
        {
            message.putInt(0, i);
            assertThat(connection.offer(message, 0, MESSAGE_LENGTH, TIMEOUT)).as("message %d", i).isPositive();
        }
        Await.until(TIMEOUT, () -> received.get() == MESSAGES, () -> "received " + received.get());
        assertThat(outOfOrder.get()).isZero();
        assertThat(senderNode.counters().backPressureEvents.get()).as("the ring was full, and the producer waited")
            .isPositive();
    }

    @Test
    @ScaledTimeout(120)
    void shouldRunTheDutyCycleOfAnInvokerNodeWhileWaitingForRoom()
    {
        final Connection connection = connect(ThreadingMode.INVOKER);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);
        final MessageClaim claim = new MessageClaim();
        for (int i = 0; i < MESSAGES; i++)
        {
            if ((i & 1) == 0)
            {
                message.putInt(0, i);
                assertThat(connection.offer(message, 0, MESSAGE_LENGTH, TIMEOUT)).as("message %d", i).isPositive();
            }
            else
            {
                assertThat(connection.tryClaim(MESSAGE_LENGTH, claim, TIMEOUT)).as("claim %d", i).isPositive();
                claim.buffer().putInt(claim.offset(), i);
                assertThat(claim.commit()).isTrue();
            }
        }
        // The sender's own duty cycle sends what the last waits left in the ring.
        Await.until(TIMEOUT, senderNode::invoke, () -> received.get() == MESSAGES, () -> "received " + received.get());
        assertThat(outOfOrder.get()).isZero();
        assertThat(senderNode.counters().backPressureEvents.get()).isPositive();
    }

    private Connection connect(final ThreadingMode senderMode)
    {
        receiverNode = Rivulet.launch(context().idleStrategy("backoff"));
        final MessageHandler handler = view ->
        {
            if (view.data().getInt(0) != received.getAndIncrement())
            {
                outOfOrder.incrementAndGet();
            }
        };
        final Server server = receiverNode.bind("127.0.0.1:0", Responder.builder().fireAndForgetHandler(handler)
            .build()).block(TIMEOUT);
        senderNode = Rivulet.launch(context().threadingMode(senderMode).outboundRingLength(128 * 1024)
            .maxFrameLength(8 * 1024));
        if (senderMode == ThreadingMode.INVOKER)
        {
            final var pending = senderNode.connect(server.localAddress()).toFuture();
            Await.until(TIMEOUT, senderNode::invoke, pending::isDone, () -> "connected");
            return pending.join();
        }
        return senderNode.connect(server.localAddress()).block(TIMEOUT);
    }

    private Rivulet.Context context()
    {
        return new Rivulet.Context().transport(new TcpTransport()).errorHandler(errors::add);
    }
}
