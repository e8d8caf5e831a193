package io.rivulet;

import io.rivulet.spi.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a user sees for a bad setting: the property as they wrote it (or the setter they called), the value, what is
 * wrong and what a good value looks like. One test per kind of mistake.
 */
class ContextConfigurationErrorsTest
{
    private static final Transport NO_TRANSPORT = UnlaunchedTransport.INSTANCE;

    private final List<String> properties = new ArrayList<>();

    @AfterEach
    void clearProperties()
    {
        properties.forEach(System::clearProperty);
    }

    private void property(final String name, final String value)
    {
        properties.add(name);
        System.setProperty(name, value);
    }

    private static Rivulet.Context concluded()
    {
        return new Rivulet.Context().transport(NO_TRANSPORT).conclude();
    }

    @Test
    void shouldRefuseADurationWithoutAUnit()
    {
        property("rivulet.keepaliveInterval", "1000");

        assertThatThrownBy(Rivulet.Context::new).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.keepaliveInterval=1000: a duration needs a unit (ns, us, ms or s), e.g. 1000ms or 1000s");
    }

    @Test
    void shouldTakeABareZeroAndUnitsInAnyCase()
    {
        property("rivulet.idleTimeout", "0");
        property("rivulet.keepaliveInterval", "250MS");

        final Rivulet.Context context = concluded();

        assertThat(context.idleTimeoutNs()).isZero();
        assertThat(context.keepaliveIntervalNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    }

    @Test
    void shouldRefuseSomethingThatIsNotADuration()
    {
        property("rivulet.keepaliveTimeout", "5 seconds");

        assertThatThrownBy(Rivulet.Context::new).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.keepaliveTimeout=5 seconds: not a duration; write a whole number and a unit " +
                "(ns, us, ms or s), e.g. 500ms");
    }

