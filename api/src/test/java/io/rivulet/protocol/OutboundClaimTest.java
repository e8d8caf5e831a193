package io.rivulet.protocol;

import io.rivulet.MessageClaim;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.counters.NodeCounters;
import io.rivulet.spi.EngineWake;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Claims in the outbound ring ({@code Connection.tryClaim}): what the sender reads after a commit, an abort, a
 * double commit, a full ring, and a claim that is never settled — taken back after {@link Outbound#CLAIM_TIMEOUT_NS}
 * on the conductor's clock, and never given back to the ring pool under a late writer.
 */
class OutboundClaimTest
{
    private static final int RING = 64 * 1024;
    private static final int FRAME = 4 * 1024;

    private final NodeCounters counters = new NodeCounters();
    private final long[] nowNs = { 1_000_000_000L };
    private final RingPool pool = new RingPool(RING, 1, () -> nowNs[0]);
    private final Outbound outbound = new Outbound(RING, RING, FRAME, counters.backPressureEvents,
        MemoryBudget.unlimited(), pool, EngineWake.NONE);
    private final MessageClaim claim = new MessageClaim();

    @Test
    void shouldSendExactlyTheClaimedBytesAsTheOfferWouldOnCommit()
    {
        assertThat(outbound.tryClaimFireAndForget(5, claim)).isTrue();
        assertThat(claim.isClaimed()).isTrue();
        assertThat(claim.length()).isEqualTo(5);
        claim.buffer().putBytes(claim.offset(), new byte[] { 1, 2, 3, 4, 5 });
        assertThat(drain()).as("nothing leaves before the commit").isEmpty();

        assertThat(claim.commit()).isTrue();
        assertThat(claim.isClaimed()).isFalse();
        assertThat(claim.length()).as("the claim lets go of the ring").isZero();
        final byte[] offered = { 1, 2, 3, 4, 5 };
        assertThat(outbound.offerFireAndForget(new UnsafeBuffer(offered), 0, offered.length)).isTrue();

        final List<byte[]> frames = drain();
        assertThat(frames).hasSize(2);
        assertThat(frames.get(0)).as("claimed and offered frames are the same bytes").isEqualTo(frames.get(1));
        final FrameReader reader = new FrameReader();
        final UnsafeBuffer frame = new UnsafeBuffer(frames.get(0));
        assertThat(reader.wrap(frame, 0, frame.capacity())).as("%s", reader.error()).isTrue();
        assertThat(reader.frameType()).isEqualTo(FrameType.REQUEST_FNF);
        assertThat(reader.streamId()).isZero();
        assertThat(reader.hasFlag(FrameFlags.NEXT)).isTrue();
        assertThat(reader.metadataLength()).isZero();
        final byte[] data = new byte[reader.dataLength()];
        frame.getBytes(reader.dataOffset(), data);
        assertThat(data).containsExactly(1, 2, 3, 4, 5);
    }

    @Test
    void shouldSendNothingForAnAbortedClaimAndKeepTheOrderOfTheRest()
    {
        assertThat(outbound.tryClaimFireAndForget(8, claim)).isTrue();
        claim.buffer().putLong(claim.offset(), 1L);
        claim.abort();
        assertThat(claim.isClaimed()).isFalse();
        assertThat(outbound.tryClaimFireAndForget(8, claim)).isTrue();
        claim.buffer().putLong(claim.offset(), 2L);
        assertThat(claim.commit()).isTrue();

        final List<byte[]> frames = drain();
        assertThat(frames).hasSize(1);
        assertThat(dataLong(frames.get(0))).isEqualTo(2L);
        assertThat(outbound.ring().consumerPosition()).isEqualTo(outbound.ring().producerPosition());
    }

    @Test
    void shouldRefuseASecondCommitAnAbortAfterCommitAndReuseOfAHeldClaim()
    {
        assertThatThrownBy(claim::commit).as("never claimed").isInstanceOf(IllegalStateException.class);
        assertThat(outbound.tryClaimFireAndForget(8, claim)).isTrue();
        assertThatThrownBy(() -> outbound.tryClaimFireAndForget(8, claim)).as("still holds a message")
            .isInstanceOf(IllegalStateException.class);
        assertThat(claim.commit()).isTrue();
        assertThatThrownBy(claim::commit).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("already committed");
        assertThatThrownBy(claim::abort).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> claim.buffer().putByte(0, (byte)1)).as("no write through a settled claim")
            .isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(drain()).as("one message, sent once").hasSize(1);
    }

    @Test
    void shouldReportAFullRingWithoutTouchingTheClaim()
    {
        int claimed = 0;
        while (outbound.tryClaimFireAndForget(FRAME - 64, claim))
        {
            assertThat(claim.commit()).isTrue();
            claimed++;
        }
        assertThat(claimed).as("the ring took some, then was full").isPositive();
        assertThat(claim.isClaimed()).isFalse();
        assertThat(counters.backPressureEvents.get()).isEqualTo(1);

        assertThat(drain()).hasSize(claimed);
        assertThat(outbound.tryClaimFireAndForget(FRAME - 64, claim)).as("room again once drained").isTrue();
        claim.abort();
    }

    @Test
    void shouldTakeBackAClaimThatBlocksTheRingForTheTimeoutAndRefuseItsLateCommit()
    {
        assertThat(outbound.tryClaimFireAndForget(8, claim)).isTrue();
        final byte[] behind = new byte[8];
        new UnsafeBuffer(behind).putLong(0, 7L);
        assertThat(outbound.offerFireAndForget(new UnsafeBuffer(behind), 0, 8)).isTrue();
        assertThat(drain()).as("the held claim blocks what follows it").isEmpty();

        outbound.flushParked(); // the conductor notices the blocked head
        nowNs[0] += Outbound.CLAIM_TIMEOUT_NS - 1;
        outbound.flushParked();
        assertThat(outbound.claimsTakenBack()).as("not before the timeout").isZero();
        assertThat(drain()).isEmpty();

        nowNs[0] += 1;
        assertThat(outbound.flushParked()).isEqualTo(1);
        assertThat(outbound.claimsTakenBack()).isEqualTo(1);
        final List<byte[]> frames = drain();
        assertThat(frames).as("the traffic behind it goes on").hasSize(1);
        assertThat(dataLong(frames.get(0))).isEqualTo(7L);

        assertThat(claim.commit()).as("the late commit is told it was not sent").isFalse();
        assertThat(drain()).isEmpty();
        assertThat(outbound.tryClaimFireAndForget(8, claim)).as("the claim is usable again").isTrue();
        assertThat(claim.commit()).isTrue();
        assertThat(drain()).hasSize(1);
    }

    @Test
    void shouldNotLetALateCommitSettleANewerClaimInTheSameSpace()
    {
        final int ringLength = 1024;
        final Outbound small = new Outbound(ringLength, ringLength, 128, counters.backPressureEvents,
            MemoryBudget.unlimited(), pool, EngineWake.NONE);
        assertThat(small.tryClaimFireAndForget(8, claim)).isTrue();
        final long firstAddress = ((UnsafeBuffer)claim.buffer()).addressOffset();
        small.flushParked();
        nowNs[0] += Outbound.CLAIM_TIMEOUT_NS;
        assertThat(small.flushParked()).as("taken back").isEqualTo(1);
        drainOf(small); // the sender passes the padding

        // Messages of the first claim's size until the next record cannot fit before the end: it wraps to index 0.
        final int record = RecordDescriptor.HEADER_LENGTH + FrameWriter.payloadFrameLength(FrameType.REQUEST_FNF, 0, 8);
        final int aligned = (record + RecordDescriptor.ALIGNMENT - 1) & -RecordDescriptor.ALIGNMENT;
        final UnsafeBuffer filler = new UnsafeBuffer(new byte[8]);
        long position;
        while ((position = small.ring().producerPosition() % ringLength) != 0 && ringLength - position >= aligned)
        {
            assertThat(small.offerFireAndForget(filler, 0, 8)).isTrue();
            assertThat(drainOf(small)).hasSize(1);
        }
        final MessageClaim newer = new MessageClaim();
        assertThat(small.tryClaimFireAndForget(16, newer)).isTrue();
        assertThat(((UnsafeBuffer)newer.buffer()).addressOffset()).as("the newer claim starts where the first did")
            .isEqualTo(firstAddress);

        assertThat(claim.commit()).as("the late commit finds another record: refused").isFalse();
        assertThat(drainOf(small)).as("the newer claim is not sent by the late commit").isEmpty();
        newer.buffer().putLong(newer.offset(), 5L);
        newer.buffer().putLong(newer.offset() + 8, 6L);
        assertThat(newer.commit()).isTrue();
        final List<byte[]> frames = drainOf(small);
        assertThat(frames).hasSize(1);
        assertThat(frames.get(0)).hasSize(FrameWriter.payloadFrameLength(FrameType.REQUEST_FNF, 0, 16));
    }

    @Test
    void shouldNotTakeBackAClaimThatIsNotAtTheHeadOrNotHeldForTheTimeout()
    {
        assertThat(outbound.tryClaimFireAndForget(8, claim)).isTrue();
        outbound.flushParked();
        nowNs[0] += Outbound.CLAIM_TIMEOUT_NS / 2;
        assertThat(claim.commit()).isTrue();
        final MessageClaim second = new MessageClaim();
        assertThat(outbound.tryClaimFireAndForget(8, second)).isTrue();
        nowNs[0] += Outbound.CLAIM_TIMEOUT_NS / 2;
        outbound.flushParked();
        assertThat(outbound.claimsTakenBack()).as("the first claim left the head in time").isZero();
        assertThat(drain()).hasSize(1);
        outbound.flushParked();
        nowNs[0] += Outbound.CLAIM_TIMEOUT_NS / 2;
        outbound.flushParked();
        assertThat(outbound.claimsTakenBack()).as("the second has blocked the head for half the timeout").isZero();
        assertThat(second.commit()).isTrue();
        assertThat(drain()).hasSize(1);
    }

    @Test
    void shouldFreeTheRingUnderAHeldClaimButNotGiveItBackToThePool()
    {
        assertThat(outbound.tryClaimFireAndForget(8, claim)).isTrue();
        final Outbound other = new Outbound(RING, RING, FRAME, counters.backPressureEvents, MemoryBudget.unlimited(),
            pool, EngineWake.NONE);

        assertThat(outbound.free()).as("a held claim does not hold the connection's release").isTrue();
        assertThat(other.free()).isTrue();
        assertThat(pool.idle()).as("only the ring without a claim is reused").isEqualTo(1);
        claim.buffer().putLong(claim.offset(), 1L); // a late write lands in memory no other ring uses
        assertThat(claim.commit()).isFalse();
    }

    @Test
    void shouldFreeTheRingIntoThePoolOnceTheClaimIsSettled()
    {
        assertThat(outbound.tryClaimFireAndForget(8, claim)).isTrue();
        claim.abort();
        assertThat(outbound.free()).isTrue();
        assertThat(pool.idle()).isEqualTo(1);
    }

    @Test
    void shouldKeepEachProducersMessagesWholeAndInOrderWhenClaimsAndOffersRace() throws InterruptedException
    {
        final int producers = 2;
        final int perProducer = 20_000;
        final Thread[] threads = new Thread[producers];
        final Throwable[] failures = new Throwable[producers];
        for (int p = 0; p < producers; p++)
        {
            final int producer = p;
            threads[p] = new Thread(() ->
            {
                final MessageClaim own = new MessageClaim();
                final UnsafeBuffer source = new UnsafeBuffer(new byte[16]);
                final IdleStrategy idle = new BackoffIdleStrategy(10, 20, 1_000, 100_000);
                try
                {
                    for (int i = 0; i < perProducer; i++)
                    {
                        final long value = ((long)producer << 32) | i;
                        boolean sent = false;
                        while (!sent)
                        {
                            if ((i & 1) == 0 && outbound.tryClaimFireAndForget(16, own))
                            {
                                own.buffer().putLong(own.offset(), value);
                                own.buffer().putLong(own.offset() + 8, ~value);
                                sent = own.commit();
                                assertThat(sent).as("committed in time: not taken back").isTrue();
                            }
                            else if ((i & 1) == 1)
                            {
                                source.putLong(0, value);
                                source.putLong(8, ~value);
                                sent = outbound.offerFireAndForget(source, 0, 16);
                            }
                            idle.idle(sent ? 1 : 0);
                        }
                    }
                }
                catch (final Throwable ex)
                {
                    failures[producer] = ex;
                }
            });
            threads[p].start();
        }

        final int[] next = new int[producers];
        final int[] wrong = new int[1];
        final FrameReader reader = new FrameReader();
        final IdleStrategy idle = new BackoffIdleStrategy(10, 20, 1_000, 100_000);
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int read = 0;
        while (read < producers * perProducer && System.nanoTime() - deadlineNs < 0)
        {
            final int frames = outbound.ring().read((type, buffer, offset, length) ->
            {
                if (!reader.wrap(buffer, offset, length) || reader.dataLength() != 16)
                {
                    wrong[0]++;
                    return;
                }
                final long value = buffer.getLong(reader.dataOffset());
                final int producer = (int)(value >>> 32);
                if (producer >= producers || buffer.getLong(reader.dataOffset() + 8) != ~value ||
                    (int)value != next[producer]++)
                {
                    wrong[0]++;
                }
            });
            read += frames;
            idle.idle(frames);
        }
        for (final Thread thread : threads)
        {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }

        assertThat(failures).containsOnlyNulls();
        assertThat(read).isEqualTo(producers * perProducer);
        assertThat(wrong[0]).as("frames torn, lost, repeated or out of a producer's order").isZero();
        assertThat(next).containsOnly(perProducer);
    }

    private List<byte[]> drain()
    {
        return drainOf(outbound);
    }

    private static List<byte[]> drainOf(final Outbound outbound)
    {
        final List<byte[]> frames = new ArrayList<>();
        outbound.ring().read((type, buffer, offset, length) ->
        {
            final byte[] frame = new byte[length];
            buffer.getBytes(offset, frame);
            frames.add(frame);
        });
        return frames;
    }

    private static long dataLong(final byte[] frame)
    {
        final FrameReader reader = new FrameReader();
        final UnsafeBuffer buffer = new UnsafeBuffer(frame);
        assertThat(reader.wrap(buffer, 0, frame.length)).isTrue();
        assertThat(reader.dataLength()).isEqualTo(8);
        return buffer.getLong(reader.dataOffset());
    }
}
