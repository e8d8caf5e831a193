package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.MessageClaim;
import io.rivulet.MessageHandler;
import io.rivulet.MessageView;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Connection#tryClaim} between two nodes over loopback TCP: the receiver's zero-copy handler sees exactly the
 * bytes written into each committed claim and nothing of an aborted one; a claim too long, on a closed connection or
 * on a full ring is refused with the {@code offer} contract; a claim is committed once.
 */
class TryClaimTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);

    private final List<byte[]> received = new CopyOnWriteArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private volatile CountDownLatch receiverGate = new CountDownLatch(0);
    private Rivulet receiverNode;
    private Rivulet senderNode;
    private Connection connection;

    @BeforeEach
    void connect()
    {
        receiverNode = Rivulet.launch(context());
        senderNode = Rivulet.launch(context());
        final MessageHandler handler = view ->
        {
            awaitGate();
            received.add(copy(view));
        };
        final Server server = receiverNode.bind("127.0.0.1:0", Responder.builder().fireAndForgetHandler(handler)
            .build()).block(TIMEOUT);
        connection = senderNode.connect(server.localAddress()).block(TIMEOUT);
    }

    @AfterEach
    void close()
    {
        receiverGate.countDown();
        senderNode.close();
        receiverNode.close();
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(60)
    void shouldDeliverExactlyTheCommittedBytesAndNothingOfAnAbortedClaim()
    {
        final MessageClaim claim = new MessageClaim();
        final int[] lengths = { 0, 1, 100, connection.maxOfferLength() };
        final List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < lengths.length; i++)
        {
            final byte[] payload = pattern(lengths[i], i);
            claimOrFail(payload.length, claim);
            assertThat(claim.length()).isEqualTo(payload.length);
            claim.buffer().putBytes(claim.offset(), payload);
            assertThat(claim.commit()).isTrue();
            sent.add(payload);

            claimOrFail(16, claim);
            claim.buffer().putBytes(claim.offset(), pattern(16, 99));
            claim.abort();
        }

        Await.until(TIMEOUT, () -> received.size() >= sent.size(), () -> "received " + received.size());
        assertThat(received).as("only the committed messages, in order, byte for byte").containsExactlyElementsOf(sent);
        assertThat(receiverNode.counters().messagesReceived.get()).isEqualTo(sent.size());
    }

    @Test
    void shouldRefuseAClaimLongerThanTheOfferMaximumOrNegative()
    {
        final MessageClaim claim = new MessageClaim();
        assertThatThrownBy(() -> connection.tryClaim(connection.maxOfferLength() + 1, claim))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("offer maximum");
        assertThatThrownBy(() -> connection.tryClaim(-1, claim)).isInstanceOf(IllegalArgumentException.class);
        assertThat(claim.isClaimed()).isFalse();
    }

    @Test
    void shouldReportClosedOnAClosedConnection()
    {
        connection.close();
        Await.until(TIMEOUT, () -> !connection.isOpen(), () -> "connection to close");
        final MessageClaim claim = new MessageClaim();

        assertThat(connection.tryClaim(8, claim)).isEqualTo(Connection.CLOSED);
        assertThat(claim.isClaimed()).isFalse();
    }

    @Test
    void shouldRefuseASecondCommit()
    {
        final MessageClaim claim = new MessageClaim();
        claimOrFail(8, claim);
        claim.buffer().putLong(claim.offset(), 42L);
        assertThat(claim.commit()).isTrue();

        assertThatThrownBy(claim::commit).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(claim::abort).isInstanceOf(IllegalStateException.class);
        Await.until(TIMEOUT, () -> received.size() == 1, () -> "received " + received.size());
        assertThat(received.get(0)).hasSize(8);
    }

    @Test
    @ScaledTimeout(60)
    void shouldReportBackPressureWhenTheRingIsFullAndDeliverEverythingCommittedOnceItDrains()
    {
        receiverGate = new CountDownLatch(1); // the receiver's engine holds its first message: nothing is read
        final MessageClaim claim = new MessageClaim();
        final int length = connection.maxOfferLength();
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        int committed = 0;
        long result;
        while ((result = connection.tryClaim(length, claim)) > 0)
        {
            claim.buffer().setMemory(claim.offset(), length, (byte)committed);
            assertThat(claim.commit()).isTrue();
            committed++;
            assertThat(System.nanoTime() - deadlineNs).as("ring still not full after %d messages", committed)
                .isNegative();
        }
        assertThat(result).isEqualTo(Connection.BACK_PRESSURED);
        assertThat(claim.isClaimed()).as("a refused claim is left unset").isFalse();
        assertThat(senderNode.counters().backPressureEvents.get()).isPositive();

        receiverGate.countDown();
        final int expected = committed;
        Await.until(TIMEOUT, () -> received.size() >= expected, () -> "received " + received.size() + " of " +
            expected);
        assertThat(received).hasSize(expected);
        for (int i = 0; i < expected; i++)
        {
            assertThat(received.get(i)).as("message %d", i).hasSize(length).containsOnly((byte)i);
        }
    }

    private void claimOrFail(final int length, final MessageClaim claim)
    {
        final long result = Await.value(TIMEOUT, () ->
        {
            final long value = connection.tryClaim(length, claim);
            assertThat(value).isNotEqualTo(Connection.CLOSED);
            return value > 0 ? value : null;
        }, () -> "a claim of " + length + " bytes");
        assertThat(result).isPositive();
    }

    private void awaitGate()
    {
        try
        {
            receiverGate.await(TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private Rivulet.Context context()
    {
        return new Rivulet.Context().transport(new TcpTransport()).errorHandler(errors::add);
    }

    private static byte[] copy(final MessageView view)
    {
        final byte[] bytes = new byte[view.dataLength()];
        view.data().getBytes(0, bytes);
        return bytes;
    }

    private static byte[] pattern(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(seed * 31 + i);
        }
        return bytes;
    }
}
