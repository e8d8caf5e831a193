package io.rivulet.transport.udp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Strict address parsing: literals parsed here (never a lookup), agreeing with the JDK's own literal parser on every
 * valid form, and every malformed form refused with a message that names it.
 */
class UdpAddressesTest
{
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @ParameterizedTest
    @ValueSource(strings = {"::", "::1", "1::", "1:2:3:4:5:6:7:8", "fe80::1:2", "2001:db8::8:800:200c:417a",
        "::ffff:192.0.2.1", "::192.0.2.1", "1:2:3:4:5:6:1.2.3.4", "FF15::AbCd", "0:0:0:0:0:0:0:1", "1:2:3:4:5:6:7::",
        "::2:3:4:5:6:7:8"})
    void shouldParseIpv6LiteralsAsTheJdkDoes(final String literal) throws Exception
    {
        // A bracketed literal is parsed by the JDK without a lookup: the reference.
        assertThat(InetAddress.getByAddress(UdpAddresses.ipv6(literal)))
            .isEqualTo(InetAddress.getByName("[" + literal + "]"));
    }

    @ParameterizedTest
    @ValueSource(strings = {":", ":::", "1:::2", "1::2::3", ":1::", "::1:", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9",
        "1::2:3:4:5:6:7:8", "12345::", "g::", "::1.2.3", "::1.2.3.4.5", "::01.2.3.4", "1.2.3.4::", "::1.2.3.4:5",
        "1:2:3:4:5:6:7:1.2.3.4", "::-1", "::+1", "fe80::1%eth0"})
    void shouldRefuseMalformedIpv6Literals(final String literal)
    {
        assertThat(UdpAddresses.ipv6(literal)).isNull();
    }

    @Test
    void shouldParseIpv4LiteralsStrictly()
    {
        assertThat(UdpAddresses.ipv4("0.0.0.0", 0, 7)).containsExactly(0, 0, 0, 0);
        assertThat(UdpAddresses.ipv4("255.1.20.3", 0, 10)).containsExactly((byte)255, 1, 20, 3);
        for (final String bad : new String[]{"256.1.1.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1..2.3", ".1.2.3",
            "1.2.3.", "1.2.3.a", "1.2.3.4 ", "1234.1.1.1", "-1.2.3.4", "0x1.2.3.4"})
        {
            assertThat(UdpAddresses.ipv4(bad, 0, bad.length())).as(bad).isNull();
        }
    }

    @Test
    void shouldAgreeWithTheJdkOnRandomIpv6Addresses() throws Exception
    {
        final SplittableRandom random = new SplittableRandom(20261207L);
        for (int i = 0; i < 2_000; i++)
        {
            final byte[] bytes = new byte[16];
            for (int j = 0; j < 16; j++)
            {
                // Runs of zeros, so that the JDK's text and the compressed forms below cover "::".
                bytes[j] = random.nextInt(3) == 0 ? 0 : (byte)random.nextInt(256);
            }
            final InetAddress address = InetAddress.getByAddress(bytes);
            if (!(address instanceof java.net.Inet6Address))
            {
                continue; // an IPv4-mapped address: the JDK makes it IPv4
            }
            final String text = address.getHostAddress();
            assertThat(InetAddress.getByAddress(UdpAddresses.ipv6(text))).as(text).isEqualTo(address);
            final String compressed = text.replaceFirst("(^|:)0(:0)+(:|$)", "::");
            assertThat(InetAddress.getByAddress(UdpAddresses.ipv6(compressed))).as(compressed).isEqualTo(address);
        }
    }

