package io.rivulet.protocol;

import io.rivulet.ConnectionClosedException;
import io.rivulet.ConnectionLostException;
import io.rivulet.RivuletException;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.counters.NodeCounters;
import io.rivulet.spi.Violation;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The close state machine on its own, on an injected clock and a fake sender: the first cause wins, a graceful
 * close drains and then waits (bounded) for the peer, a lost connection is released at once, and a close that
 * cannot drain is cut short after a second.
 */
class ConnectionCloseTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final NodeCounters counters = new NodeCounters();
    private final InMemoryLink[] links = InMemoryLink.pair();
    private final Outbound outbound = new Outbound(256 * 1024, 16 * 1024, counters.backPressureEvents);
    private final List<RivuletException> closing = new ArrayList<>();
    private final List<Throwable> errors = new ArrayList<>();
    private long nowNs;
    private final ConnectionClose close = new ConnectionClose(links[0], outbound, new ControlFrames(outbound),
        counters.connectionCounters(), closing::add, () -> nowNs, 16);

    @Test
    void shouldDrainAGracefulCloseThenWaitForThePeerAndCompleteWithoutError()
    {
        assertThat(close.isOpen()).isTrue();
        assertThat(close.sendMode()).isEqualTo(SendMode.ACTIVE);

        close.closeGracefully(new ConnectionClosedException("closed locally"), ErrorCode.CONNECTION_CLOSE, "bye");
        close.lose(new ConnectionLostException("too late: the first cause wins"));

        assertThat(closing).hasSize(1).first().isInstanceOf(ConnectionClosedException.class);
        assertThat(close.isOpen()).isFalse();
        assertThat(close.sendMode()).isEqualTo(SendMode.DRAIN);
        assertThat(close.progress(nowNs)).as("the sender has not let go").isZero();
        close.onSenderReleased();
        nowNs += 500 * MS;
        assertThat(close.progress(nowNs)).as("waiting for the peer's close").isZero();
        assertThat(close.isFinished()).isFalse();
        nowNs += 501 * MS;
        assertThat(close.progress(nowNs)).isEqualTo(1);
        assertThat(close.isFinished()).isTrue();
        assertThat(links[0].isClosed()).isTrue();
        StepVerifier.create(close.onClose()).expectComplete().verify(Duration.ofSeconds(1));
        assertThat(counters.connectionsLost.get()).isZero();
    }

    @Test
    void shouldReleaseALostConnectionAtOnceAndCompleteWithItsCause()
    {
        close.lose(new ConnectionLostException("peer gone"));

        assertThat(close.sendMode()).isEqualTo(SendMode.RELEASE);
        assertThat(counters.connectionsLost.get()).isEqualTo(1);
        close.onSenderReleased();
        assertThat(close.progress(nowNs)).isEqualTo(1);
        StepVerifier.create(close.onClose()).expectErrorMessage("peer gone").verify(Duration.ofSeconds(1));
        assertThat(close.closedError()).hasMessage("peer gone");
    }

    @Test
    void shouldCutAStuckDrainShortAfterASecond()
    {
        close.closeGracefully(new ConnectionClosedException("closing"), null, null);
        nowNs += 1_000 * MS;
        close.progress(nowNs);
        assertThat(close.sendMode()).as("within the second").isEqualTo(SendMode.DRAIN);
        nowNs += 1;
        close.progress(nowNs);
        assertThat(close.sendMode()).isEqualTo(SendMode.RELEASE);
    }

    @Test
    void shouldAnswerAViolationWithAnErrorFrameAndReportItsReason()
    {
        close.protocolViolation(Violation.CREDIT_EXCEEDED, "PAYLOAD beyond the credits", errors::add);

        assertThat(errors).singleElement().satisfies(error -> assertThat(error)
            .hasMessage("protocol violation by server:2: PAYLOAD beyond the credits"));
        assertThat(counters.protocolErrors.get()).isEqualTo(1);
        assertThat(close.sendMode()).isEqualTo(SendMode.DRAIN);
        final int[] frames = {0};
        outbound.ring().read((type, buffer, index, length) -> frames[0]++);
        assertThat(frames[0]).as("the ERROR frame").isEqualTo(1);
    }

    @Test
    void shouldLoseTheConnectionWhenTheSenderReportsAFailedWrite()
    {
        assertThat(close.checkSendFailure()).isZero();
        close.onSendFailed(new java.io.IOException("broken pipe"));

        assertThat(close.checkSendFailure()).isEqualTo(1);
        assertThat(closing).singleElement().satisfies(cause -> assertThat(cause)
            .isInstanceOf(ConnectionLostException.class).hasMessageContaining("broken pipe"));
    }
}
