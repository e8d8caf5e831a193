package io.rivulet.protocol;

import io.rivulet.Connection;
import io.rivulet.MessageClaim;
import io.rivulet.Responder;
import io.rivulet.counters.NodeCounters;
import io.rivulet.engine.Sender;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code offer} and {@code tryClaim} with a timeout (issue 16): a producer that finds the outbound ring full waits
 * until the engine's sender has written part of it, woken by the sender, not by time. The engine's agents are
 * stepped by this thread; the producer blocks in a thread of its own.
 */
class OfferWithTimeoutTest
{
    private static final int MAX_FRAME_LENGTH = 8 * 1024;
    private static final int RING_LENGTH = 64 * 1024;
    private static final int MESSAGE_LENGTH = 4096;
    private static final long WAIT_MS = 10_000;

    private final NodeCounters counters = new NodeCounters();
    private final InMemoryLink[] links = InMemoryLink.pair();
    private final List<byte[]> received = new ArrayList<>();
    private final ProtocolConnection client;
    private final ProtocolConnection server;
    private final Sender sender = new Sender(counters);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);
    private final List<Thread> producers = new ArrayList<>();
    private long nowNs = 1_000_000;

    OfferWithTimeoutTest()
    {
        final ProtocolSettings settings = new ProtocolSettings(MAX_FRAME_LENGTH, 1024 * 1024, 256,
            TimeUnit.SECONDS.toNanos(100), TimeUnit.SECONDS.toNanos(500), 64);
        client = new ProtocolConnection(links[0], new Outbound(RING_LENGTH, MAX_FRAME_LENGTH,
            counters.backPressureEvents), settings, counters.connectionCounters(), true, Responder.none(),
            Runnable::run, Throwable::printStackTrace, nowNs);
        server = new ProtocolConnection(links[1], new Outbound(RING_LENGTH, MAX_FRAME_LENGTH,
            counters.backPressureEvents), settings, counters.connectionCounters(), false,
            Responder.builder().fireAndForget(m ->
            {
                received.add(m.dataBytes());
                return Mono.empty();
            }).build(), Runnable::run, Throwable::printStackTrace, nowNs);
        sender.add(client);
        sender.add(server);
        client.sendSetup(new byte[0], new byte[0]);
        for (int i = 0; i < 10; i++)
        {
            cycle();
        }
        assertThat(client.api().isOpen()).isTrue();
    }

    @AfterEach
    void stopProducers() throws InterruptedException
    {
        for (final Thread producer : producers)
        {
            producer.interrupt();
            producer.join(WAIT_MS);
        }
    }

    @Test
    void shouldQueueAtOnceWhenTheRingHasRoom()
    {
        assertThat(client.api().offer(message, 0, MESSAGE_LENGTH, Duration.ofSeconds(1))).isPositive();
        drainAndDeliver();
        assertThat(received).hasSize(1);
    }

    @Test
    void shouldWaitWhileTheRingIsFullAndQueueOnceTheSenderHasWrittenPartOfIt() throws Exception
    {
        final int queued = fillRing();
        stamp(queued);
        final CompletableFuture<Long> result = producer(() ->
            client.api().offer(message, 0, MESSAGE_LENGTH, Duration.ofSeconds(60)));
        awaitWaiting(1);
        assertThat(result).as("still waiting: nothing drained the ring").isNotDone();

        sender.doWork(); // writes the ring to the link, and wakes the producer

        assertThat(result.get(WAIT_MS, TimeUnit.MILLISECONDS)).isPositive();
        drainAndDeliver();
        assertThat(received).hasSize(queued + 1);
        for (int i = 0; i < received.size(); i++)
        {
            assertThat(received.get(i)).as("message %d in order", i).startsWith(sequence(i));
        }
        assertThat(client.outbound().roomWaiters().waiting()).as("the slot given back").isZero();
    }

    @Test
    void shouldHaveTheSenderWakeAThreadParkedInASlotOnceItTookFramesOutOfTheRing() throws Exception
    {
        fillRing();
        final RoomWaiters waiters = client.outbound().roomWaiters();
        final Thread parked = new Thread(() ->
        {
            final int slot = waiters.enter(Thread.currentThread());
            LockSupport.park(); // untimed: only an unpark ends it
            waiters.leave(slot);
        }, "parked-producer");
        producers.add(parked);
        parked.start();
        awaitWaiting(1);
        while (parked.getState() != Thread.State.WAITING)
        {
            Thread.onSpinWait();
        }

        sender.doWork();

        parked.join(WAIT_MS);
        assertThat(parked.isAlive()).as("woken by the sender's pass").isFalse();
        assertThat(waiters.waiting()).isZero();
    }

    @Test
    void shouldClaimOnceTheSenderHasWrittenPartOfTheRing() throws Exception
    {
        final int queued = fillRing();
        final MessageClaim claim = new MessageClaim();
        final CompletableFuture<Long> result = producer(() ->
        {
            final long claimed = client.api().tryClaim(MESSAGE_LENGTH, claim, Duration.ofSeconds(60));
            if (claimed > 0)
            {
                claim.buffer().putInt(claim.offset(), 4242);
                claim.commit();
            }
            return claimed;
        });
        awaitWaiting(1);

        sender.doWork();

        assertThat(result.get(WAIT_MS, TimeUnit.MILLISECONDS)).isPositive();
        drainAndDeliver();
        assertThat(received).hasSize(queued + 1);
        assertThat(new UnsafeBuffer(received.get(queued)).getInt(0)).isEqualTo(4242);
    }

    @Test
    void shouldGiveUpWithBackPressuredAtTheTimeoutWhenTheRingStaysFull()
    {
        final int queued = fillRing();
        final long startNs = System.nanoTime();

        final long result = client.api().offer(message, 0, MESSAGE_LENGTH, Duration.ofMillis(50));

        assertThat(result).isEqualTo(Connection.BACK_PRESSURED);
        assertThat(System.nanoTime() - startNs).as("waited the timeout").isGreaterThanOrEqualTo(50_000_000L);
        assertThat(client.outbound().roomWaiters().waiting()).isZero();
        drainAndDeliver();
        assertThat(received).as("nothing sent for the refused message").hasSize(queued);
    }

    @Test
    void shouldTryOnceWithAZeroTimeout()
    {
        fillRing();
        assertThat(client.api().offer(message, 0, MESSAGE_LENGTH, Duration.ZERO)).isEqualTo(Connection.BACK_PRESSURED);
        assertThat(client.api().tryClaim(MESSAGE_LENGTH, new MessageClaim(), Duration.ZERO))
            .isEqualTo(Connection.BACK_PRESSURED);
    }

    @Test
    void shouldRefuseANegativeTimeout()
    {
        fillRing();
        assertThatThrownBy(() -> client.api().offer(message, 0, MESSAGE_LENGTH, Duration.ofMillis(-1)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative timeout");
    }

    @Test
    void shouldReturnClosedToAWaiterWhenTheConnectionCloses() throws Exception
    {
        fillRing();
        final CompletableFuture<Long> result = producer(() ->
            client.api().offer(message, 0, MESSAGE_LENGTH, Duration.ofSeconds(60)));
        awaitWaiting(1);

        client.api().close(); // the close wakes the waiter; nothing drains the ring

        assertThat(result.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(Connection.CLOSED);
    }

    @Test
    void shouldWakeEveryWaitingProducer() throws Exception
    {
        fillRing();
        final List<CompletableFuture<Long>> results = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            results.add(producer(() -> client.api().offer(message, 0, MESSAGE_LENGTH, Duration.ofSeconds(60))));
        }
        awaitWaiting(3);

        for (int i = 0; i < 1_000 && !results.stream().allMatch(CompletableFuture::isDone); i++)
        {
            sender.doWork();
            server.doWork(nowNs);
            LockSupport.parkNanos(1_000_000);
        }

        for (final CompletableFuture<Long> result : results)
        {
            assertThat(result.get(WAIT_MS, TimeUnit.MILLISECONDS)).isPositive();
        }
    }

    @Test
    void shouldInterruptAWaitingProducer() throws Exception
    {
        fillRing();
        final CompletableFuture<Long> result = producer(() ->
            client.api().offer(message, 0, MESSAGE_LENGTH, Duration.ofSeconds(60)));
        awaitWaiting(1);

        producers.get(0).interrupt();

        assertThat(result).failsWithin(Duration.ofMillis(WAIT_MS))
            .withThrowableOfType(java.util.concurrent.ExecutionException.class)
            .satisfies(ex -> assertThat(reactor.core.Exceptions.unwrap(ex.getCause()))
                .isInstanceOf(InterruptedException.class));
        assertThat(client.outbound().roomWaiters().waiting()).isZero();
    }

    /** Offers numbered messages until the ring is full; nothing drains it. */
    private int fillRing()
    {
        int queued = 0;
        while (true)
        {
            stamp(queued);
            if (client.api().offer(message, 0, MESSAGE_LENGTH) < 0)
            {
                return queued;
            }
            queued++;
        }
    }

    private void stamp(final int sequence)
    {
        message.putBytes(0, sequence(sequence));
    }

    private static byte[] sequence(final int sequence)
    {
        return ("#" + sequence + "#").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private CompletableFuture<Long> producer(final java.util.concurrent.Callable<Long> offer)
    {
        final CompletableFuture<Long> result = new CompletableFuture<>();
        final Thread thread = new Thread(() ->
        {
            try
            {
                result.complete(offer.call());
            }
            catch (final Throwable ex)
            {
                result.completeExceptionally(ex);
            }
        }, "producer-" + producers.size());
        producers.add(thread);
        thread.start();
        return result;
    }

    /** Until so many producers hold a slot the sender wakes (bounded). */
    private void awaitWaiting(final int count)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (client.outbound().roomWaiters().waiting() < count)
        {
            assertThat(System.nanoTime() - deadlineNs).as("%d producers waiting in time", count).isNegative();
            LockSupport.parkNanos(100_000);
        }
    }

    private void drainAndDeliver()
    {
        for (int i = 0; i < 100; i++)
        {
            cycle();
        }
    }

    private int cycle()
    {
        nowNs += 1_000;
        return sender.doWork() + server.doWork(nowNs) + sender.doWork() + client.doWork(nowNs);
    }
}
