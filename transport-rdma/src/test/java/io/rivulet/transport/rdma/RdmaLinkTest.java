package io.rivulet.transport.rdma;

import io.rivulet.spi.FramingException;
import io.rivulet.spi.LinkClosedException;
import io.rivulet.tck.FrameRuns;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.rdma.RdmaTestSupport.Frames;
import io.rivulet.transport.rdma.RdmaTestSupport.LinkPair;
import io.rivulet.spi.FrameHandler;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.rivulet.transport.rdma.RdmaTestSupport.await;
import static io.rivulet.transport.rdma.RdmaTestSupport.awaitPollFailure;
import static io.rivulet.transport.rdma.RdmaTestSupport.frame;
import static io.rivulet.transport.rdma.RdmaTestSupport.isFrame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RdmaLink} over the soft provider's in-process fabric: frames both ways, batching, credits under
 * a slow receiver, frame limits, close.
 */
@ScaledTimeout(60)
class RdmaLinkTest
{
    private LinkPair pair;

    @BeforeEach
    void connect() throws IOException
    {
        pair = new LinkPair();
    }

    @AfterEach
    void close()
    {
        if (null != pair)
        {
            pair.close();
        }
    }

    @Test
    void shouldCarryFramesBothWaysWithAddresses() throws IOException
    {
        final Frames atServer = new Frames();
        final Frames atClient = new Frames();

        assertThat(pair.client.offer(frame(100, 1), 0, 100)).isTrue();
        pair.pump(pair.client, pair.server, atServer);
        assertThat(pair.server.offer(frame(200, 2), 0, 200)).isTrue();
        pair.pump(pair.server, pair.client, atClient);

        assertThat(atServer.size()).isEqualTo(1);
        assertThat(atServer.frames.get(0)).hasSize(100);
        assertThat(isFrame(new UnsafeBuffer(atServer.frames.get(0)), 0, 100, 1)).isTrue();
        assertThat(atClient.size()).isEqualTo(1);
        assertThat(isFrame(new UnsafeBuffer(atClient.frames.get(0)), 0, 200, 2)).isTrue();

        assertThat(pair.client.remoteAddress()).isEqualTo(pair.server.localAddress());
        assertThat(pair.client.localAddress()).isEqualTo(pair.server.remoteAddress());
        assertThat(pair.client.remoteAddress()).startsWith("127.0.0.1:");
    }

    @Test
    void shouldBatchManyFramesIntoOneSend() throws IOException
    {
        final int frames = 50;
        for (int i = 0; i < frames; i++)
        {
            assertThat(pair.client.offer(frame(16, i), 0, 16)).isTrue();
        }
        final long sendsBefore = pair.client.sendsPosted();

        assertThat(pair.client.flush()).isEqualTo(RdmaLink.HEADER_LENGTH + frames * (RdmaLink.LENGTH_PREFIX_LENGTH + 16));
        assertThat(pair.client.sendsPosted() - sendsBefore).isEqualTo(1);

        final Frames received = new Frames();
        pair.pump(pair.client, pair.server, received);
        assertThat(received.size()).isEqualTo(frames);
        for (int i = 0; i < frames; i++)
        {
            assertThat(isFrame(new UnsafeBuffer(received.frames.get(i)), 0, 16, i)).as("frame %d", i).isTrue();
        }
    }

    @Test
    void shouldSplitBatchesAtTheReceiveSlotLength() throws IOException
    {
        // Three maximum frames cannot share a slot: three SENDs.
        final int max = RdmaTestSupport.MAX_FRAME_LENGTH;
        for (int i = 0; i < 3; i++)
        {
            assertThat(pair.client.offer(frame(max, i), 0, max)).isTrue();
        }
        final long sendsBefore = pair.client.sendsPosted();
        final Frames received = new Frames();
        pair.pump(pair.client, pair.server, received);

        assertThat(pair.client.sendsPosted() - sendsBefore).isEqualTo(3);
        assertThat(received.size()).isEqualTo(3);
        for (int i = 0; i < 3; i++)
        {
            assertThat(isFrame(new UnsafeBuffer(received.frames.get(i)), 0, max, i)).isTrue();
        }
    }