    @Test
    void shouldParseSocketAddressesAndLocalhost()
    {
        assertThat(UdpAddresses.parse("127.0.0.1:7070", LOOPBACK, 1))
            .isEqualTo(new InetSocketAddress(LOOPBACK, 7070));
        assertThat(UdpAddresses.parse("LocalHost:7070", LOOPBACK, 1))
            .isEqualTo(new InetSocketAddress(LOOPBACK, 7070));
        assertThat(UdpAddresses.parse("[::1]:1", LOOPBACK, 1).getAddress().getHostAddress()).isEqualTo("0:0:0:0:0:0:0:1");
        assertThat(UdpAddresses.parse("0.0.0.0:0", LOOPBACK, 0).getPort()).isZero();
        // An IPv4-mapped IPv6 literal is the IPv4 address, as the JDK names such a source.
        assertThat(UdpAddresses.parse("[::ffff:127.0.0.1]:9", LOOPBACK, 1))
            .isEqualTo(new InetSocketAddress(LOOPBACK, 9));
    }

    @Test
    void shouldRefuseMalformedSocketAddressesNamingTheProblem()
    {
        refused(null, "expected host:port");
        refused("", "expected host:port");
        refused("127.0.0.1", "expected host:port");
        refused("127.0.0.1:", "port");
        refused(":80", "no host");
        refused("127.0.0.1:0", "port 0");
        refused("127.0.0.1:65536", "over 65535");
        refused("127.0.0.1:123456", "port");
        refused("127.0.0.1:-1", "port");
        refused("127.0.0.1:+80", "port");
        refused("127.0.0.1:8a", "port");
        refused("127.0.0.1: 80", "space");
        refused("256.1.1.1:80", "not an IPv4 literal");
        refused("010.1.1.1:80", "leading zeros");
        refused("example.com:80", "names are not looked up");
        refused("localhost.:80", "names are not looked up");
        refused("::1:80", "must be in brackets");
        refused("[::1]80", "[ipv6]:port");
        refused("[127.0.0.1]:80", "only an IPv6 literal");
        refused("[::1%lo]:80", "not an IPv6 literal");
        refused("[1::2::3]:80", "not an IPv6 literal");
        refused("[::g]:80", "not an IPv6 literal");
        refused("1.2.3.4:80\n", "control");
        refused("\uff11.2.3.4:80", "non-ASCII");
        refused("1".repeat(100) + ":80", "longer than 64");
    }

    @Test
    void shouldParseGroupsStrictly()
    {
        assertThat(UdpAddresses.parseGroup("239.1.2.3:40456").getPort()).isEqualTo(40456);
        assertThat(UdpAddresses.parseGroup("[ff15::1]:40456").getAddress().isMulticastAddress()).isTrue();
        for (final String bad : new String[]{"10.0.0.1:40456", "239.1.2.3", "239.1.2.3:0", "localhost:40456",
            "[::1]:40456", "239.1.2.3:70000", "eth0:40456", "239.1.2.300:1", "[ff15::1]"})
        {
            assertThatThrownBy(() -> UdpAddresses.parseGroup(bad)).as(bad)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a multicast group");
        }
    }

    @Test
    void shouldFormatWhatItParsesBack()
    {
        for (final String address : new String[]{"127.0.0.1:7", "0.0.0.0:40000", "[::]:5", "[fe80::1]:9"})
        {
            final InetSocketAddress parsed = UdpAddresses.parse(address, LOOPBACK, 0);
            assertThat(UdpAddresses.parse(UdpAddresses.format(parsed), LOOPBACK, 0)).isEqualTo(parsed);
        }
        assertThat(UdpAddresses.format(new InetSocketAddress(LOOPBACK, 7))).isEqualTo("127.0.0.1:7");
    }

    @Test
    void shouldNeverShowAHostilePeersBytesAsTheyAre()
    {
        assertThat(UdpAddresses.shown("a\u001b[31mb")).isEqualTo("'a?[31mb'");
        assertThat(UdpAddresses.shown("x".repeat(200))).endsWith("...'").hasSize(85);
    }

    private static void refused(final String address, final String reason)
    {
        assertThatThrownBy(() -> UdpAddresses.parse(address, LOOPBACK, 1)).as(String.valueOf(address))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(reason);
    }
}
