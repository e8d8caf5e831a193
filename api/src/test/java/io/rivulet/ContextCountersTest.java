package io.rivulet;

import io.rivulet.counters.ConnectionCounters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The node file's counter slots are sized from {@code maxConnections} unless given. */
class ContextCountersTest
{
    private static final String PROPERTY = "rivulet.maxCounters";

    @AfterEach
    void clearProperty()
    {
        System.clearProperty(PROPERTY);
    }

    @Test
    void shouldGiveEveryConnectionTheNodeMayHoldSlotsOfItsOwnByDefault()
    {
        final Rivulet.Context context = new Rivulet.Context();

        assertThat(context.maxCounters())
            .isEqualTo(Rivulet.Context.BASE_COUNTERS + ConnectionCounters.COUNTERS * context.maxConnections())
            .isEqualTo(1024 + 8 * 4096);
        assertThat(context.maxConnections(100).maxCounters()).isEqualTo(1024 + 800);
    }

    @Test
    void shouldStayWithinTheLargestNodeFileForManyConnections()
    {
        assertThat(new Rivulet.Context().maxConnections(1_000_000).maxCounters()).isEqualTo(1 << 20);
        assertThat(new Rivulet.Context().maxConnections(Integer.MAX_VALUE).maxCounters()).isEqualTo(1 << 20);
    }

    @Test
    void shouldKeepSlotsGivenBySetterOrPropertyWhateverMaxConnectionsSays()
    {
        assertThat(new Rivulet.Context().maxCounters(2048).maxConnections(10).maxCounters()).isEqualTo(2048);
        System.setProperty(PROPERTY, "512");
        assertThat(new Rivulet.Context().maxConnections(10_000).maxCounters()).isEqualTo(512);
    }
}
