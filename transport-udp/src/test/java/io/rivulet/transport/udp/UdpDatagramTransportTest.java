package io.rivulet.transport.udp;

import io.rivulet.ConfigurationException;
import io.rivulet.Transports;
import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.spi.MulticastSettings;
import io.rivulet.spi.TransportSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The provider and its transport: found by name, endpoints of at most {@code rivulet.udp.maxDatagram} bytes each on
 * its own socket, the protocols' defaults tuned for kernel sockets and parking engines unless a property says
 * otherwise, and close.
 */
class UdpDatagramTransportTest
{
    private static final TransportSettings NODE = new TransportSettings(16 * 1024, 256 * 1024, 256 * 1024, 0, 0);

    @AfterEach
    void clearProperties()
    {
        DatagramSettings.PROPERTIES.forEach(System::clearProperty);
        MulticastSettings.PROPERTIES.forEach(System::clearProperty);
        UdpSettings.PROPERTIES.forEach(System::clearProperty);
    }

    private static UdpDatagramTransport open()
    {
        return new UdpDatagrams(new UdpSettings().bindAddress("127.0.0.1:0")).open(NODE);
    }

    @Test
    void shouldBeFoundByName()
    {
        assertThat(Transports.datagrams("udp")).isInstanceOf(UdpDatagrams.class);
        assertThat(Transports.datagrams("UDP").name()).isEqualTo(UdpDatagrams.NAME);
    }

    @Test
    void shouldReadItsPropertiesWhenOpenedAndNameABadOne()
    {
        System.setProperty("rivulet.udp.bind", "127.0.0.1:0");
        System.setProperty("rivulet.udp.maxDatagram", "9000");
        try (UdpDatagramTransport transport = new UdpDatagrams().open(NODE))
        {
            assertThat(transport.settings().maxDatagram()).isEqualTo(9000);
        }
        System.setProperty("rivulet.udp.bind", "somewhere:0");
        assertThatThrownBy(() -> new UdpDatagrams().open(NODE)).isInstanceOf(ConfigurationException.class)
            .hasMessageStartingWith("rivulet.udp.bind=somewhere:0");
    }

    @Test
    void shouldOpenEndpointsEachOnItsOwnSocket() throws IOException
    {
        try (UdpDatagramTransport transport = open())
        {
            final DatagramEndpoint unicast = transport.openDatagramEndpoint(1472, 512, 256);
            final MulticastEndpoint multicast = transport.openMulticastEndpoint(1000, 64, 64);
            assertThat(unicast).isInstanceOf(UdpEndpoint.class);
            assertThat(unicast.maxDatagramLength()).isEqualTo(1472);
            // A multicast endpoint carries rivulet.udp.maxDatagram, so that small messages batch into full datagrams.
            assertThat(multicast.maxDatagramLength()).isEqualTo(1472);
            assertThat(unicast.localAddress()).startsWith("127.0.0.1:").isNotEqualTo(multicast.localAddress());
            unicast.close();
        }
    }

