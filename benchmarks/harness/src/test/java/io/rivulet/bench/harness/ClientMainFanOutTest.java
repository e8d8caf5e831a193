package io.rivulet.bench.harness;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness releases what a size's fan-out opened before the next size's workloads: left open, the fan-out's
 * subscriber connections and polling threads made the later sizes' ping-pong run in another layout than the first
 * size's (issue 16).
 */
class ClientMainFanOutTest
{
    @Test
    void endsTheFanOutOfEachSizeBeforeTheNextSizesWorkloads()
    {
        final RecordingClient client = new RecordingClient(List.of("flux", "handler"), null);

        final int exitCode = run(client);

        assertThat(exitCode).isZero();
        assertThat(client.events).containsSubsequence(
            "prepare 32", "pingpong", "fanOut flux", "fanOut handler", "endFanOut",
            "prepare 256", "pingpong", "fanOut flux", "fanOut handler", "endFanOut", "close");
        assertThat(client.events.stream().filter("endFanOut"::equals)).hasSize(2);
        assertThat(client.events.subList(client.events.indexOf("prepare 256"), client.events.size()))
            .as("the 256 B ping-pong runs before that size's fan-out opens anything")
            .startsWith("prepare 256", "pingpong");
    }

    @Test
    void endsTheFanOutEvenWhenItFailed()
    {
        final RecordingClient client = new RecordingClient(List.of("flux"), "flux");

        final int exitCode = run(client);

        assertThat(exitCode).isEqualTo(1);
        assertThat(client.events).containsSubsequence(
            "prepare 32", "fanOut flux", "endFanOut", "prepare 256", "pingpong", "fanOut flux", "endFanOut");
    }

    private static int run(final RecordingClient client)
    {
        return ClientMain.commandLine(new ClientMainCommandLineTest.SystemOptions(), options -> client).execute(
            "--workloads", "pingpong,fanout", "--sizes", "32,256",
            "--pp-warmup", "1", "--pp-count", "3", "--fo-warmup", "1", "--fo-count", "2", "--subscribers", "2",
            "--fo-paced", "2", "--warmup-seconds", "0", "--warmup-min-seconds", "0");
    }

    /** Records what the harness asks of it; its fan-out delivers every message at once. */
    private static final class RecordingClient implements BenchClient
    {
        private final List<String> events = new ArrayList<>();
        private final List<String> fanOutApis;
        private final String failingApi;

        RecordingClient(final List<String> fanOutApis, final String failingApi)
        {
            this.fanOutApis = fanOutApis;
            this.failingApi = failingApi;
        }

        @Override
        public Line info()
        {
            return Line.of(Line.INFO, "system", "recording", "version", "0", "transport", "none",
                "topology", "none", "settings", "none");
        }

        @Override
        public void start()
        {
        }

        @Override
        public void prepare(final int size)
        {
            events.add("prepare " + size);
        }

        @Override
        public String pingPongApi()
        {
            return "roundTrip";
        }

        @Override
        public void roundTrip()
        {
            if (!events.get(events.size() - 1).equals("pingpong"))
            {
                events.add("pingpong");
            }
        }

        @Override
        public List<String> oneWayApis()
        {
            return List.of();
        }

        @Override
        public void send(final String api, final long count, final Progress progress)
        {
        }

        @Override
        public long sync()
        {
            return 0;
        }

        @Override
        public List<String> pipelinedApis()
        {
            return List.of();
        }

        @Override
        public void pipelined(
            final String api, final long count, final int window, final Histogram latencyNs, final Progress progress)
        {
        }

        @Override
        public List<String> fanOutApis()
        {
            return fanOutApis;
        }

        @Override
        public void fanOut(
            final String api, final int subscribers, final long count, final long ratePerSecond,
            final Histogram latencyNs, final Progress progress)
        {
            final String event = "fanOut " + api;
            if (!events.get(events.size() - 1).equals(event))
            {
                events.add(event);
            }
            if (api.equals(failingApi))
            {
                throw new IllegalStateException("subscriber lost");
            }
            for (long i = 0; i < count * subscribers; i++)
            {
                latencyNs.recordValue(1_000);
            }
        }

        @Override
        public void endFanOut()
        {
            events.add("endFanOut");
        }

        @Override
        public void close()
        {
            events.add("close");
        }
    }
}
