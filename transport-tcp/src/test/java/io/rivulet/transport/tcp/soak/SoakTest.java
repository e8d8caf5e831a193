package io.rivulet.transport.tcp.soak;

import io.rivulet.tck.ScaledTimeout;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The soak: a node in its own JVM ({@link SoakServerMain}, -Xmx512m, a token) serves a well-behaved client
 * ({@link GoodClient}: request-response every 2 ms and a topic subscription) while six kinds of hostile peer attack it
 * at once for {@code rivulet.soak.duration} (see {@link SoakSettings}):
 *
 * <pre>
 *   (a) endless fragments   authenticated; many streams, each a fragmented message whose last fragment never comes
 *   (b) 24.8-day keepalive  authenticated; SETUP asks for Integer.MAX_VALUE ms keepalive, then idles
 *   (c) silent sockets      connect, send nothing
 *   (d) connect/close       connect and close at once (FIN or RST)
 *   (e) wrong tokens        SETUP with a wrong token
 *   (f) garbage bytes       random bytes, absurd length prefixes, frames cut short
 * </pre>
 *
 * The attackers leave from 127.0.0.2 to 127.0.0.50, each attack from eight addresses of its own (so a per-address
 * defence neither shuts an attack out at one address nor punishes one attack for another's doing), the good client
 * from 127.0.0.1. The test passes only if, over
 * the whole run: the good client got a correct reply to every request and every topic message in order, with no
 * error; its p99 round trip under attack stayed within 3x the p99 of the unloaded run measured first, that p99 counted
 * as at least {@value SoakSettings#P99_BASELINE_FLOOR_MS} ms (round trips as measured, the figure; the p99s corrected for coordinated omission, which show stalls, are printed too); the server's
 * resident memory stayed under {@code rivulet.soak.rssLimitMb} (768 MB for -Xmx512m), sampled every 2 s; the server
 * lived; and its file descriptors and threads came back to where they were before the attacks (within
 * {@value SoakSettings#FD_TOLERANCE} and {@value SoakSettings#THREAD_TOLERANCE}) once the attackers left.
 * It prints one SOAK SUMMARY line with the figures (also written to {@code target/soak-summary.txt}).
 *
 * <p>Run: {@code mvn -B -Psoak -pl transport-tcp -am verify -Dtest=SoakTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Drivulet.soak.duration=PT1M}. Tagged {@code soak}: the default build excludes it.
 */
@Tag("soak")
@ScaledTimeout(value = 30, unit = TimeUnit.HOURS) // a safety net only: every phase bounds itself by the settings
class SoakTest
{
    private static final long SAMPLE_INTERVAL_NS = TimeUnit.SECONDS.toNanos(2);
    private static final long PROGRESS_INTERVAL_NS = TimeUnit.SECONDS.toNanos(30);
    private static final Duration WARM_UP = Duration.ofSeconds(10);

    private final String token = "soak-" + UUID.randomUUID();
    private final List<String> log = new ArrayList<>();

    @Test
    void shouldServeAWellBehavedClientWhileHostilePeersAttack() throws Exception
    {
        final SoakSettings settings = SoakSettings.fromProperties();
        final long lifetimeSec = settings.duration().plus(settings.baseline()).plus(settings.grace())
            .plus(WARM_UP).plusMinutes(10).toSeconds();
        final LatencyRecorder unloaded = new LatencyRecorder();
        final LatencyRecorder loaded = new LatencyRecorder();
        final LatencyRecorder unloadedCorrected = new LatencyRecorder();
        final LatencyRecorder loadedCorrected = new LatencyRecorder();
        final Figures figures = new Figures();
        final List<Attack> attacks = new ArrayList<>();
        final GoodClient.TopicFeed feed;
        final GoodClient good;
        try (ServerProcess server = ServerProcess.start(token, lifetimeSec, settings.serverJvmArgs()))
        {
            final String address = "127.0.0.1:" + server.port();
            say("server pid %d on %s, %s %s; attacks '%s' for %s after a %s unloaded baseline", server.pid(), address,
                SoakSettings.SERVER_HEAP, String.join(" ", settings.serverJvmArgs()), settings.attacks(),
                settings.duration(), settings.baseline());
            good = new GoodClient(address, token);
            try
            {
                feed = good.feed();
                pause(WARM_UP.compareTo(settings.baseline()) < 0 ? WARM_UP : settings.baseline(), server);
                good.recordInto(unloaded, unloadedCorrected);
                figures.loadAverageBefore = loadAverage();
                pause(settings.baseline(), server);

                figures.start = server.stats();
                figures.max = figures.start;
                good.recordInto(loaded, loadedCorrected);
                final InetSocketAddress target = new InetSocketAddress("127.0.0.1", server.port());
                startAttacks(settings, target, attacks);
                underAttack(settings, server, good, attacks, figures);
                figures.loadAverageUnderAttack = loadAverage();
                for (final Attack attack : attacks)
                {
                    attack.close(); // closes its connections
                }
                good.recordInto(null, null);
                settle(settings, server, figures);
                if (server.isAlive())
                {
                    figures.serverSequence = awaitTopic(good, feed);
                }
            }
            finally
            {
                good.close();
            }
            figures.serverAlive = server.isAlive();
            figures.exitCode = server.exitCode();
            figures.lastStats = server.lastStats();
            figures.outOfMemoryErrors = server.outOfMemoryErrors();
            figures.otherOutput = server.otherOutput();
        }
        report(settings, new LatencyRecorder[]{unloaded, loaded, unloadedCorrected, loadedCorrected}, figures, attacks,
            good, feed);
    }

    /** What the run measured on the server. */
    private static final class Figures
    {
        ProcessStats start;
        ProcessStats max;
        ProcessStats end;
        long serverSequence = -1;
        boolean serverAlive;
        boolean diedUnderAttack;
        int exitCode;
        int outOfMemoryErrors;
        String lastStats;
        String otherOutput;
        long settleMs;
        String loadAverageBefore;
        String loadAverageUnderAttack;

        void sample(final ProcessStats stats)
        {
            max = new ProcessStats(Math.max(max.rssKb(), stats.rssKb()), Math.max(max.fds(), stats.fds()),
                Math.max(max.threads(), stats.threads()));
        }
    }

    private void startAttacks(final SoakSettings settings, final InetSocketAddress target, final List<Attack> attacks)
    {
        if (settings.runs('a'))
        {
            attacks.add(new FragmentFlood(target, token, settings.fragmentRate()));
        }
        if (settings.runs('b'))
        {
            attacks.add(new KeepaliveHogs(target, token));
        }
        if (settings.runs('c'))
        {
            attacks.add(new SilentSockets(target));
        }
        if (settings.runs('d'))
        {
            attacks.add(new ConnectChurn(target));
        }
        if (settings.runs('e'))
        {
            attacks.add(new WrongTokens(target));
        }
        if (settings.runs('f'))
        {
            attacks.add(new GarbageBytes(target));
        }
        attacks.forEach(Attack::start);
    }

    /** The attack phase: samples the server every 2 s, reports progress every 30 s, ends early if the server dies. */
    private void underAttack(final SoakSettings settings, final ServerProcess server, final GoodClient good,
        final List<Attack> attacks, final Figures figures)
    {
        final long startNs = System.nanoTime();
        final long endNs = startNs + settings.duration().toNanos();
        long nextProgressNs = startNs + PROGRESS_INTERVAL_NS;
        while (System.nanoTime() - endNs < 0)
        {
            LockSupport.parkNanos(Math.min(SAMPLE_INTERVAL_NS, Math.max(1, endNs - System.nanoTime())));
            final ProcessStats stats = sample(server, figures);
            if (stats == null)
            {
                figures.diedUnderAttack = true;
                say("the server died %d s into the attacks (exit code %d)",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNs), server.exitCode());
                return;
            }
            if (System.nanoTime() - nextProgressNs >= 0)
            {
                nextProgressNs += PROGRESS_INTERVAL_NS;
                say("%d s under attack: server rss %d MiB, %d fds, %d threads; good client %d sent, %d errors; " +
                    "server %s", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNs), stats.rssMb(),
                    stats.fds(), stats.threads(), good.sent(), good.errors(), server.lastStats());
                attacks.forEach(attack -> say("  %s", attack.summary()));
            }
        }
    }

    /** After the attacks: waits (at most the grace period) for descriptors and threads to come back. */
    private void settle(final SoakSettings settings, final ServerProcess server, final Figures figures)
    {
        final long startNs = System.nanoTime();
        final long endNs = startNs + settings.grace().toNanos();
        while (server.isAlive())
        {
            final ProcessStats stats = sample(server, figures);
            if (stats == null)
            {
                break;
            }
            figures.end = stats;
            if (stats.fds() <= figures.start.fds() + SoakSettings.FD_TOLERANCE &&
                stats.threads() <= figures.start.threads() + SoakSettings.THREAD_TOLERANCE)
            {
                break;
            }
            if (System.nanoTime() - endNs >= 0)
            {
                break;
            }
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
        }
        figures.settleMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
    }

    /** @return the server's figures now (kept in the maxima), or null when it is gone. */
    private static ProcessStats sample(final ServerProcess server, final Figures figures)
    {
        try
        {
            final ProcessStats stats = server.stats();
            figures.sample(stats);
            return server.isAlive() ? stats : null;
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    /** @return the topic's last sequence on the server, once the subscription has it (or after 30 s). */
    private static long awaitTopic(final GoodClient good, final GoodClient.TopicFeed feed)
    {
        try
        {
            final long sequence = good.serverTopicSequence();
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (feed.lastSequence() < sequence && System.nanoTime() - deadlineNs < 0)
            {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
            return sequence;
        }
        catch (final RuntimeException ex)
        {
            return -1;
        }
    }

    private static void pause(final Duration duration, final ServerProcess server)
    {
        final long endNs = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() - endNs < 0 && server.isAlive())
        {
            LockSupport.parkNanos(Math.min(TimeUnit.MILLISECONDS.toNanos(200), Math.max(1, endNs - System.nanoTime())));
        }
    }

    private void report(final SoakSettings settings, final LatencyRecorder[] phases, final Figures figures,
        final List<Attack> attacks, final GoodClient good, final GoodClient.TopicFeed feed) throws IOException
    {
        final LatencyRecorder unloaded = phases[0];
        final LatencyRecorder loaded = phases[1];
        final double p99Unloaded = unloaded.percentileNs(99) / 1e6;
        final double p99Loaded = loaded.percentileNs(99) / 1e6;
        final double ratio = p99Unloaded > 0 ? p99Loaded / p99Unloaded : Double.NaN;
        final double p99Baseline = Math.max(p99Unloaded, SoakSettings.P99_BASELINE_FLOOR_MS);
        final double p99UnloadedCorrected = phases[2].percentileNs(99) / 1e6;
        final double p99LoadedCorrected = phases[3].percentileNs(99) / 1e6;
        final ProcessStats start = figures.start;
        final ProcessStats end = figures.end;
        final String summary = String.format(Locale.ROOT,
            "SOAK SUMMARY duration=%s attacks=%s | requests sent=%d received=%d errors=%d | round trip p50/p99 " +
            "unloaded %.3f/%.3f ms (%d) loaded %.3f/%.3f ms (%d) max %.1f ms, p99 ratio %.2f (limit %.1fx the unloaded p99 " +
            "counted as at least %.1f ms: %.3f ms); corrected " +
            "for omission p99 %.3f -> %.3f ms (x%.2f) | server rss max %d MiB (limit %d, -Xmx512m) | fds " +
            "start/end/max %s/%s/%s | threads start/end/max %s/%s/%s (settled in %d ms) | topic items %d, last %d of " +
            "%d, problems %d | server %s | load average %s -> %s",
            settings.duration(), settings.attacks(), good.sent(), good.received(), good.errors(),
            unloaded.percentileNs(50) / 1e6, p99Unloaded, unloaded.count(), loaded.percentileNs(50) / 1e6, p99Loaded,
            loaded.count(), loaded.maxNs() / 1e6, ratio, SoakSettings.P99_RATIO_LIMIT,
            SoakSettings.P99_BASELINE_FLOOR_MS, SoakSettings.P99_RATIO_LIMIT * p99Baseline, p99UnloadedCorrected,
            p99LoadedCorrected, p99UnloadedCorrected > 0 ? p99LoadedCorrected / p99UnloadedCorrected : Double.NaN,
            figures.max == null ? -1 : figures.max.rssMb(), settings.rssLimitMb(),
            start == null ? "-" : start.fds(), end == null ? "-" : end.fds(), figures.max == null ? "-" : figures.max.fds(),
            start == null ? "-" : start.threads(), end == null ? "-" : end.threads(),
            figures.max == null ? "-" : figures.max.threads(), figures.settleMs, feed.dataItems(), feed.lastSequence(),
            figures.serverSequence, feed.problems(), figures.serverAlive ? "alive" : "DEAD (exit " + figures.exitCode +
                (figures.diedUnderAttack ? ", under attack" : "") + ")", figures.loadAverageBefore,
            figures.loadAverageUnderAttack);
        for (final Attack attack : attacks)
        {
            say("  %s", attack.summary());
        }
        say("  server's last STATS: %s", figures.lastStats);
        if (!figures.otherOutput.isEmpty())
        {
            say("  server's other output (last lines):%n%s", figures.otherOutput);
        }
        say("%s", summary);
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target", "soak-summary.txt"), log);

        final SoftAssertions soft = new SoftAssertions();
        soft.assertThat(figures.serverAlive).as("the server lived (exit code %d)", figures.exitCode).isTrue();
        soft.assertThat(figures.outOfMemoryErrors).as("OutOfMemoryErrors the server printed").isZero();
        soft.assertThat(good.errors()).as("the good client's errors; the first: %s", good.firstError()).isZero();
        soft.assertThat(good.received()).as("replies received = requests sent").isEqualTo(good.sent());
        soft.assertThat(loaded.count()).as("round trips measured under attack").isPositive();
        soft.assertThat(p99Loaded).as("p99 under attack (ms) within %.1fx the unloaded p99 of %.3f ms, counted as at " +
            "least %.1f ms", SoakSettings.P99_RATIO_LIMIT, p99Unloaded, SoakSettings.P99_BASELINE_FLOOR_MS)
            .isLessThanOrEqualTo(SoakSettings.P99_RATIO_LIMIT * p99Baseline);
        soft.assertThat(figures.max == null ? Long.MAX_VALUE : figures.max.rssMb()).as("the server's largest RSS, MiB")
            .isLessThan(settings.rssLimitMb());
        soft.assertThat(end).as("the server's figures after the attacks").isNotNull();
        if (start != null && end != null)
        {
            soft.assertThat(end.fds()).as("the server's descriptors after the attacks (before: %d)", start.fds())
                .isLessThanOrEqualTo(start.fds() + SoakSettings.FD_TOLERANCE);
            soft.assertThat(end.threads()).as("the server's threads after the attacks (before: %d)", start.threads())
                .isLessThanOrEqualTo(start.threads() + SoakSettings.THREAD_TOLERANCE);
        }
        soft.assertThat(feed.problems()).as("topic problems; the first: %s", feed.firstProblem()).isZero();
        soft.assertThat(feed.dataItems()).as("topic messages received").isPositive();
        soft.assertThat(feed.lastSequence()).as("the subscription has the topic's last message")
            .isGreaterThanOrEqualTo(figures.serverSequence).isPositive();
        for (final Attack attack : attacks)
        {
            soft.assertThat(attack.failure()).as("the attack harness itself: %s", attack.name).isNull();
            soft.assertThat(attack.opened.get()).as("connections %s opened", attack.name).isPositive();
        }
        soft.assertAll();
    }

    /** @return the machine's 1-minute load average: the soak shares the machine, and its latencies show it. */
    private static String loadAverage()
    {
        try
        {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        }
        catch (final IOException | RuntimeException ex)
        {
            return "?";
        }
    }

    private void say(final String format, final Object... args)
    {
        final String line = "soak: " + String.format(Locale.ROOT, format, args);
        log.add(line);
        System.out.println(line);
        System.out.flush();
    }
}