    @Test
    void shouldRefuseDatagramsLongerThanTheSettingsAllowNamingTheNumbers()
    {
        try (UdpDatagramTransport transport = open())
        {
            assertThatThrownBy(() -> transport.openDatagramEndpoint(4096, 512, 256))
                .isInstanceOf(IOException.class)
                .hasMessage("datagrams of 4096 bytes do not fit rivulet.udp.maxDatagram 1472: set " +
                    "rivulet.ud.maxPayload to at most 1448 or raise rivulet.udp.maxDatagram");
            assertThatThrownBy(() -> transport.openMulticastEndpoint(1473, 64, 64))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("1473").hasMessageContaining("1472");
            assertThatThrownBy(() -> transport.openDatagramEndpoint(0, 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void shouldCutThePayloadToTheDatagramAndUseTimersForParkingEngines()
    {
        try (UdpDatagramTransport transport = open())
        {
            final DatagramSettings hardware = new DatagramSettings();
            final DatagramSettings udp = transport.defaultDatagramSettings(new DatagramSettings());
            assertThat(udp.maxPayload()).isEqualTo(1472 - DatagramSettings.DATA_HEADER_LENGTH);
            assertThat(udp.maxDatagramLength()).isEqualTo(1472);
            assertThat(udp.swift().targetDelayNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
            assertThat(udp.rtoMinNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
            assertThat(udp.rtoInitialNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
            assertThat(udp.rtoMaxNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(400));
            assertThat(udp.nakDelayNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
            assertThat(udp.nakRetryNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
            assertThat(udp.ackIntervalNs()).isEqualTo(TimeUnit.MICROSECONDS.toNanos(200));
            assertThat(udp.swift().minWindow()).isEqualTo(1.0);
            assertThat(udp.swift().initialWindow()).isEqualTo(16.0);
            // Sizes are not timing: unchanged.
            assertThat(udp.window()).isEqualTo(hardware.window());
            assertThat(udp.ringLength()).isEqualTo(hardware.ringLength());
        }
    }

    @Test
    void shouldKeepEveryDatagramValueTheUserSetByProperty()
    {
        System.setProperty("rivulet.ud.maxPayload", "1000");
        System.setProperty("rivulet.ud.targetDelay", "3ms");
        System.setProperty("rivulet.ud.rtoMin", "1ms");
        System.setProperty("rivulet.ud.minWindow", "0.5");
        try (UdpDatagramTransport transport = open())
        {
            final DatagramSettings udp = transport.defaultDatagramSettings(new DatagramSettings());
            assertThat(udp.maxPayload()).isEqualTo(1000);
            assertThat(udp.swift().targetDelayNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(3));
            assertThat(udp.rtoMinNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
            assertThat(udp.swift().minWindow()).isEqualTo(0.5);
            assertThat(udp.nakDelayNs()).as("not set: UDP's").isEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
        }
        System.setProperty("rivulet.ud.maxPayload", "4072");
        try (UdpDatagramTransport transport = open())
        {
            // Kept as set; the endpoint then refuses it, naming what fits.
            final DatagramSettings udp = transport.defaultDatagramSettings(new DatagramSettings());
            assertThat(udp.maxPayload()).isEqualTo(4072);
            assertThatThrownBy(() -> transport.openDatagramEndpoint(udp.maxDatagramLength(), 512, 256))
                .hasMessageContaining("set rivulet.ud.maxPayload to at most 1448");
        }
    }

    @Test
    void shouldFollowALargerMaxDatagram()
    {
        try (UdpDatagramTransport transport = new UdpDatagrams(new UdpSettings().bindAddress("127.0.0.1:0")
            .maxDatagram(9000)).open(NODE))
        {
            // The default payload (4072) already fits 9000 bytes: not raised.
            assertThat(transport.defaultDatagramSettings(new DatagramSettings()).maxPayload()).isEqualTo(4072);
        }
    }

    @Test
    void shouldTuneMulticastTimersAndKeepWhatTheUserSet()
    {
        try (UdpDatagramTransport transport = open())
        {
            final MulticastSettings defaults = new MulticastSettings();
            final String before = defaults.toString();
            final MulticastSettings udp = transport.defaultMulticastSettings(defaults);
            assertThat(defaults.toString()).as("the caller's settings are not changed").isEqualTo(before);
            assertThat(udp.targetDelayNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
            assertThat(udp.nakDelayNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
            assertThat(udp.nakBackoffNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(5));
            assertThat(udp.repairLingerNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(5));
            assertThat(udp.nakRetryNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
            assertThat(udp.nakRetryMaxNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(160));
            assertThat(udp.heartbeatIntervalNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(5));
            assertThat(udp.statusIntervalNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
            assertThat(udp.receiverWindow()).isEqualTo(defaults.receiverWindow());
            assertThat(udp.timeoutNs()).isEqualTo(defaults.timeoutNs());
        }
        System.setProperty("rivulet.multicast.nakRetry", "4ms");
        System.setProperty("rivulet.multicast.heartbeatInterval", "1ms");
        System.setProperty("rivulet.multicast.timeout", "12ms");
        try (UdpDatagramTransport transport = open())
        {
            final MulticastSettings udp = transport.defaultMulticastSettings(new MulticastSettings());
            assertThat(udp.nakRetryNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(4));
            assertThat(udp.heartbeatIntervalNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
            assertThat(udp.timeoutNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(12));
            // Not set, so UDP's, but within what the set ones allow: valid together.
            assertThat(udp.repairLingerNs()).isLessThan(udp.nakRetryNs());
            assertThat(udp.statusIntervalNs()).isLessThan(udp.timeoutNs());
            assertThat(udp.targetDelayNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    @Test
    void shouldCloseWhatTheNodeLeftOpenAndRefuseMore() throws IOException
    {
        final UdpDatagramTransport transport = open();
        final UdpEndpoint left = (UdpEndpoint)transport.openDatagramEndpoint(256, 1, 1);
        transport.close();
        transport.close();
        assertThat(left.isClosed()).isTrue();
        assertThatThrownBy(() -> transport.openDatagramEndpoint(256, 1, 1)).isInstanceOf(IOException.class)
            .hasMessageContaining("closed");
    }
}
