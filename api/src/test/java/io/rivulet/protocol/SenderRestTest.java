package io.rivulet.protocol;

import io.rivulet.MessageClaim;
import io.rivulet.counters.NodeCounters;
import io.rivulet.engine.Sender;
import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.ReliableLink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sender visits only connections with something to send: one with an empty ring and a flushed link rests, and
 * each kind of output brings it back (a committed frame, a settled claim, a frame offered straight to the link, a
 * new send mode, frames received that leave the link owing its peer a flush); a full readiness queue makes the
 * sender visit them all; and a producer on another thread never loses a frame to a connection going to rest.
 * The sender is stepped with {@code doWork()}; the link is a fake that counts what it is given.
 */
class SenderRestTest
{
    private static final int RING = 64 * 1024;
    private static final int FRAME = 1024;

    private final NodeCounters counters = new NodeCounters();
    private final AtomicCounter backPressure = counters.backPressureEvents;
    private final List<Connection> connections = new ArrayList<>();

    @AfterEach
    void close()
    {
        counters.close();
    }

    @Test
    void shouldRestAConnectionWithNothingToSendAndBringItBackForACommittedFrame() throws Exception
    {
        final Sender sender = new Sender(counters);
        final Connection connection = add(sender);

        sender.doWork();
        assertThat(sender.visitingConnections()).as("empty ring, flushed link: rests after its first visit").isZero();

        assertThat(connection.outbound.offerFireAndForget(new UnsafeBuffer(new byte[8]), 0, 8)).isTrue();
        sender.doWork();
        assertThat(connection.link.frames).as("the commit brought it back").isEqualTo(1);
        assertThat(sender.visitingConnections()).as("and it rests again once drained").isZero();

        sender.doWork();
        assertThat(connection.link.frames).isEqualTo(1);
    }

    @Test
    void shouldComeBackForASettledClaimAndForAnAbortedOne() throws Exception
    {
        final Sender sender = new Sender(counters);
        final Connection connection = add(sender);
        sender.doWork();

        final MessageClaim claim = new MessageClaim();
        assertThat(connection.outbound.tryClaimFireAndForget(8, claim)).isTrue();
        sender.doWork();
        assertThat(connection.link.frames).as("a claim not yet committed sends nothing").isZero();
        claim.commit();
        sender.doWork();
        assertThat(connection.link.frames).as("the claim's commit brought it back").isEqualTo(1);

        assertThat(connection.outbound.tryClaimFireAndForget(8, claim)).isTrue();
        assertThat(connection.outbound.offerFireAndForget(new UnsafeBuffer(new byte[8]), 0, 8)).isTrue();
        sender.doWork();
        assertThat(connection.link.frames).as("behind the held claim").isEqualTo(1);
        claim.abort();
        sender.doWork();
        assertThat(connection.link.frames).as("the abort let the frame behind it go").isEqualTo(2);
        assertThat(sender.visitingConnections()).isZero();
    }

    @Test
    void shouldFlushALinkOfferedToOnTheSenderThreadAndOneThatOwesItsPeer() throws Exception
    {
        final Sender sender = new Sender(counters);
        final Connection connection = add(sender);
        sender.doWork();

        connection.link.unflushed = true; // a topic frame offered straight to the link, waiting in its buffer
        connection.outbound.scheduleFlush();
        sender.doWork();
        assertThat(connection.link.flushes).as("the sender came back to flush it").isEqualTo(1);
        assertThat(sender.visitingConnections()).isZero();

        connection.link.unflushed = true; // frames received: an RDMA link now owes its peer credits
        connection.outbound.scheduleSend(); // what pollLink does when the link needsFlushAfterPoll()
        sender.doWork();
        assertThat(connection.link.flushes).isEqualTo(2);
    }

    @Test
    void shouldVisitARestingConnectionWhoseSendModeChanged() throws Exception
    {
        final Sender sender = new Sender(counters);
        final Connection connection = add(sender);
        sender.doWork();
        assertThat(sender.visitingConnections()).isZero();

        connection.mode = SendMode.DRAIN;
        connection.outbound.scheduleSend(); // what ConnectionClose does with each new mode
        sender.doWork();

        assertThat(connection.released).as("drained (nothing left) and released").isTrue();
        assertThat(sender.visitingConnections()).isZero();
        connection.outbound.scheduleSend(); // a late hand-off: the released connection is not visited again
        sender.doWork();
        assertThat(sender.visitingConnections()).isZero();
    }

