package io.rivulet.protocol;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ArrivalClockTest
{
    private final CachedNanoClock time = new CachedNanoClock();
    private final ArrivalClock clock = new ArrivalClock(time);

    @Test
    void shouldReadTheClockOncePerPollAtTheFirstReply()
    {
        time.update(100);
        clock.pollStarted();
        time.update(150);
        assertThat(clock.nanoTime()).as("the first reply of the poll reads the clock").isEqualTo(150);
        time.update(400);
        assertThat(clock.nanoTime()).as("a later reply of the same poll").isEqualTo(150);
        clock.pollEnded();

        clock.pollStarted();
        time.update(900);
        assertThat(clock.nanoTime()).as("the next poll reads it again").isEqualTo(900);
        clock.pollEnded();
    }

    @Test
    void shouldReadTheClockOnEveryCallOutsideAPoll()
    {
        time.update(10);
        assertThat(clock.nanoTime()).isEqualTo(10);
        time.update(20);
        assertThat(clock.nanoTime()).isEqualTo(20);

        clock.pollStarted();
        assertThat(clock.nanoTime()).isEqualTo(20);
        clock.pollEnded();
        time.update(30);
        assertThat(clock.nanoTime()).as("a reading from the poll is not kept after it").isEqualTo(30);
    }

    @Test
    void shouldNotReadTheClockInAPollWithoutReplies()
    {
        clock.pollStarted();
        time.update(50);
        clock.pollEnded();
        clock.pollStarted();
        time.update(70);
        assertThat(clock.nanoTime()).as("read when the first reply asks, not when the poll began").isEqualTo(70);
        clock.pollEnded();
    }
}
