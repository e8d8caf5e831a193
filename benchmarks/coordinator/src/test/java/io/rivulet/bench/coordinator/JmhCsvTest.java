package io.rivulet.bench.coordinator;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JMH's CSV as the coordinator reads it: the size parameter is the row's size wherever its column is, and any other
 * parameter (a text one such as the responder) names a variant of the benchmark instead of failing the report.
 */
class JmhCsvTest
{
    @Test
    void shouldTakeTheSizeByItsColumnAndNameTheOtherParameters()
    {
        final List<Jmh.Score> scores = Jmh.parse(List.of(
            "\"Benchmark\",\"Mode\",\"Threads\",\"Samples\",\"Score\",\"Score Error (99.9%)\",\"Unit\"," +
                "\"Param: responder\",\"Param: size\"",
            "\"io.rivulet.bench.jmh.HandoffBenchmark.handoff\",\"thrpt\",2,2,13.5,NaN,\"ops/us\",,32",
            "\"io.rivulet.bench.jmh.RequestResponseBenchmark.offerRequest\",\"avgt\",1,5,0.54,0.02,\"us/op\"," +
                "inPlace,256"));

        assertThat(scores).containsExactly(
            new Jmh.Score("HandoffBenchmark.handoff", "thrpt", 32, 13.5, Double.NaN, "ops/us"),
            new Jmh.Score("RequestResponseBenchmark.offerRequest (responder=inPlace)", "avgt", 256, 0.54, 0.02,
                "us/op"));
    }
}