    @Test
    void shouldCarryARunInAsManyBatchesAsItNeeds() throws IOException
    {
        // Three maximum frames (a slot each), then fifty small ones packed into as few slots as hold them.
        final int max = RdmaTestSupport.MAX_FRAME_LENGTH;
        final int[] lengths = new int[53];
        for (int i = 0; i < lengths.length; i++)
        {
            lengths[i] = i < 3 ? max : 16 + i;
        }
        final UnsafeBuffer run = FrameRuns.of(frames(lengths));
        final long sendsBefore = pair.client.sendsPosted();
        final long framesBefore = pair.client.framesSent();

        assertThat(pair.client.offerRun(run, 0, run.capacity())).isEqualTo(run.capacity());
        final Frames received = new Frames();
        pair.pump(pair.client, pair.server, received);

        final int slot = pair.client.layout().receiveSlotLength();
        int batches = 0;
        for (int i = 0, filled = slot; i < lengths.length; i++)
        {
            final int required = RdmaLink.LENGTH_PREFIX_LENGTH + lengths[i];
            if (filled + required > slot)
            {
                batches++;
                filled = RdmaLink.HEADER_LENGTH;
            }
            filled += required;
        }
        assertThat(batches).isGreaterThan(4);
        assertThat(pair.client.sendsPosted() - sendsBefore).as("one SEND per slot's worth").isEqualTo(batches);
        assertThat(pair.client.framesSent() - framesBefore).isEqualTo(lengths.length);
        assertThat(received.size()).isEqualTo(lengths.length);
        for (int i = 0; i < lengths.length; i++)
        {
            assertThat(isFrame(new UnsafeBuffer(received.frames.get(i)), 0, lengths[i], i)).as("frame %d", i).isTrue();
        }
    }

    @Test
    void shouldTakeWholeFramesOfARunAsFarAsTheRingAllowsAndTheRestLater() throws IOException
    {
        final int[] lengths = new int[400];
        for (int i = 0; i < lengths.length; i++)
        {
            lengths[i] = 100 + (i * 37) % 700;
        }
        final UnsafeBuffer run = FrameRuns.of(frames(lengths));
        final List<Integer> boundaries = FrameRuns.ends(frames(lengths));

        // The receiver does not poll: the run goes out as far as the ring and the peer's credits allow.
        int taken = 0;
        for (int i = 0; i < 100 && taken < run.capacity(); i++)
        {
            taken += pair.client.offerRun(run, taken, run.capacity() - taken);
            pair.client.flush();
        }
        assertThat(taken).as("a slow receiver holds part of the run back").isPositive().isLessThan(run.capacity());
        assertThat(boundaries).as("whole frames only").contains(taken);

        final int[] next = { taken };
        final Frames received = new Frames();
        await("the rest of the run, once the receiver polls", () ->
        {
            if (next[0] < run.capacity())
            {
                final int take = pair.client.offerRun(run, next[0], run.capacity() - next[0]);
                assertThat(take == 0 || boundaries.contains(next[0] + take)).isTrue();
                next[0] += take;
            }
            pair.client.flush();
            pair.server.poll(received, 16);
            pair.server.flush();
            pair.client.poll(new Frames(), 16);
            return received.size() == lengths.length;
        }, pair.clientDriver, pair.serverDriver);
        for (int i = 0; i < lengths.length; i++)
        {
            assertThat(isFrame(new UnsafeBuffer(received.frames.get(i)), 0, lengths[i], i)).as("frame %d", i).isTrue();
        }
    }

    /** @return frames of these lengths, frame i filled from seed i. */
    private static List<byte[]> frames(final int[] lengths)
    {
        final List<byte[]> frames = new ArrayList<>(lengths.length);
        for (int i = 0; i < lengths.length; i++)
        {
            frames.add(frame(lengths[i], i).byteArray());
        }
        return frames;
    }

    @Test
    void shouldBackPressureInsteadOfOverrunningASlowReceiver() throws IOException
    {
        final int length = 600;
        final int receiveCount = pair.server.layout().receiveCount();
        // The server announces its receives beyond the initial credits.
        await("credits announced", () ->
        {
            pair.server.flush();
            pair.client.poll(new Frames(), 16);
            return pair.client.availableCredits() == receiveCount;
        }, pair.clientDriver, pair.serverDriver);

        int offered = 0;
        int refusals = 0;
        // The receiver's sender keeps running but its conductor does not poll: the client may use the
        // credits of the posted receives and no more.
        for (int i = 0; i < 100_000 && refusals < 1000; i++)
        {
            if (pair.client.offer(frame(length, offered), 0, length))
            {
                offered++;
            }
            else
            {
                refusals++;
            }
            pair.client.flush();
            pair.server.flush();
            pair.client.poll(new Frames(), 16);
        }

        assertThat(refusals).as("offer back-pressured").isEqualTo(1000);
        assertThat(pair.client.sendsPosted()).as("SENDs posted against the peer's receives")
            .isLessThanOrEqualTo(receiveCount);
        assertThat(pair.client.availableCredits()).isLessThanOrEqualTo(1);
        assertThat(pair.client.creditStalls()).isPositive();
        assertThat(pair.client.isFlushed()).isFalse();

        // The receiver wakes up: everything arrives, in order, and the sender drains.
        final int sent = offered;
        final Frames received = new Frames();
        await("all frames", () ->
        {
            pair.client.flush();
            pair.server.poll(received, 7);
            pair.server.flush();
            pair.client.poll(received, 16);
            return pair.client.isFlushed() && received.size() == sent;
        }, pair.clientDriver, pair.serverDriver);
        for (int i = 0; i < sent; i++)
        {
            assertThat(isFrame(new UnsafeBuffer(received.frames.get(i)), 0, length, i)).as("frame %d", i).isTrue();
        }
        assertThat(pair.client.offer(frame(length, 0), 0, length)).isTrue();
        assertThat(RdmaTestSupport.device(pair.serverDriver).rnrNaksSent()).as("receiver-not-ready").isZero();
        assertThat(RdmaTestSupport.device(pair.clientDriver).rnrNaksReceived()).isZero();
        assertThat(RdmaTestSupport.device(pair.clientDriver).queuePairErrors()).isZero();
    }