    @Test
    void shouldVisitEveryConnectionWhenTheReadinessQueueOverflowed() throws Exception
    {
        final Sender sender = new Sender(counters, 2);
        final List<Connection> resting = new ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            resting.add(add(sender));
        }
        sender.doWork();
        assertThat(sender.visitingConnections()).isZero();

        for (final Connection connection : resting)
        {
            assertThat(connection.outbound.offerFireAndForget(new UnsafeBuffer(new byte[8]), 0, 8)).isTrue();
        }
        sender.doWork();

        for (final Connection connection : resting)
        {
            assertThat(connection.link.frames).as("queued or not, each connection was visited").isEqualTo(1);
        }
        assertThat(sender.visitingConnections()).isZero();
    }

    /**
     * The sender's last look before it lets a connection rest: a frame committed since its pass (the producer saw the
     * flag up, so it queued nothing) or a new send mode keeps the connection visited.
     */
    @Test
    void shouldNotRestWithOutputThatCameSinceThePass() throws Exception
    {
        final Sender sender = new Sender(counters);
        final Connection connection = add(sender);
        sender.doWork();
        assertThat(connection.outbound.offerFireAndForget(new UnsafeBuffer(new byte[8]), 0, 8)).isTrue();
        sender.doWork(); // visited again: the flag is up until the sender lets it rest

        assertThat(connection.outbound.offerFireAndForget(new UnsafeBuffer(new byte[8]), 0, 8)).isTrue();
        assertThat(connection.outbound.rest()).as("a frame in the ring").isFalse();
        sender.doWork();
        assertThat(connection.link.frames).isEqualTo(2);

        connection.mode = SendMode.DRAIN;
        assertThat(connection.outbound.rest()).as("a send mode other than ACTIVE").isFalse();
        connection.mode = SendMode.ACTIVE;
        assertThat(connection.outbound.rest()).as("nothing: it rests").isTrue();
    }

    /**
     * DEDICATED: the conductor polls the link between the sender's pass (the link flushed) and its last look, and the
     * poll leaves the link owing its peer credits; the {@code scheduleSend()} after that poll finds the flag still up
     * and queues nothing. The last look must see the link, or the credits wait for the next output (a keepalive)
     * while the peer may be out of credits. The link plays the conductor's poll right after it answered "flushed".
     */
    @Test
    void shouldNotRestALinkThatCameToOweItsPeerSinceThePass() throws Exception
    {
        final Sender sender = new Sender(counters);
        final Connection connection = add(sender);
        sender.doWork();
        assertThat(connection.outbound.offerFireAndForget(new UnsafeBuffer(new byte[8]), 0, 8)).isTrue();
        final boolean[] queued = new boolean[1];
        final int[] answers = new int[1];
        connection.link.afterFlushedAnswer = () ->
        {
            // The pass asks twice: whether to flush after the frames, then whether the connection is drained.
            if (++answers[0] == 2)
            {
                connection.link.unflushed = true; // the conductor's poll re-posted receives: credits owed
                queued[0] = connection.outbound.scheduleSend();
                connection.link.afterFlushedAnswer = null;
            }
        };

        sender.doWork();
        assertThat(queued[0]).as("the flag was still up: the poll queued nothing").isFalse();
        assertThat(connection.link.flushes).as("not flushed in that pass").isZero();
        assertThat(sender.visitingConnections()).as("the last look saw the link owing: still visited").isOne();
        sender.doWork();
        assertThat(connection.link.flushes).as("the credits went out").isEqualTo(1);
        assertThat(sender.visitingConnections()).isZero();
    }

    /**
     * A producer thread commits bursts of one to three frames and waits for each to reach the link before the next,
     * so every burst ends racing the sender letting the connection rest; a frame stranded in a resting connection's
     * ring fails the burst's wait. Bounded: 20,000 bursts, 2 s a burst, 60 s in all.
     */
    @Test
    void shouldStrandNoFrameWhenAProducerRacesTheSenderLettingTheConnectionRest() throws Exception
    {
        final Sender sender = new Sender(counters);
        final Connection connection = add(sender);
        final int bursts = 20_000;
        final AtomicReference<String> failure = new AtomicReference<>();
        final AtomicInteger committed = new AtomicInteger();
        final Thread producer = new Thread(() ->
        {
            final UnsafeBuffer frame = new UnsafeBuffer(new byte[8]);
            int number = 0;
            for (int burst = 0; burst < bursts && failure.get() == null; burst++)
            {
                for (int i = 0, size = 1 + burst % 3; i < size; i++)
                {
                    frame.putInt(0, number++);
                    while (!connection.outbound.offerFireAndForget(frame, 0, 8))
                    {
                        Thread.onSpinWait();
                    }
                }
                committed.set(number);
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (connection.link.frames < number)
                {
                    if (System.nanoTime() - deadlineNs > 0)
                    {
                        failure.set("burst " + burst + ": " + (number - connection.link.frames) +
                            " frame(s) left in the ring of a connection that rests");
                        return;
                    }
                    Thread.onSpinWait();
                }
            }
        }, "sender-rest-producer");
        producer.start();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int rests = 0;
        while (producer.isAlive() && System.nanoTime() - deadlineNs < 0)
        {
            sender.doWork();
            if (sender.visitingConnections() == 0)
            {
                rests++;
            }
        }
        producer.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(failure.get()).isNull();
        assertThat(connection.link.frames).as("every committed frame sent").isEqualTo(committed.get())
            .isEqualTo(bursts / 3 * 6 + (bursts % 3 == 0 ? 0 : 1) + (bursts % 3 == 2 ? 2 : 0));
        assertThat(connection.link.outOfOrder.get()).as("in order").isZero();
        assertThat(rests).as("the connection did rest between bursts").isPositive();
    }

    private Connection add(final Sender sender)
    {
        final Connection connection = new Connection(new Outbound(RING, FRAME, backPressure));
        connections.add(connection);
        sender.add(connection);
        return connection;
    }

    /** The sender's view of a connection, with a send mode the test sets. */
    private static final class Connection implements ConnectionOutput
    {
        final Outbound outbound;
        final CountingLink link = new CountingLink();
        volatile SendMode mode = SendMode.ACTIVE;
        boolean released;

        Connection(final Outbound outbound)
        {
            this.outbound = outbound;
        }

        @Override
        public ReliableLink link()
        {
            return link;
        }

        @Override
        public Outbound outbound()
        {
            return outbound;
        }

        @Override
        public SendMode sendMode()
        {
            return mode;
        }

        @Override
        public void onFramesSent(final int frames, final long bytes, final int messages)
        {
        }

        @Override
        public void onSendFailed(final IOException failure)
        {
            throw new AssertionError(failure);
        }

        @Override
        public void onSenderReleased()
        {
            released = true;
        }
    }

    /** Counts frames and flushes; {@link #unflushed} stands for bytes waiting in it until the next flush. */
    private static final class CountingLink implements ReliableLink
    {
        volatile int frames;
        final AtomicInteger outOfOrder = new AtomicInteger();
        int flushes;
        boolean unflushed;
        /** Run right after each answer "flushed": what another thread does in that moment. */
        Runnable afterFlushedAnswer;
        private int lastNumber = -1;

        @Override
        public boolean offer(final DirectBuffer buffer, final int offset, final int length)
        {
            // The fire-and-forget frame's data is its last 8 bytes; the number in their first 4.
            final int number = buffer.getInt(offset + length - 8);
            if (number != 0 && number != lastNumber + 1)
            {
                outOfOrder.incrementAndGet();
            }
            lastNumber = number;
            frames++;
            return true;
        }

        @Override
        public int flush()
        {
            if (unflushed)
            {
                unflushed = false;
                flushes++;
                return 1;
            }
            return 0;
        }

        @Override
        public boolean isFlushed()
        {
            final boolean flushed = !unflushed;
            if (flushed && null != afterFlushedAnswer)
            {
                afterFlushedAnswer.run();
            }
            return flushed;
        }

        @Override
        public int poll(final FrameHandler handler, final int frameLimit)
        {
            return 0;
        }

        @Override
        public String remoteAddress()
        {
            return "peer:1";
        }

        @Override
        public String localAddress()
        {
            return "local:2";
        }

        @Override
        public void close()
        {
        }
    }
}
