package io.rivulet.transport.tcp;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import static org.assertj.core.api.Assertions.assertThat;

class TcpAddressTest
{
    @Test
    void shouldParseIpv4AndIpv6Literals() throws UnknownHostException
    {
        assertThat(TcpAddress.resolve("127.0.0.1:7070"))
            .isEqualTo(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 7070));
        assertThat(TcpAddress.resolve("[::1]:0"))
            .isEqualTo(new InetSocketAddress(InetAddress.getByName("::1"), 0));
        assertThat(TcpAddress.resolve("0.0.0.0:65535").getPort()).isEqualTo(65535);
    }

    @Test
    void shouldFormatIpv6InBracketsSoItParsesBack() throws UnknownHostException
    {
        final String formatted = TcpAddress.format(new InetSocketAddress(InetAddress.getByName("::1"), 7070));

        assertThat(formatted).startsWith("[").endsWith("]:7070");
        assertThat(TcpAddress.resolve(formatted).getPort()).isEqualTo(7070);
        assertThat(TcpAddress.format(new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 80)))
            .isEqualTo("10.1.2.3:80");
    }
}
