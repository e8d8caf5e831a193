package io.rivulet.tck;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * {@link ScaledTimeout} and {@link ScaledTimeoutExtension}, run on fixture classes through JUnit's engine test kit.
 * The fixtures are nested classes, which Surefire does not run by itself; their limits are short and scaled like
 * any other, so the expected messages are computed with this JVM's factor.
 */
class ScaledTimeoutExtensionTest
{
    /** Far longer than any fixture limit: a fixture that sleeps this long was not interrupted. */
    private static final long SLEEP_MS = 30_000;

    @Test
    void shouldDescribeTheScaledTimeoutTheBaseValueAndTheFactor()
    {
        assertThat(new ScaledTimeoutExtension.Limit(60, TimeUnit.SECONDS).describe("shouldX()", 10))
            .isEqualTo("shouldX() timed out after 600 s (60 s × rivulet.test.timeScale 10)");
        assertThat(new ScaledTimeoutExtension.Limit(60, TimeUnit.SECONDS).describe("shouldX()", 1))
            .isEqualTo("shouldX() timed out after 60 s (60 s × rivulet.test.timeScale 1)");
        assertThat(new ScaledTimeoutExtension.Limit(300, TimeUnit.MILLISECONDS).describe("setUp()", 2.5))
            .isEqualTo("setUp() timed out after 750 ms (300 ms × rivulet.test.timeScale 2.5)");
    }

    @Test
    void shouldScaleTheLimitByTheFactor()
    {
        assertThat(new ScaledTimeoutExtension.Limit(60, TimeUnit.SECONDS).scaledNanos())
            .isEqualTo(TestTime.nanos(60, TimeUnit.SECONDS))
            .isEqualTo((long)Math.ceil(TimeUnit.SECONDS.toNanos(60) * TestTime.scale()));
    }

    @Test
    void shouldParseTheDefaultTheWayJUnitWritesDurations()
    {
        assertLimit(ScaledTimeoutExtension.parseDefault("120 s"), 120, TimeUnit.SECONDS);
        assertLimit(ScaledTimeoutExtension.parseDefault("90"), 90, TimeUnit.SECONDS);
        assertLimit(ScaledTimeoutExtension.parseDefault("500ms"), 500, TimeUnit.MILLISECONDS);
        assertLimit(ScaledTimeoutExtension.parseDefault(" 2 m "), 2, TimeUnit.MINUTES);
        assertThatThrownBy(() -> ScaledTimeoutExtension.parseDefault("two minutes"))
            .isInstanceOf(ExtensionConfigurationException.class)
            .hasMessageContaining(ScaledTimeoutExtension.DEFAULT_TIMEOUT_PROPERTY);
        assertThatThrownBy(() -> ScaledTimeoutExtension.parseDefault("0 s"))
            .isInstanceOf(ExtensionConfigurationException.class);
    }

    @Test
    void shouldFailATestThatOutlivesItsScaledTimeout()
    {
        final long startNs = System.nanoTime();
        final EngineExecutionResults results = run(MethodFixture.class, Map.of());
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);

