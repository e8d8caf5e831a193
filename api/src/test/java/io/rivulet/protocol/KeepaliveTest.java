package io.rivulet.protocol;

import io.rivulet.counters.NodeCounters;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Keepalive on its own, on an injected clock: liveness, the KEEPALIVE it queues, the grant within the server's bound, idleness. */
class KeepaliveTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Outbound outbound = new Outbound(256 * 1024, 16 * 1024, new NodeCounters().backPressureEvents);
    private final Keepalive keepalive = new Keepalive(new ControlFrames(outbound), 100 * MS, 500 * MS, 0);

    @Test
    void shouldQueueAKeepaliveWhileThePeerIsHeardAndReportTheSilenceOnceTooLong()
    {
        assertThat(keepalive.onTimer(100 * MS, true)).as("alive").isZero();
        assertThat(framesQueued()).isEqualTo(1);
        keepalive.onFrameReceived(400 * MS);
        assertThat(keepalive.onTimer(900 * MS, true)).as("500 ms since the last frame: not more than the timeout").isZero();
        assertThat(keepalive.onTimer(901 * MS, true)).isEqualTo(501 * MS);
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
    void shouldGrantTheClientsTimingsWithinTheBoundAndAskForTheTimerToBeRescheduledOnce()
    {
        assertThat(keepalive.takeChanged()).isFalse();
        assertThat(keepalive.grant(250, 2_000, 60_000 * MS)).as("nothing clamped").isFalse();

        assertThat(keepalive.intervalNs()).isEqualTo(250 * MS);
        assertThat(keepalive.timeoutNs()).isEqualTo(2_000 * MS);
        assertThat(keepalive.takeChanged()).isTrue();
        assertThat(keepalive.takeChanged()).isFalse();
    }

    @Test
    void shouldClampAClientAskingForDaysToTheServersBoundKeepingTheIntervalBelowIt()
    {
        assertThat(keepalive.grant(Integer.MAX_VALUE - 1, Integer.MAX_VALUE, 60_000 * MS)).isTrue();

        assertThat(keepalive.timeoutNs()).isEqualTo(60_000 * MS);
        assertThat(keepalive.intervalNs()).isEqualTo(30_000 * MS);
        assertThat(keepalive.takeChanged()).isTrue();
    }

    @Test
    void shouldKeepTheClientsIntervalWhenOnlyTheTimeoutIsClamped()
    {
        assertThat(keepalive.grant(1_000, 3_600_000, 60_000 * MS)).isTrue();

        assertThat(keepalive.intervalNs()).isEqualTo(1_000 * MS);
        assertThat(keepalive.timeoutNs()).isEqualTo(60_000 * MS);
    }

    @Test
    void shouldFollowWhatTheServerGrantedButNeverLongerThanAsked()
    {
        // The keepalive under test asked for 100 ms / 500 ms (see the field).
        assertThat(keepalive.acceptGrant(50, 200)).as("the server granted less").isTrue();
        assertThat(keepalive.intervalNs()).isEqualTo(50 * MS);
        assertThat(keepalive.timeoutNs()).isEqualTo(200 * MS);

        final Keepalive greedy = new Keepalive(new ControlFrames(outbound), 100 * MS, 350 * MS, 0);
        assertThat(greedy.acceptGrant(10_000, 3_600_000)).as("a server granting more is not followed").isFalse();
        assertThat(greedy.intervalNs()).isEqualTo(100 * MS);
        assertThat(greedy.timeoutNs()).isEqualTo(350 * MS);
    }

    @Test
    void shouldMeasureIdlenessFromTheLastActivity()
    {
        final Keepalive idle = new Keepalive(new ControlFrames(outbound), 100 * MS, 350 * MS, 1_000 * MS);
        assertThat(idle.idleNs(1_500 * MS)).isEqualTo(500 * MS);
        idle.onFrameReceived(1_600 * MS);
        assertThat(idle.idleNs(1_700 * MS)).as("a KEEPALIVE is no activity").isEqualTo(700 * MS);
        idle.onActive(1_700 * MS);
        assertThat(idle.idleNs(1_750 * MS)).isEqualTo(50 * MS);
    }

    private int framesQueued()
    {
        final int[] frames = {0};
        outbound.ring().read((type, buffer, index, length) -> frames[0]++);
        return frames[0];
    }
}
