package io.rivulet.transport.udp;

import io.rivulet.ConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code rivulet.udp.*}: defaults, properties read and refused by name, fluent values validated. */
class UdpSettingsTest
{
    @AfterEach
    void clearProperties()
    {
        UdpSettings.PROPERTIES.forEach(System::clearProperty);
    }

    @Test
    void shouldHaveDefaultsForAnEthernetLan()
    {
        final UdpSettings settings = new UdpSettings().validate();
        assertThat(settings.bindAddress()).isEqualTo("0.0.0.0:0");
        assertThat(settings.multicastInterface()).isNull();
        assertThat(settings.multicastTtl()).isEqualTo(1);
        assertThat(settings.multicastLoopback()).isTrue();
        assertThat(settings.maxDatagram()).isEqualTo(1472);
        assertThat(settings.socketSendBufferLength()).isEqualTo(4 * 1024 * 1024);
        assertThat(settings.socketReceiveBufferLength()).isEqualTo(4 * 1024 * 1024);
        assertThat(settings.toString()).isEqualTo("UdpSettings{bind=0.0.0.0:0, interface=default, ttl=1, " +
            "loopback=true, maxDatagram=1472, socketSendBuffer=4m, socketReceiveBuffer=4m}");
    }

    @Test
    void shouldReadTheProperties()
    {
        System.setProperty("rivulet.udp.bind", " [::1]:40000 ");
        System.setProperty("rivulet.udp.interface", "eth1");
        System.setProperty("rivulet.udp.ttl", "8");
        System.setProperty("rivulet.udp.loopback", "false");
        System.setProperty("rivulet.udp.maxDatagram", "8k");
        System.setProperty("rivulet.udp.socketSendBuffer", "0");
        System.setProperty("rivulet.udp.socketReceiveBuffer", "16m");

        final UdpSettings settings = new UdpSettings().validate();
        assertThat(settings.bindAddress()).isEqualTo("[::1]:40000");
        assertThat(settings.bindSocketAddress().getPort()).isEqualTo(40000);
        assertThat(settings.multicastInterface()).isEqualTo("eth1");
        assertThat(settings.multicastTtl()).isEqualTo(8);
        assertThat(settings.multicastLoopback()).isFalse();
        assertThat(settings.maxDatagram()).isEqualTo(8192);
        assertThat(settings.socketSendBufferLength()).isZero();
        assertThat(settings.socketReceiveBufferLength()).isEqualTo(16 * 1024 * 1024);
    }

    @Test
    void shouldRefuseABadPropertyNamingIt()
    {
        refusedProperty("rivulet.udp.bind", "example.com:80", "rivulet.udp.bind=example.com:80");
        refusedProperty("rivulet.udp.bind", "1.2.3.4", "rivulet.udp.bind=1.2.3.4");
        refusedProperty("rivulet.udp.interface", " ", "rivulet.udp.interface");
        refusedProperty("rivulet.udp.ttl", "256", "rivulet.udp.ttl=256");
        refusedProperty("rivulet.udp.ttl", "1k", "rivulet.udp.ttl=1k");
        refusedProperty("rivulet.udp.loopback", "yes", "rivulet.udp.loopback=yes");
        refusedProperty("rivulet.udp.maxDatagram", "65508", "rivulet.udp.maxDatagram=65508");
        refusedProperty("rivulet.udp.maxDatagram", "32", "rivulet.udp.maxDatagram=32");
        refusedProperty("rivulet.udp.socketReceiveBuffer", "lots", "rivulet.udp.socketReceiveBuffer=lots");
    }

    @Test
    void shouldValidateValuesSetInCode()
    {
        refused(new UdpSettings().bindAddress("239.1.2.3:0"), "rivulet.udp.bind=239.1.2.3:0: a multicast address");
        refused(new UdpSettings().bindAddress("host:1"), "rivulet.udp.bind=host:1");
        refused(new UdpSettings().bindAddress(null), "rivulet.udp.bind must be set");
        refused(new UdpSettings().multicastTtl(-1), "rivulet.udp.ttl");
        refused(new UdpSettings().maxDatagram(65508), "rivulet.udp.maxDatagram");
        refused(new UdpSettings().socketSendBufferLength(-1), "rivulet.udp.socketSendBuffer");
        refused(new UdpSettings().multicastInterface(""), "rivulet.udp.interface");
    }

    @Test
    void shouldCopyEveryValue()
    {
        final UdpSettings settings = new UdpSettings().bindAddress("127.0.0.1:5").multicastInterface("lo")
            .multicastTtl(3).multicastLoopback(false).maxDatagram(9000).socketSendBufferLength(1)
            .socketReceiveBufferLength(2);
        assertThat(settings.copy().toString()).isEqualTo(settings.toString());
    }

    private static void refusedProperty(final String property, final String value, final String message)
    {
        System.setProperty(property, value);
        try
        {
            assertThatThrownBy(() -> new UdpSettings().validate()).as(property + "=" + value)
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(message);
        }
        finally
        {
            System.clearProperty(property);
        }
    }

    private static void refused(final UdpSettings settings, final String message)
    {
        assertThatThrownBy(settings::validate).isInstanceOf(ConfigurationException.class).hasMessageContaining(message);
    }
}