        final Throwable failure = failureOf(results, "sleepsPastItsTimeout()");
        assertThat(failure).isInstanceOf(TimeoutException.class)
            .hasMessage(expectedMessage("sleepsPastItsTimeout()", 200, "ms"));
        // It was interrupted at the deadline rather than left to finish its sleep.
        assertThat(suppressedTypes(failure)).contains(InterruptedException.class);
        assertThat(elapsedMs).isLessThan(SLEEP_MS);
        assertThat(succeeded(results)).containsExactly("finishesInTime()");
    }

    @Test
    void shouldFailATestThatSwallowsTheInterruptAndClearTheInterruptForTheNextTest()
    {
        final EngineExecutionResults results = run(SwallowingFixture.class, Map.of());

        assertThat(failureOf(results, "ignoresTheInterrupt()")).isInstanceOf(TimeoutException.class)
            .hasMessage(expectedMessage("ignoresTheInterrupt()", 100, "ms"));
        // The next test on the same thread checks that the interrupt did not leak into it.
        assertThat(succeeded(results)).containsExactly("runsUninterruptedAfterwards()");
    }

    @Test
    void shouldApplyAClassLevelTimeoutToEachTestOfTheClassAndItsSubclasses()
    {
        final EngineExecutionResults results = run(InheritedClassFixture.class, Map.of());

        assertThat(failureOf(results, "sleepsPastTheClassTimeout()")).isInstanceOf(TimeoutException.class)
            .hasMessage(expectedMessage("sleepsPastTheClassTimeout()", 200, "ms"));
        assertThat(succeeded(results)).containsExactly("finishesInTime()");
    }

    @Test
    void shouldTimeOutAnAnnotatedLifecycleMethod()
    {
        // JUnit registers no extension from a lifecycle method's annotations: it takes the global registration.
        final EngineExecutionResults results = run(LifecycleFixture.class, Map.of(
            "junit.jupiter.extensions.autodetection.enabled", "true"));

        assertThat(failureOf(results, "neverReached()")).isInstanceOf(TimeoutException.class)
            .hasMessage(expectedMessage("setUp()", 200, "ms"));
    }

    @Test
    void shouldGiveEveryTestWithoutATimeoutTheScaledDefaultWhenAutoDetected()
    {
        final EngineExecutionResults results = run(UnannotatedFixture.class, Map.of(
            "junit.jupiter.extensions.autodetection.enabled", "true",
            ScaledTimeoutExtension.DEFAULT_TIMEOUT_PROPERTY, "300 ms"));

        assertThat(failureOf(results, "sleepsPastTheDefault()")).isInstanceOf(TimeoutException.class)
            .hasMessage(expectedMessage("sleepsPastTheDefault()", 300, "ms"));
        // Registered both ways, auto-detected and by the annotation, it still enforces one limit, once.
        final Throwable annotated = failureOf(results, "sleepsPastItsOwnTimeout()");
        assertThat(annotated).isInstanceOf(TimeoutException.class)
            .hasMessage(expectedMessage("sleepsPastItsOwnTimeout()", 100, "ms"));
        assertThat(suppressedTypes(annotated)).doesNotContain(TimeoutException.class);
        assertThat(succeeded(results)).containsExactly("finishesInTime()");
    }

    @Test
    void shouldLeaveATestWithoutATimeoutAloneWhenNotRegistered()
    {
        final EngineExecutionResults results = run(UnregisteredFixture.class, Map.of(
            ScaledTimeoutExtension.DEFAULT_TIMEOUT_PROPERTY, "100 ms"));

        assertThat(succeeded(results)).containsExactly("outlivesTheDefault()");
    }

    @Test
    void shouldLeaveJUnitsOwnTimeoutToJUnit()
    {
        final EngineExecutionResults results = run(JUnitTimeoutFixture.class, Map.of(
            "junit.jupiter.extensions.autodetection.enabled", "true",
            ScaledTimeoutExtension.DEFAULT_TIMEOUT_PROPERTY, "100 ms"));

        // JUnit's unscaled 400 ms decides, not the 100 ms default: the test fails with JUnit's own message.
        assertThat(failureOf(results, "sleepsPastJUnitsTimeout()"))
            .isInstanceOf(TimeoutException.class)
            .hasMessage("sleepsPastJUnitsTimeout() timed out after 400 milliseconds");
    }

    private static EngineExecutionResults run(final Class<?> fixture, final Map<String, String> parameters)
    {
        // Only the parameters given here: not this JVM's system properties, which switch auto-detection on.
        return EngineTestKit.engine("junit-jupiter")
            .enableImplicitConfigurationParameters(false)
            .configurationParameters(parameters)
            .selectors(selectClass(fixture))
            .execute();
    }

    private static Throwable failureOf(final EngineExecutionResults results, final String displayName)
    {
        final List<Event> failed = results.testEvents().failed().stream()
            .filter(event -> event.getTestDescriptor().getDisplayName().equals(displayName))
            .collect(Collectors.toList());
        assertThat(failed).as("failed " + displayName).hasSize(1);
        return failed.get(0).getRequiredPayload(TestExecutionResult.class).getThrowable().orElseThrow();
    }

    private static List<String> succeeded(final EngineExecutionResults results)
    {
        return results.testEvents().succeeded().stream()
            .map(event -> event.getTestDescriptor().getDisplayName())
            .collect(Collectors.toList());
    }

    private static List<Class<?>> suppressedTypes(final Throwable failure)
    {
        return List.of(failure.getSuppressed()).stream().map(Object::getClass).collect(Collectors.toList());
    }

    private static String expectedMessage(final String name, final long value, final String unit)
    {
        final BigDecimal scale = BigDecimal.valueOf(TestTime.scale());
        return name + " timed out after " +
            BigDecimal.valueOf(value).multiply(scale).stripTrailingZeros().toPlainString() + " " + unit +
            " (" + value + " " + unit + " × rivulet.test.timeScale " + scale.stripTrailingZeros().toPlainString() + ")";
    }

    private static void assertLimit(final ScaledTimeoutExtension.Limit limit, final long value, final TimeUnit unit)
    {
        assertThat(limit.value()).isEqualTo(value);
        assertThat(limit.unit()).isEqualTo(unit);
    }

    private static void sleepUninterruptibly(final long millis)
    {
        final long endNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() - endNs < 0)
        {
            // Returns at once while interrupted: the loop keeps going and leaves the interrupt set.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    static class MethodFixture
    {
        @Test
        @ScaledTimeout(value = 200, unit = TimeUnit.MILLISECONDS)
        void sleepsPastItsTimeout() throws InterruptedException
        {
            Thread.sleep(SLEEP_MS);
        }

        @Test
        @ScaledTimeout(30)
        void finishesInTime()
        {
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
    }

    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class SwallowingFixture
    {
        @Test
        @Order(1)
        @ScaledTimeout(value = 100, unit = TimeUnit.MILLISECONDS)
        void ignoresTheInterrupt()
        {
            sleepUninterruptibly(TestTime.millis(400, TimeUnit.MILLISECONDS));
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        }

        @Test
        @Order(2)
        @ScaledTimeout(30)
        void runsUninterruptedAfterwards() throws InterruptedException
        {
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
            Thread.sleep(1);
        }
    }

    @ScaledTimeout(value = 200, unit = TimeUnit.MILLISECONDS)
    abstract static class AnnotatedClassFixture
    {
        @Test
        void sleepsPastTheClassTimeout() throws InterruptedException
        {
            Thread.sleep(SLEEP_MS);
        }
    }

    static class InheritedClassFixture extends AnnotatedClassFixture
    {
        @Test
        void finishesInTime()
        {
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
    }

    static class LifecycleFixture
    {
        @BeforeEach
        @ScaledTimeout(value = 200, unit = TimeUnit.MILLISECONDS)
        void setUp() throws InterruptedException
        {
            Thread.sleep(SLEEP_MS);
        }

        @Test
        void neverReached()
        {
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
    }

    static class UnannotatedFixture
    {
        @Test
        void sleepsPastTheDefault() throws InterruptedException
        {
            Thread.sleep(SLEEP_MS);
        }

        @Test
        @ScaledTimeout(value = 100, unit = TimeUnit.MILLISECONDS)
        void sleepsPastItsOwnTimeout() throws InterruptedException
        {
            Thread.sleep(SLEEP_MS);
        }

        @Test
        void finishesInTime()
        {
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
    }

    static class UnregisteredFixture
    {
        @Test
        void outlivesTheDefault() throws InterruptedException
        {
            Thread.sleep(TestTime.millis(300, TimeUnit.MILLISECONDS));
        }
    }

    static class JUnitTimeoutFixture
    {
        @Test
        @Timeout(value = 400, unit = TimeUnit.MILLISECONDS)
        void sleepsPastJUnitsTimeout() throws InterruptedException
        {
            Thread.sleep(SLEEP_MS);
        }
    }
}
