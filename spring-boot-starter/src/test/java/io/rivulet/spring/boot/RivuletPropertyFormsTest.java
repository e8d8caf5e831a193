package io.rivulet.spring.boot;

import io.rivulet.ConfigurationException;
import io.rivulet.Rivulet;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sizes and durations in {@code rivulet.*} properties bind as the core reads its {@code -Drivulet.*} system properties
 * (64k, 500ms; a bare number of a duration refused), with Spring's forms besides; what is refused fails the start with
 * the core's message naming the property, as the root cause of Spring's failure.
 */
class RivuletPropertyFormsTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RivuletAutoConfiguration.class))
        .withPropertyValues("rivulet.counters-file=false");

    @Test
    void sizesInTheCoresFormAndInSpringsAreBound()
    {
        runner.withPropertyValues(
            "rivulet.max-frame-length=64k",
            "rivulet.max-message-length=16M",
            "rivulet.max-connection-memory=1g",
            "rivulet.max-node-memory=2GB",
            "rivulet.link-buffer-length=131072",
            "rivulet.outbound-ring-length=1MB",
            "rivulet.max-parked-bytes=32MB",
            "rivulet.error-log-length=65536B")
            .run(context ->
            {
                assertThat(context).hasNotFailed();
                final Rivulet.Context bound = context.getBean(Rivulet.class).context();
                assertThat(bound.maxFrameLength()).isEqualTo(64 << 10);
                assertThat(bound.maxMessageLength()).isEqualTo(16 << 20);
                assertThat(bound.maxConnectionMemory()).isEqualTo(1L << 30);
                assertThat(bound.maxNodeMemory()).isEqualTo(2L << 30);
                assertThat(bound.linkBufferLength()).isEqualTo(131072);
                assertThat(bound.outboundRingLength()).isEqualTo(1 << 20);
                assertThat(bound.maxParkedBytes()).isEqualTo(32L << 20);
                assertThat(bound.errorLogLength()).isEqualTo(65536);
            });
    }

    @Test
    void durationsInTheCoresFormAndInSpringsAreBound()
    {
        runner.withPropertyValues(
            "rivulet.keepalive-interval=250ms",
            "rivulet.keepalive-timeout=5s",
            "rivulet.connect-timeout=PT3S",
            "rivulet.setup-timeout=1500000us",
            "rivulet.topic-heartbeat-interval=100000000ns",
            "rivulet.topic-heartbeat-timeout=1m",
            "rivulet.max-keepalive-timeout=1h",
            "rivulet.idle-timeout=2d")
            .run(context ->
            {
                assertThat(context).hasNotFailed();
                final Rivulet.Context bound = context.getBean(Rivulet.class).context();
                assertThat(bound.keepaliveIntervalNs()).isEqualTo(250 * MS);
                assertThat(bound.keepaliveTimeoutNs()).isEqualTo(5_000 * MS);
                assertThat(bound.connectTimeoutNs()).isEqualTo(3_000 * MS);
                assertThat(bound.setupTimeoutNs()).isEqualTo(1_500 * MS);
                assertThat(bound.topicHeartbeatIntervalNs()).isEqualTo(100 * MS);
                assertThat(bound.topicHeartbeatTimeoutNs()).isEqualTo(TimeUnit.MINUTES.toNanos(1));
                assertThat(bound.maxKeepaliveTimeoutNs()).isEqualTo(TimeUnit.HOURS.toNanos(1));
                assertThat(bound.idleTimeoutNs()).isEqualTo(TimeUnit.DAYS.toNanos(2));
            });
    }

    @Test
    void aBareZeroIsADuration()
    {
        runner.withPropertyValues("rivulet.idle-timeout=0")
            .run(context -> assertThat(context.getBean(Rivulet.class).context().idleTimeoutNs()).isZero());
    }

    @Test
    void theSystemPropertiesSpringSeesBindAsTheCoreReadsThem()
    {
        // -Drivulet.maxFrameLength=64k: the Context's default reads it, and Spring binds it to max-frame-length too.
        System.setProperty("rivulet.maxFrameLength", "64k");
        System.setProperty("rivulet.outboundRingLength", "1m");
        System.setProperty("rivulet.keepaliveInterval", "200ms");
        try
        {
            runner.run(context ->
            {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(RivuletProperties.class).getMaxFrameLength()).isEqualTo("64k");
                final Rivulet.Context bound = context.getBean(Rivulet.class).context();
                assertThat(bound.maxFrameLength()).isEqualTo(64 << 10);
                assertThat(bound.outboundRingLength()).isEqualTo(1 << 20);
                assertThat(bound.keepaliveIntervalNs()).isEqualTo(200 * MS);
            });
        }
        finally
        {
            System.clearProperty("rivulet.maxFrameLength");
            System.clearProperty("rivulet.outboundRingLength");
            System.clearProperty("rivulet.keepaliveInterval");
        }
    }

    @Test
    void aDurationWithoutAUnitIsRefused()
    {
        assertFailsWith("rivulet.keepalive-interval=1000",
            "rivulet.keepalive-interval=1000: a duration needs a unit (ns, us, ms or s), e.g. 1000ms or 1000s");
    }

    @Test
    void somethingThatIsNoDurationIsRefused()
    {
        assertFailsWith("rivulet.connect-timeout=soon",
            "rivulet.connect-timeout=soon: not a duration; write a whole number and a unit (ns, us, ms or s; " +
            "Spring's m, h or d), e.g. 500ms, or ISO-8601 such as PT5S");
        assertFailsWith("rivulet.connect-timeout=1.5s",
            "rivulet.connect-timeout=1.5s: not a duration; write a whole number and a unit (ns, us, ms or s; " +
            "Spring's m, h or d), e.g. 500ms, or ISO-8601 such as PT5S");
    }

    @Test
    void aNegativeOrTooLongDurationIsRefused()
    {
        assertFailsWith("rivulet.setup-timeout=-5s", "rivulet.setup-timeout=-5s: a duration cannot be negative");
        assertFailsWith("rivulet.idle-timeout=9999999999s", "rivulet.idle-timeout=9999999999s: too large");
        assertFailsWith("rivulet.idle-timeout=999999999d", "rivulet.idle-timeout=999999999d: too large");
    }

    @Test
    void somethingThatIsNoSizeIsRefused()
    {
        assertFailsWith("rivulet.max-frame-length=lots", "rivulet.max-frame-length=lots: not a size; write a number " +
            "of bytes with an optional k, m or g suffix, e.g. 16k, or Spring's 16KB");
        assertFailsWith("rivulet.max-frame-length=64kib", "rivulet.max-frame-length=64kib: not a size; write a " +
            "number of bytes with an optional k, m or g suffix, e.g. 16k, or Spring's 16KB");
    }

    @Test
    void aNegativeSizeOrOneBeyondTheSettingsTypeIsRefused()
    {
        assertFailsWith("rivulet.max-parked-bytes=-1KB", "rivulet.max-parked-bytes=-1KB: a size cannot be negative");
        assertFailsWith("rivulet.max-frame-length=4g",
            "rivulet.max-frame-length=4g: too large; at most 2147483647 bytes (2147483647)");
        assertFailsWith("rivulet.max-frame-length=4GB",
            "rivulet.max-frame-length=4GB: too large; at most 2147483647 bytes (2147483647)");
    }

    @Test
    void aValueTheContextRejectsIsNamedByItsPropertyAsWritten()
    {
        runner.withPropertyValues("rivulet.max-frame-length=100").run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(outermost(context.getStartupFailure()))
                .hasMessage("rivulet.max-frame-length=100 (Context.maxFrameLength(100)): must be within 256 bytes " +
                    "and 16m, e.g. 16k");
        });
    }

    @Test
    void aValueACustomizerSetIsNamedByItsSetter()
    {
        runner.withBean(RivuletContextCustomizer.class, () -> context -> context.streamWindow(0)).run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(outermost(context.getStartupFailure()))
                .hasMessage("Context.streamWindow(0): must be positive, e.g. 256");
        });
    }

    /** The first ConfigurationException in a failure's causes: what the user reads at the top of the trace. */
    private static Throwable outermost(final Throwable failure)
    {
        Throwable cause = failure;
        while (cause != null && !(cause instanceof ConfigurationException))
        {
            cause = cause.getCause();
        }
        assertThat(cause).as("a ConfigurationException in " + failure).isNotNull();
        return cause;
    }

    private void assertFailsWith(final String property, final String message)
    {
        runner.withPropertyValues(property).run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(ConfigurationException.class)
                .hasMessage(message);
        });
    }
}
