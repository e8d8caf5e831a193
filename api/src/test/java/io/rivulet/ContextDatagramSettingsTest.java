package io.rivulet;

import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.SwiftSettings;
import io.rivulet.spi.Transport;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The reliable-datagram settings ride on the node's Context and are validated with it. */
class ContextDatagramSettingsTest
{
    private static final Transport NO_TRANSPORT = UnlaunchedTransport.INSTANCE;

    @Test
    void concludeFillsInDefaultsFromProperties()
    {
        final Rivulet.Context context = new Rivulet.Context().transport(NO_TRANSPORT).conclude();
        assertThat(context.datagramSettings()).isNotNull();
        assertThat(context.datagramSettings().window()).isEqualTo(256);
        assertThat(context.datagramSettings().maxDatagramLength()).isEqualTo(4096); // the common RDMA path MTU
        assertThat(context.topicDatagrams()).isFalse();
        assertThat(context.datagramSettings().swift().targetDelayNs()).isEqualTo(200_000);
    }

    @Test
    void concludeKeepsGivenSettings()
    {
        final DatagramSettings settings = new DatagramSettings().window(512).swift(new SwiftSettings().maxWindow(128));
        final Rivulet.Context context = new Rivulet.Context().transport(NO_TRANSPORT).datagramSettings(settings).conclude();
        assertThat(context.datagramSettings()).isSameAs(settings);
    }

    @Test
    void badDatagramSettingsFailConcludeNamingTheProperty()
    {
        assertThatThrownBy(() -> new Rivulet.Context().transport(NO_TRANSPORT)
            .datagramSettings(new DatagramSettings().window(1000)).conclude())
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("rivulet.ud.window");
        assertThatThrownBy(() -> new Rivulet.Context().transport(NO_TRANSPORT)
            .datagramSettings(new DatagramSettings().swift(new SwiftSettings().beta(2))).conclude())
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("rivulet.ud.beta");
        assertThatThrownBy(() -> new Rivulet.Context().transport(NO_TRANSPORT)
            .datagramSettings(new DatagramSettings().window(128)).conclude())
            .as("maxWindow 256 above a window of 128")
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("rivulet.ud.maxWindow");
        assertThatThrownBy(() -> new Rivulet.Context().transport(NO_TRANSPORT)
            .datagramSettings(new DatagramSettings().nakRetryNs(10).nakRetryMaxNs(5)).conclude())
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("rivulet.ud.nakRetryMax");
    }

    @Test
    void propertiesSetTheDefaults()
    {
        System.setProperty("rivulet.ud.targetDelay", "75us");
        System.setProperty("rivulet.ud.beta", "0.5");
        try
        {
            final SwiftSettings swift = new DatagramSettings().swift();
            assertThat(swift.targetDelayNs()).isEqualTo(75_000);
            assertThat(swift.beta()).isEqualTo(0.5);
            System.setProperty("rivulet.ud.beta", "half");
            assertThatThrownBy(SwiftSettings::new).isInstanceOf(ConfigurationException.class)
                .hasMessage("rivulet.ud.beta=half: not a number; write a decimal such as 0.8");
        }
        finally
        {
            System.clearProperty("rivulet.ud.targetDelay");
            System.clearProperty("rivulet.ud.beta");
        }
    }
}