    @Test
    void shouldReturnCreditsWithCreditOnlySendsWhenTrafficIsOneWay() throws IOException
    {
        final int length = 900;
        final Frames received = new Frames();
        final int total = 1000;
        final int[] offered = new int[1];
        await("one-way traffic", () ->
        {
            while (offered[0] < total && pair.client.offer(frame(length, offered[0]), 0, length))
            {
                offered[0]++;
            }
            pair.client.flush();
            pair.server.poll(received, 64);
            if (!pair.server.isFlushed())
            {
                pair.server.flush();
            }
            pair.client.poll(received, 64);
            return received.size() == total && pair.client.isFlushed() && pair.server.isFlushed();
        }, pair.clientDriver, pair.serverDriver);

        assertThat(pair.server.creditOnlySends()).isPositive();
        assertThat(pair.server.sendsPosted()).isEqualTo(pair.server.creditOnlySends());
        // Each credit-only SEND returns at least half the receives.
        assertThat(pair.server.creditOnlySends())
            .isLessThanOrEqualTo(pair.client.sendsPosted() / pair.server.layout().creditReturnThreshold() + 2);
    }

    /**
     * A SEND carrying only credits delivers no frame, yet the poll that takes it re-posts its receive (a credit now
     * owed) and may grant the credits a held return needs: the link asks for a flush after it, so that a resting
     * sender comes back. An empty poll does not ask.
     */
    @Test
    void shouldAskForAFlushAfterAPollThatTookOnlyCredits() throws IOException
    {
        final int length = 900;
        final Frames received = new Frames();
        final int[] offered = new int[1];
        await("a credit-only SEND from the server", () ->
        {
            if (pair.client.offer(frame(length, offered[0]), 0, length))
            {
                offered[0]++;
            }
            pair.client.flush();
            pair.server.poll(received, 64);
            pair.server.flush();
            return pair.server.creditOnlySends() > 0;
        }, pair.clientDriver, pair.serverDriver);
        pair.client.flush();

        final long completedBefore = pair.client.receivesCompleted();
        final Frames atClient = new Frames();
        final boolean[] asked = new boolean[1];
        await("the credit-only SEND at the client", () ->
        {
            final int frames = pair.client.poll(atClient, 64);
            assertThat(frames).as("nothing but credits goes to the client").isZero();
            asked[0] = pair.client.needsFlushAfterPoll(frames);
            return pair.client.receivesCompleted() > completedBefore;
        }, pair.clientDriver, pair.serverDriver);

        assertThat(asked[0]).as("the poll that took only credits asks for a flush").isTrue();
        assertThat(pair.client.poll(atClient, 64)).isZero();
        assertThat(pair.client.needsFlushAfterPoll(0)).as("an empty poll does not").isFalse();
        assertThat(atClient.size()).isZero();
    }

    @Test
    void shouldStopAtTheFrameLimitInsideABatchAndResume() throws IOException
    {
        for (int i = 0; i < 10; i++)
        {
            assertThat(pair.client.offer(frame(8, i), 0, 8)).isTrue();
        }
        pair.client.flush();

        final Frames received = new Frames();
        await("first frame", () -> pair.server.poll(received, 1) == 1, pair.serverDriver);
        for (int i = 1; i < 10; i++)
        {
            assertThat(pair.server.poll(received, 1)).isEqualTo(1);
        }
        assertThat(pair.server.poll(received, 1)).isZero();
        assertThat(received.size()).isEqualTo(10);
        for (int i = 0; i < 10; i++)
        {
            assertThat(isFrame(new UnsafeBuffer(received.frames.get(i)), 0, 8, i)).isTrue();
        }
    }

