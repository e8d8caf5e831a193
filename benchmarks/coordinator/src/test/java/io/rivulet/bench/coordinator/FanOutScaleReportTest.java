package io.rivulet.bench.coordinator;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FanOutScaleReportTest
{
    private static final FanOutScale.Scale MULTICAST = scale("rivulet-udp-multicast", "Rivulet UDP multicast");
    private static final FanOutScale.Scale AERON = scale("aeron-udp-multicast", "Aeron UDP multicast");
    private static final Machine MACHINE =
        new Machine(2, "test cpu", true, "1 GiB", "test os", "test jdk", "abc1234", "0 / 0 / 0", "10 µs");

    @Test
    void shouldReadTheCpuCriterionFromRatiosTakenWithinEachRun()
    {
        final List<FanOutScale.Sample> samples = new ArrayList<>();
        // Paced CPU per message at 1→64 ÷ 1→1 per run: 1.2, 1.5, 1.25 (median 1.25, holds); flat out 3× in each.
        final long[] pacedAt64 = {1_200, 1_500, 1_250};
        for (int run = 1; run <= 3; run++)
        {
            samples.add(sample(run, MULTICAST, 1, 300_000, 1_000, 1_000, null));
            samples.add(sample(run, MULTICAST, 64, 100_000, 3_000, pacedAt64[run - 1], null));
            samples.add(sample(run, AERON, 1, 300_000, 1_000, 1_000, null));
            samples.add(sample(run, AERON, 64, 200_000, 1_100, 1_100, null));
        }

        final String report = render(samples);

        assertThat(report).contains("| Rivulet UDP multicast: publisher CPU/msg paced at 20,000/s (idle included) at " +
            "1→64 ÷ at 1→1, ≤ 1.3 | 32 | 1.20, 1.50, 1.25 | 1.25 [1.20–1.50] | yes |");
        assertThat(report).contains("| Rivulet UDP multicast: publisher CPU/msg flat out at 1→64 ÷ at 1→1, ≤ 1.3 | 32 | " +
            "3.00, 3.00, 3.00 | 3.00 [3.00–3.00] | **no** |");
        // The peer's growth is there for scale, with no verdict.
        assertThat(report).contains("| Aeron UDP multicast: publisher CPU/msg flat out at 1→64 ÷ at 1→1 (for scale) | 32 | " +
            "1.10, 1.10, 1.10 | 1.10 [1.10–1.10] |  |");
        // 100,000 against 200,000 messages/s per subscriber, in every run.
        assertThat(report).contains("| Rivulet UDP multicast ÷ Aeron UDP multicast, delivered rate per subscriber at " +
            "1→64, ≥ 1 | 32 | 0.50, 0.50, 0.50 | 0.50 [0.50–0.50] | **no** |");
        // The median run of each cell, with the spread of all runs.
        assertThat(report).contains("| Rivulet UDP multicast | 1,000 [1,000–1,000] | 1,250 [1,200–1,500] |");
    }

    @Test
    void shouldLeaveFailedCellsOutOfTheMediansAndNameThem()
    {
        final List<FanOutScale.Sample> samples = new ArrayList<>();
        samples.add(sample(1, MULTICAST, 1, 300_000, 1_000, 1_000, null));
        samples.add(sample(1, MULTICAST, 64, 100_000, 3_000, 1_200, null));
        samples.add(sample(2, MULTICAST, 1, 300_000, 1_000, 1_000, null));
        samples.add(sample(2, MULTICAST, 64, 0, 0, 0, "subscriber 7: expected message 12, got 13 (out of order or lost)"));

        final String report = render(samples);

        // Run 2's 1→64 failed: one ratio, from run 1.
        assertThat(report).contains("paced at 20,000/s (idle included) at 1→64 ÷ at 1→1, ≤ 1.3 | 32 | 1.20 |");
        assertThat(report).contains("**Failed cells** (not in the medians)")
            .contains("- run 2 rivulet-udp-multicast 32 B 1→64: subscriber 7: expected message 12, got 13");
    }

    private static String render(final List<FanOutScale.Sample> samples)
    {
        return new FanOutScaleReport(List.of(MULTICAST, AERON), List.of(32), List.of(1, 64), 20_000, samples)
            .render("./rivulet-bench fanout-scale --runs 3", MACHINE, 60);
    }

    /** A cell measured over one second flat out and one second at each paced rate. */
    private static FanOutScale.Sample sample(final int run, final FanOutScale.Scale system, final int subscribers,
        final long ratePerSubscriber, final long flatCpuPerMessage, final long pacedCpuPerMessage, final String error)
    {
        final long second = 1_000_000_000L;
        return new FanOutScale.Sample(run, 0, system.id(), 32, subscribers, ratePerSubscriber, second,
            flatCpuPerMessage * ratePerSubscriber, second / 2, 20_000, second, pacedCpuPerMessage * 20_000, second / 4,
            10_000, second, pacedCpuPerMessage * 10_000, second, second / 10, error);
    }

    private static FanOutScale.Scale scale(final String id, final String label)
    {
        return new FanOutScale.Scale(id, label, "rivulet", "io.rivulet.bench.rivulet.ScaleFanOutPublisher", List.of(),
            List.of(), "how " + id);
    }
}
