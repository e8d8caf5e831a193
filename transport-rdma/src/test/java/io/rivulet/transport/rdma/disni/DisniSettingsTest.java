package io.rivulet.transport.rdma.disni;

import io.rivulet.ConfigurationException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DisniSettingsTest
{
    @Test
    void shouldDefaultToTenSecondSetUpAndMillisecondCmPolling()
    {
        final DisniSettings settings = new DisniSettings().conclude();

        assertThat(settings.connectTimeoutNs()).isEqualTo(TimeUnit.SECONDS.toNanos(10));
        assertThat(settings.cmPollIntervalNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
        assertThat(settings.immCacheSize()).isEqualTo(8);
        assertThat(settings.connectTimeoutMsInt()).isEqualTo(10_000);
    }

    @Test
    void shouldNameABadSystemProperty()
    {
        withProperty(DisniSettings.CONNECT_TIMEOUT_PROP, "ten", () ->
            assertThatThrownBy(DisniSettings::new)
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(DisniSettings.CONNECT_TIMEOUT_PROP)
                .hasMessageContaining("'ten'"));
        withProperty(DisniSettings.IMM_CACHE_SIZE_PROP, "0", () ->
            assertThatThrownBy(() -> new DisniSettings().conclude())
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(DisniSettings.IMM_CACHE_SIZE_PROP));
        withProperty(DisniSettings.CONNECT_TIMEOUT_PROP, "2500", () ->
            assertThat(new DisniSettings().conclude().connectTimeoutNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(2500)));
    }

    @Test
    void shouldFindTheGidIndexUnlessOneInRangeIsConfigured()
    {
        assertThat(new DisniSettings().gidIndex()).isEqualTo(DisniSettings.DEFAULT_GID_INDEX).isEqualTo(-1);
        assertThat(new DisniSettings().gidIndex(3).conclude().gidIndex()).isEqualTo(3);
        assertThatThrownBy(() -> new DisniSettings().gidIndex(256).conclude())
            .hasMessage(DisniSettings.GID_INDEX_PROP + " must be -1 (find it) or 0-255: 256");
        assertThatThrownBy(() -> new DisniSettings().gidIndex(-2).conclude())
            .hasMessageContaining(DisniSettings.GID_INDEX_PROP);
        withProperty(DisniSettings.GID_INDEX_PROP, "1", () -> assertThat(new DisniSettings().gidIndex()).isEqualTo(1));
    }

    @Test
    void shouldTakeTheTrafficClassOfAddressHandlesFromItsPropertyAndRefuseOneOutOfRange()
    {
        assertThat(new DisniSettings().conclude().trafficClass()).isZero();
        assertThat(new DisniSettings().trafficClass(255).conclude().trafficClass()).isEqualTo(255);
        withProperty(DisniSettings.TRAFFIC_CLASS_PROP, "106", () ->
            assertThat(new DisniSettings().conclude().trafficClass()).as("DSCP 26, ECN 2").isEqualTo(106));
        assertThatThrownBy(() -> new DisniSettings().trafficClass(256).conclude())
            .isInstanceOf(ConfigurationException.class)
            .hasMessage(DisniSettings.TRAFFIC_CLASS_PROP + " must be 0-255 (DSCP << 2 | ECN): 256");
        assertThatThrownBy(() -> new DisniSettings().trafficClass(-1).conclude())
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining(DisniSettings.TRAFFIC_CLASS_PROP);
        withProperty(DisniSettings.TRAFFIC_CLASS_PROP, "1000", () ->
            assertThatThrownBy(() -> new DisniVerbsProvider(new DisniSettings()))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(DisniSettings.TRAFFIC_CLASS_PROP));
        withProperty(DisniSettings.TRAFFIC_CLASS_PROP, "high", () ->
            assertThatThrownBy(DisniSettings::new)
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(DisniSettings.TRAFFIC_CLASS_PROP)
                .hasMessageContaining("'high'"));
    }

    @Test
    void shouldRefuseANonPositiveTimeout()
    {
        assertThatThrownBy(() -> new DisniSettings().connectTimeoutNs(0).conclude())
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining(DisniSettings.CONNECT_TIMEOUT_PROP);
        assertThatThrownBy(() -> new DisniVerbsProvider(new DisniSettings().cmPollIntervalNs(-1)))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining(DisniSettings.CM_POLL_INTERVAL_PROP);
    }

    private static void withProperty(final String name, final String value, final Runnable check)
    {
        final String previous = System.getProperty(name);
        System.setProperty(name, value);
        try
        {
            check.run();
        }
        finally
        {
            if (null == previous)
            {
                System.clearProperty(name);
            }
            else
            {
                System.setProperty(name, previous);
            }
        }
    }
}