    @Test
    void shouldRejectOfferOutsideFrameBounds()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[RdmaTestSupport.MAX_FRAME_LENGTH + 1]);
        assertThatThrownBy(() -> pair.client.offer(buffer, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> pair.client.offer(buffer, 0, RdmaTestSupport.MAX_FRAME_LENGTH + 1))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("maximum " + RdmaTestSupport.MAX_FRAME_LENGTH);
    }

    @Test
    void shouldReportPeerCloseAsLinkClosedAfterDeliveringWhatWasSent() throws IOException
    {
        assertThat(pair.client.offer(frame(32, 9), 0, 32)).isTrue();
        await("posted and completed", () ->
        {
            pair.client.flush();
            return pair.client.isFlushed();
        }, pair.clientDriver);
        pair.client.close();

        final Frames received = new Frames();
        final IOException failure = awaitPollFailure(pair.server, received);
        assertThat(received.size()).isEqualTo(1);
        assertThat(failure).isInstanceOf(LinkClosedException.class).hasMessageContaining("closed by peer");
    }

    @Test
    void shouldFailFlushAfterPeerClosed() throws IOException
    {
        pair.server.close();
        final IOException failure = awaitPollFailure(pair.client, new Frames());
        assertThat(failure).isInstanceOf(LinkClosedException.class);

        final AtomicReference<IOException> flushFailure = new AtomicReference<>();
        await("flush fails", () ->
        {
            pair.client.offer(frame(16, 0), 0, 16);
            try
            {
                pair.client.flush();
            }
            catch (final IOException ex)
            {
                flushFailure.set(ex);
            }
            return null != flushFailure.get();
        }, pair.clientDriver);
        assertThat(flushFailure.get()).isInstanceOf(IOException.class);
    }

    @Test
    void shouldReturnMemoryToThePoolOnClose() throws IOException
    {
        final MemoryPool pool = pair.clientDriver.memoryPool();
        assertThat(pool.linksInUse()).isEqualTo(1);
        final long registrations = pool.registrations();

        pair.client.close();
        pair.client.close();

        assertThat(pool.linksInUse()).isZero();
        assertThat(pair.clientDriver.linkCount()).isZero();
        assertThat(pool.registrations()).isEqualTo(registrations);
        assertThat(pair.client.offer(frame(16, 0), 0, 16)).isFalse();
        assertThatThrownBy(pair.client::flush).isInstanceOf(LinkClosedException.class);
        assertThat(pair.client.poll(new Frames(), 10)).isZero();
    }

    @Test
    void shouldCarryFramesInOrderWithSenderAndReceiverOnTheirOwnThreads() throws Exception
    {
        final int total = 200_000;
        final AtomicReference<Throwable> senderFailure = new AtomicReference<>();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        // As in DEDICATED mode: the client's offer/flush on one thread, its poll on another.
        final Thread sender = new Thread(() ->
        {
            final IdleStrategy idle = new BackoffIdleStrategy(10, 10, 1_000, 100_000);
            try
            {
                int sent = 0;
                while (sent < total || !pair.client.isFlushed())
                {
                    int work = 0;
                    while (sent < total)
                    {
                        buffer.putInt(0, sent);
                        if (!pair.client.offer(buffer, 0, 4 + (sent & 31)))
                        {
                            break;
                        }
                        sent++;
                        work++;
                    }
                    work += pair.client.flush();
                    idle.idle(work);
                }
            }
            catch (final Throwable ex)
            {
                senderFailure.set(ex);
            }
        }, "sender");

        final int[] next = new int[1];
        final AtomicReference<String> orderFailure = new AtomicReference<>();
        final FrameHandler checker = (b, o, l) ->
        {
            final int value = b.getInt(o);
            if (value != next[0] || l != 4 + (value & 31))
            {
                orderFailure.compareAndSet(null, "expected " + next[0] + " got " + value + " length " + l);
            }
            next[0]++;
        };
        final FrameHandler none = (b, o, l) -> { };
        final IdleStrategy idle = new BackoffIdleStrategy(10, 10, 1_000, 100_000);
        sender.start();
        // The server's sender side (credit returns) runs on this thread too, as a node's sender agent would.
        final long deadline = System.nanoTime() + TestTime.nanos(50, TimeUnit.SECONDS);
        while (next[0] < total && null == senderFailure.get() && System.nanoTime() - deadline < 0)
        {
            int work = pair.server.poll(checker, 64);
            if (!pair.server.isFlushed())
            {
                work += pair.server.flush();
            }
            work += pair.client.poll(none, 64);
            idle.idle(work);
        }
        sender.join(TestTime.millis(10_000));

        assertThat(senderFailure.get()).isNull();
        assertThat(orderFailure.get()).isNull();
        assertThat(next[0]).isEqualTo(total);
        assertThat(pair.client.sendsPosted()).as("frames batched").isLessThan(total / 10);
        assertThat(RdmaTestSupport.device(pair.serverDriver).rnrNaksSent()).isZero();
    }
}
