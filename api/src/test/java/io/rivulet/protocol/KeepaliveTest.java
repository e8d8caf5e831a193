package io.rivulet.protocol;

import io.rivulet.counters.NodeCounters;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Keepalive on its own, on an injected clock: liveness, the KEEPALIVE it queues, and adopting the client's. */
class KeepaliveTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Outbound outbound = new Outbound(256 * 1024, 16 * 1024, new NodeCounters().backPressureEvents);
    private final Keepalive keepalive = new Keepalive(new ControlFrames(outbound), 100 * MS, 500 * MS, 0);

    @Test
    void shouldQueueAKeepaliveWhileThePeerIsHeardAndReportTheSilenceOnceTooLong()
    {
        assertThat(keepalive.onTimer(100 * MS)).as("alive").isZero();
        assertThat(framesQueued()).isEqualTo(1);
        keepalive.onFrameReceived(400 * MS);
        assertThat(keepalive.onTimer(900 * MS)).as("500 ms since the last frame: not more than the timeout").isZero();
        assertThat(keepalive.onTimer(901 * MS)).isEqualTo(501 * MS);
        assertThat(framesQueued()).as("one more for the live check, none once the peer is lost").isEqualTo(1);
    }

    @Test
    void shouldAnswerOnlyAKeepaliveThatAsksForAnAnswer()
    {
        keepalive.onKeepaliveFrame(false, 7);
        assertThat(framesQueued()).isZero();
        keepalive.onKeepaliveFrame(true, 7);
        assertThat(framesQueued()).isEqualTo(1);
    }

    @Test
    void shouldAdoptTheClientsTimingsAndAskForTheTimerToBeRescheduledOnce()
    {
        assertThat(keepalive.takeChanged()).isFalse();
        keepalive.adopt(250, 2_000);

        assertThat(keepalive.intervalNs()).isEqualTo(250 * MS);
        assertThat(keepalive.timeoutNs()).isEqualTo(2_000 * MS);
        assertThat(keepalive.takeChanged()).isTrue();
        assertThat(keepalive.takeChanged()).isFalse();
    }

    private int framesQueued()
    {
        final int[] frames = {0};
        outbound.ring().read((type, buffer, index, length) -> frames[0]++);
        return frames[0];
    }
}
