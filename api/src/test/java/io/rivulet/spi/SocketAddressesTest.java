package io.rivulet.spi;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import static org.assertj.core.api.Assertions.assertThat;

class SocketAddressesTest
{
    @Test
    void shouldParseIpv4AndIpv6Literals() throws UnknownHostException
    {
        assertThat(SocketAddresses.resolve("127.0.0.1:7070"))
            .isEqualTo(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 7070));
        assertThat(SocketAddresses.resolve("[::1]:0"))
            .isEqualTo(new InetSocketAddress(InetAddress.getByName("::1"), 0));
        assertThat(SocketAddresses.resolve("0.0.0.0:65535").getPort()).isEqualTo(65535);
    }

    @Test
    void shouldFormatIpv6InBracketsSoItParsesBack() throws UnknownHostException
    {
        final String formatted = SocketAddresses.format(new InetSocketAddress(InetAddress.getByName("::1"), 7070));

        assertThat(formatted).startsWith("[").endsWith("]:7070");
        assertThat(SocketAddresses.resolve(formatted).getPort()).isEqualTo(7070);
        assertThat(SocketAddresses.format(new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 80)))
            .isEqualTo("10.1.2.3:80");
    }

    @Test
    void shouldTakeTheHostOutOfALinksAddress()
    {
        assertThat(SocketAddresses.host("10.0.0.7:7070")).isEqualTo("10.0.0.7");
        assertThat(SocketAddresses.host("[::1]:7070")).isEqualTo("::1");
        assertThat(SocketAddresses.host("[fe80::1%eth0]:1")).isEqualTo("fe80::1%eth0");
        assertThat(SocketAddresses.host("peer")).as("no port: as it is").isEqualTo("peer");
        assertThat(SocketAddresses.host(null)).isNull();
    }
}
