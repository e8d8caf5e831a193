package io.rivulet.tck;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;

import java.net.NetworkInterface;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * {@link NetworkNamespace} on fixture classes (nested, so that surefire does not run them itself): a class runs in a
 * namespace with only its own interfaces, a failure inside comes back with its stack trace, a child that outlives its
 * timeout is killed, and outside a namespace the fixtures skip themselves. Skipped where namespaces cannot be made.
 */
class NetworkNamespaceTest
{
    private static final Duration TIMEOUT = TestTime.seconds(60);

    @Test
    void shouldRunATestClassInANamespaceOfItsOwn() throws Exception
    {
        final NetworkNamespace.Result result = NetworkNamespace.runTests(Isolated.class,
            List.of("ip link add rvt0 type veth peer name rvt1", "ip addr add 10.200.0.1/24 dev rvt0",
                "ip link set rvt0 up", "ip link set rvt1 up"), TIMEOUT);

        assertThat(result.passed()).as(result.describe()).isTrue();
        assertThat(result.output()).contains("SUCCESSFUL shouldSeeOnlyTheNamespacesInterfaces()");
    }

    @Test
    void shouldReportAFailureInsideWithItsStackTrace() throws Exception
    {
        final NetworkNamespace.Result result = NetworkNamespace.runTests(Failing.class, List.of(), TIMEOUT);

        assertThat(result.timedOut()).isFalse();
        assertThat(result.exitStatus()).as(result.describe()).isEqualTo(NetworkNamespace.FAILED);
        assertThat(result.output()).contains("FAILED shouldFail()", "deliberate failure inside the namespace",
            "at io.rivulet.tck.NetworkNamespaceTest$Failing.shouldFail");
    }

    @Test
    void shouldFailARunWhoseSetupFails() throws Exception
    {
        final NetworkNamespace.Result result = NetworkNamespace.runTests(Isolated.class,
            List.of("ip link set rivulet-missing0 up"), TIMEOUT);

        assertThat(result.passed()).as(result.describe()).isFalse();
        assertThat(result.output()).doesNotContain("SUCCESSFUL");
    }

    @Test
    void shouldKillAChildThatOutlivesItsTimeout() throws Exception
    {
        final long startNs = System.nanoTime();
        final NetworkNamespace.Result result = NetworkNamespace.runTests(Hanging.class, List.of(),
            TestTime.seconds(3));

        assertThat(result.timedOut()).as(result.describe()).isTrue();
        assertThat(result.passed()).isFalse();
        assertThat(System.nanoTime() - startNs).isLessThan(TimeUnit.SECONDS.toNanos(60));
    }

    @Test
    void shouldSkipTheFixturesOutsideANamespace()
    {
        assertThat(NetworkNamespace.isInside()).isFalse();
        EngineTestKit.engine("junit-jupiter")
            .selectors(selectClass(Isolated.class), selectClass(Failing.class))
            .execute()
            .testEvents()
            .assertStatistics(stats -> stats.started(2).aborted(2).failed(0).succeeded(0));
    }

    /** Sees only loopback (up, multicast) and the veth pair the setup made: none of the host's interfaces. */
    static class Isolated
    {
        @BeforeEach
        void inside()
        {
            NetworkNamespace.assumeInside();
        }

        @Test
        void shouldSeeOnlyTheNamespacesInterfaces() throws Exception
        {
            final List<String> names = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .map(NetworkInterface::getName).sorted().collect(Collectors.toList());
            // Java lists an interface once it has an address: rvt1 may still lack its IPv6 link-local one.
            assertThat(names).contains("lo", "rvt0").isSubsetOf("lo", "rvt0", "rvt1");
            final NetworkInterface loopback = NetworkInterface.getByName("lo");
            assertThat(loopback.isUp()).isTrue();
            assertThat(loopback.supportsMulticast()).isTrue();
        }
    }

    /** Fails on purpose, inside only. */
    static class Failing
    {
        @BeforeEach
        void inside()
        {
            NetworkNamespace.assumeInside();
        }

        @Test
        void shouldFail()
        {
            assertThat("deliberate failure inside the namespace").isEmpty();
        }
    }

    /** Never ends by itself, inside only: the outer run's timeout must kill it. */
    static class Hanging
    {
        @Test
        void shouldHang()
        {
            NetworkNamespace.assumeInside();
            final long deadlineNs = System.nanoTime() + TimeUnit.MINUTES.toNanos(10); // bounded all the same
            while (System.nanoTime() - deadlineNs < 0)
            {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
    }
}