    @Test
    void shouldRefuseSomethingThatIsNotASizeOnce()
    {
        property("rivulet.maxFrameLength", "16kb");

        assertThatThrownBy(Rivulet.Context::new).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.maxFrameLength=16kb: not a size; write a number of bytes with an optional k, m or " +
                "g suffix, e.g. 16k");
    }

    @Test
    void shouldRefuseASizeTooLargeForItsSetting()
    {
        property("rivulet.outboundRingLength", "4g");

        assertThatThrownBy(Rivulet.Context::new).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.outboundRingLength=4g: too large; at most 2147483647 bytes (2147483647)");
    }

    @Test
    void shouldNameThePropertyAsWrittenWhenItsValueIsOutOfRange()
    {
        property("rivulet.keepaliveInterval", "500us");

        assertThatThrownBy(ContextConfigurationErrorsTest::concluded).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.keepaliveInterval=500us: must be at least 1ms (SETUP carries milliseconds), e.g. 1s");
    }

    @Test
    void shouldNameTheSetterWhenTheApplicationSetTheValue()
    {
        property("rivulet.keepaliveInterval", "1s");

        assertThatThrownBy(() -> new Rivulet.Context().transport(NO_TRANSPORT)
            .keepaliveInterval(500, TimeUnit.MICROSECONDS).conclude())
            .isInstanceOf(ConfigurationException.class)
            .hasMessage("Context.keepaliveInterval(500us): must be at least 1ms (SETUP carries milliseconds), e.g. 1s")
            .satisfies(refused ->
            {
                final ConfigurationException exception = (ConfigurationException)refused;
                assertThat(exception.setting()).isEqualTo("keepaliveInterval");
                assertThat(exception.value()).isEqualTo("500us");
                assertThat(exception.problem()).isEqualTo("must be at least 1ms (SETUP carries milliseconds), e.g. 1s");
            });
        assertThatThrownBy(() -> new Rivulet.Context().transport(NO_TRANSPORT).outboundRingLength(100_000).conclude())
            .isInstanceOf(ConfigurationException.class)
            .hasMessage("Context.outboundRingLength(100000): must be a power of two, e.g. 256k");
    }

    @Test
    void shouldBoundConnectionsWaitingForSetupPerAddressByDefaultAndRefuseNone()
    {
        assertThat(concluded().maxPendingSetupsPerAddress()).isEqualTo(256);
        assertThat(concluded().protocolSettings().maxPendingSetupsPerAddress()).isEqualTo(256);

        property("rivulet.maxPendingSetupsPerAddress", "0");

        assertThatThrownBy(ContextConfigurationErrorsTest::concluded).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.maxPendingSetupsPerAddress=0: must be positive, e.g. 256");
        assertThat(new Rivulet.Context().transport(NO_TRANSPORT).maxPendingSetupsPerAddress(512).conclude()
            .protocolSettings().maxPendingSetupsPerAddress()).as("the setter over the property").isEqualTo(512);
    }

    @Test
    void shouldSayWhichOtherSettingAValueMustAgreeWith()
    {
        property("rivulet.keepaliveInterval", "2s");
        property("rivulet.keepaliveTimeout", "2s");

        assertThatThrownBy(ContextConfigurationErrorsTest::concluded).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.keepaliveTimeout=2s: must exceed keepaliveInterval 2s by at least 1ms, e.g. 5 intervals");
    }

    @Test
    void shouldNameADefaultThatClashesWithASetting()
    {
        property("rivulet.maxFrameLength", "64k");

        assertThatThrownBy(ContextConfigurationErrorsTest::concluded).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.outboundRingLength (default 256k): must hold 8 frames of maxFrameLength 64k, e.g. 1m");
    }

    @Test
    void shouldRefuseAnUnknownPropertySuggestingTheNearestName()
    {
        property("rivulet.keepAliveIntervall", "1s");

        assertThatThrownBy(ContextConfigurationErrorsTest::concluded).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.keepAliveIntervall=1s: unknown property; did you mean rivulet.keepaliveInterval? " +
                "README's Configuration section lists the rivulet.* properties");
    }

    @Test
    void shouldRefuseAnUnknownDatagramProperty()
    {
        property("rivulet.ud.windw", "256");

        assertThatThrownBy(ContextConfigurationErrorsTest::concluded).isInstanceOf(ConfigurationException.class)
            .hasMessageStartingWith("rivulet.ud.windw=256: unknown property; did you mean rivulet.ud.window?");
    }

    @Test
    void shouldLeaveOtherModulesNamespacesToThem()
    {
        property("rivulet.tcp.somethingNew", "1");
        property("rivulet.test.timeScale", "1");

        assertThat(concluded().maxFrameLength()).isEqualTo(16 * 1024);
    }

    @Test
    void shouldGiveNoSuggestionWhenNothingIsClose()
    {
        property("rivulet.colour", "blue");

        assertThatThrownBy(ContextConfigurationErrorsTest::concluded).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.colour=blue: unknown property; README's Configuration section lists the rivulet.* " +
                "properties");
    }

    @Test
    void shouldRefuseAFlagThatIsNeitherTrueNorFalse()
    {
        property("rivulet.countersFile", "yes");

        assertThatThrownBy(Rivulet.Context::new).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.countersFile=yes: must be true or false");
    }

    @Test
    void shouldNameAnUnknownIdleStrategyAsWritten()
    {
        property("rivulet.idleStrategy", "lazy");

        assertThatThrownBy(ContextConfigurationErrorsTest::concluded).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.idleStrategy=lazy: unknown idle strategy; one of backoff, busy, yield, sleep, noop");
        assertThatThrownBy(() -> new Rivulet.Context().transport(NO_TRANSPORT).idleStrategy("lazy").conclude())
            .isInstanceOf(ConfigurationException.class)
            .hasMessage("Context.idleStrategy(\"lazy\"): unknown idle strategy; one of backoff, busy, yield, sleep, noop");
    }

    @Test
    void shouldNameAnUnknownReplyIdleStrategyAsWritten()
    {
        property("rivulet.replyIdleStrategy", "sleepy");

        assertThatThrownBy(ContextConfigurationErrorsTest::concluded).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.replyIdleStrategy=sleepy: unknown idle strategy for waiting callers; one of backoff, " +
                "park, busy, yield");
        assertThatThrownBy(() -> new Rivulet.Context().transport(NO_TRANSPORT).replyIdleStrategy("x").conclude())
            .isInstanceOf(ConfigurationException.class)
            .hasMessageStartingWith("Context.replyIdleStrategy(\"x\"): unknown idle strategy");
    }

    @Test
    void shouldShowTheEffectiveSettingsButNotTheToken()
    {
        property("rivulet.maxFrameLength", "20k");
        final Rivulet.Context context = new Rivulet.Context().transport(NO_TRANSPORT).nodeName("orders")
            .keepaliveInterval(250, TimeUnit.MILLISECONDS).authToken("s3cret").conclude();

        assertThat(context.toString())
            .startsWith("Rivulet.Context{transport=")
            .contains("threadingMode=SHARED", "maxFrameLength=20k", "keepaliveInterval=250ms",
                "keepaliveTimeout=5s", "outboundRingLength=256k", "idleTimeout=300s", "nodeName=orders",
                "authToken=(set)", "engineFailure=close", "replyIdleStrategy=park")
            .doesNotContain("s3cret");
    }
}
