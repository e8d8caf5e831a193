package io.rivulet.transport.tcp;

import io.rivulet.ConfigurationException;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.ScaledTimeout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Section 9 of the design: a bad configuration value, set fluently or through a {@code rivulet.*}
 * system property, fails at launch with a {@link ConfigurationException} that names the setting.
 * Lives beside the TCP transport because a launch needs a transport on the class path.
 */
class ConfigurationTest
{
    static Stream<Arguments> badContexts()
    {
        return Stream.of(
            bad("maxFrameLength 10", "maxFrameLength", () -> context().maxFrameLength(10)),
            bad("maxFrameLength 32 MiB", "maxFrameLength", () -> context().maxFrameLength(32 * 1024 * 1024)),
            bad("maxMessageLength 0", "maxMessageLength", () -> context().maxMessageLength(0)),
            bad("streamWindow 0", "streamWindow", () -> context().streamWindow(0)),
            bad("outboundRingLength not a power of two", "outboundRingLength",
                () -> context().outboundRingLength(100_000)),
            bad("outboundRingLength under 8 frames", "outboundRingLength",
                () -> context().outboundRingLength(64 * 1024).maxFrameLength(16 * 1024)),
            bad("linkBufferLength under one frame", "linkBufferLength", () -> context().linkBufferLength(1024)),
            bad("keepaliveTimeout equal to interval", "keepaliveTimeout",
                () -> context().keepaliveInterval(1, TimeUnit.SECONDS).keepaliveTimeout(1, TimeUnit.SECONDS)),
            bad("keepaliveTimeout below interval", "keepaliveTimeout",
                () -> context().keepaliveInterval(2, TimeUnit.SECONDS).keepaliveTimeout(1, TimeUnit.SECONDS)),
            bad("keepaliveInterval 0", "keepaliveInterval", () -> context().keepaliveInterval(0, TimeUnit.SECONDS)),
            // SETUP carries the keepalive timings as int32 milliseconds: longer ones cannot be sent.
            bad("keepaliveTimeout beyond int32 ms", "keepaliveTimeout",
                () -> context().keepaliveTimeout(30, TimeUnit.DAYS)),
            // 1.2 ms and 1.9 ms both travel as 1 ms, which the peer rejects as timeout <= interval.
            bad("keepaliveTimeout equal to interval in whole ms", "keepaliveTimeout",
                () -> context().keepaliveInterval(1200, TimeUnit.MICROSECONDS)
                    .keepaliveTimeout(1900, TimeUnit.MICROSECONDS)),
            bad("connectTimeout 0", "connectTimeout", () -> context().connectTimeout(0, TimeUnit.SECONDS)),
            bad("unknown idleStrategy", "idleStrategy", () -> context().idleStrategy("lazy")));
    }

    private static Arguments bad(
        final String description, final String setting, final Supplier<Rivulet.Context> context)
    {
        return Arguments.of(description, setting, context);
    }

    private static Rivulet.Context context()
    {
        return new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badContexts")
    @ScaledTimeout(30)
    void shouldFailLaunchNamingTheBadSetting(
        final String description, final String setting, final Supplier<Rivulet.Context> context)
    {
        assertThatThrownBy(() -> launchAndClose(context.get()))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining(setting);
    }

    static Stream<Arguments> badProperties()
    {
        return Stream.of(
            Arguments.of("rivulet.maxFrameLength", "10", "maxFrameLength"),
            Arguments.of("rivulet.maxFrameLength", "lots", "rivulet.maxFrameLength"),
            Arguments.of("rivulet.outboundRingLength", "300000", "outboundRingLength"),
            Arguments.of("rivulet.keepaliveInterval", "often", "rivulet.keepaliveInterval"),
            Arguments.of("rivulet.keepaliveTimeout", "10ms", "keepaliveTimeout"),
            Arguments.of("rivulet.idleStrategy", "lazy", "idleStrategy"),
            Arguments.of("rivulet.transport", "carrier-pigeon", "rivulet.transport"),
            Arguments.of("rivulet.threadingMode", "sometimes", "threadingMode"));
    }

    @ParameterizedTest(name = "-D{0}={1}")
    @MethodSource("badProperties")
    @ScaledTimeout(30)
    void shouldFailLaunchNamingTheBadSystemProperty(final String property, final String value, final String named)
    {
        final String previous = System.getProperty(property);
        System.setProperty(property, value);
        try
        {
            // The context reads its defaults when created; creating it is part of launching.
            assertThatThrownBy(() -> launchAndClose(new Rivulet.Context()))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(named);
        }
        finally
        {
            if (previous == null)
            {
                System.clearProperty(property);
            }
            else
            {
                System.setProperty(property, previous);
            }
        }
    }

    @Test
    @ScaledTimeout(30)
    void shouldLaunchWithDefaultsAndTheTcpTransportByName()
    {
        final Rivulet node = Rivulet.launch(new Rivulet.Context().threadingMode(ThreadingMode.SHARED));
        try
        {
            assertThat(node.context().transport().name()).isEqualTo("tcp");
            assertThat(node.context().maxFrameLength()).isEqualTo(16 * 1024);
        }
        finally
        {
            node.close();
        }
    }

    static Stream<Arguments> badTcpProperties()
    {
        return Stream.of(
            Arguments.of("rivulet.tcp.maxBufferMemory", "-1", "rivulet.tcp.maxBufferMemory=-1: not a size"),
            Arguments.of("rivulet.tcp.maxBufferMemory", "lots", "rivulet.tcp.maxBufferMemory=lots: not a size"),
            Arguments.of("rivulet.tcp.tls.trustStore", "/nowhere/trust.p12", "/nowhere/trust.p12"));
    }

    /** The transport's own properties: read by the ServiceLoader's {@code tcp} transport, checked when it opens. */
    @ParameterizedTest(name = "-D{0}={1}")
    @MethodSource("badTcpProperties")
    @ScaledTimeout(30)
    void shouldFailLaunchNamingTheBadTcpProperty(final String property, final String value, final String named)
    {
        System.setProperty(property, value);
        try
        {
            assertThatThrownBy(() -> launchAndClose(new Rivulet.Context().threadingMode(ThreadingMode.SHARED)))
                .isInstanceOf(RivuletException.class)
                .hasMessageContaining(named);
        }
        finally
        {
            System.clearProperty(property);
        }
    }

    @Test
    void shouldReadTheTcpBufferBudgetFromItsProperty()
    {
        assertThat(TcpTransport.plain().maxBufferMemory()).isEqualTo(64L * 1024 * 1024);
        System.setProperty(TcpTransport.MAX_BUFFER_MEMORY_PROPERTY, "32m");
        try
        {
            assertThat(new TcpTransport().maxBufferMemory()).isEqualTo(32L * 1024 * 1024);
            assertThat(TcpTransport.plain().maxBufferMemory(0).maxBufferMemory()).isZero();
            assertThatThrownBy(() -> TcpTransport.plain().maxBufferMemory(-5))
                .isInstanceOf(ConfigurationException.class)
                .hasMessage("rivulet.tcp.maxBufferMemory must not be negative: -5");
        }
        finally
        {
            System.clearProperty(TcpTransport.MAX_BUFFER_MEMORY_PROPERTY);
        }
    }

    private static void launchAndClose(final Rivulet.Context context)
    {
        Rivulet.launch(context).close();
    }
}
