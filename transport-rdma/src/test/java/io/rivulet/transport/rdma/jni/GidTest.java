package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.verbs.VerbsException;
import org.junit.jupiter.api.Test;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GidTest
{
    @Test
    void shouldFormatEightGroupsAndTheLidAndParseThemBack() throws VerbsException
    {
        final Gid gid = new Gid(0xfe80_0000_0000_0000L, 0x0202_c9ff_fe00_0001L, 3);
        assertThat(gid.format()).isEqualTo("fe80:0000:0000:0000:0202:c9ff:fe00:0001/3");
        assertThat(Gid.parse(gid.format())).isEqualTo(gid);
        assertThat(Gid.parse("FE80:0:0:0:202:C9FF:FE00:1/3")).isEqualTo(gid);
        assertThat(Gid.parse("fe80:0:0:0:202:c9ff:fe00:1")).isEqualTo(new Gid(gid.high(), gid.low(), 0));
        final Gid allOnes = new Gid(-1, -1, 0xffff);
        assertThat(Gid.parse(allOnes.format())).isEqualTo(allOnes);
    }

    @Test
    void shouldMapAnIpv4AddressAsRoceDoes() throws UnknownHostException
    {
        final Gid gid = Gid.ipv4Mapped((Inet4Address)InetAddress.getByName("192.168.1.20"));
        assertThat(gid.format()).isEqualTo("0000:0000:0000:0000:0000:ffff:c0a8:0114/0");
        assertThat(gid.isMulticast()).isFalse();
        assertThat(gid.isZero()).isFalse();
    }

    @Test
    void shouldTellMulticastAndZeroGids() throws VerbsException
    {
        assertThat(Gid.parse("ff12:401b:ffff:0:0:0:ffff:ffff/49152").isMulticast()).isTrue();
        assertThat(Gid.parse("fe80:0:0:0:0:0:0:1").isMulticast()).isFalse();
        assertThat(Gid.parse("0:0:0:0:0:0:0:0/5").isZero()).isTrue();
    }

    @Test
    void shouldRejectMalformedTextFromPeersNamingTheProblem()
    {
        assertMalformed(null, "expected 8 colon-separated groups");
        assertMalformed("", "expected 8 colon-separated groups");
        assertMalformed("fe80::1/3", "found 3");
        assertMalformed("fe80:0:0:0:0:0:0/3", "found 7");
        assertMalformed("fe80:0:0:0:0:0:0:0:1", "found 9");
        assertMalformed("fe80:0:0:0:0:0:0:12345", "group 8 '12345' is not 1-4 hex digits");
        assertMalformed("fe80:0:0:0:0:0:g:1", "group 7 'g' is not 1-4 hex digits");
        assertMalformed("fe80:0:0:0:0:0:+1:1", "group 7 '+1' is not 1-4 hex digits");
        assertMalformed("fe80:0:0:0:0:0:0:1/", "the LID after '/'");
        assertMalformed("fe80:0:0:0:0:0:0:1/65536", "the LID after '/'");
        assertMalformed("fe80:0:0:0:0:0:0:1/-1", "the LID after '/'");
        assertMalformed("fe80:0:0:0:0:0:0:1/1/2", "the LID after '/'");
        assertMalformed("x".repeat(10_000), "expected 8 colon-separated groups");
    }

    @Test
    void shouldKeepTheLidInRange()
    {
        assertThatThrownBy(() -> new Gid(0, 0, 0x10000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Gid(0, 0, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    private static void assertMalformed(final String text, final String why)
    {
        assertThatThrownBy(() -> Gid.parse(text))
            .isInstanceOf(VerbsException.class)
            .hasMessageStartingWith("malformed UD address gid")
            .hasMessageContaining(why);
    }
}
