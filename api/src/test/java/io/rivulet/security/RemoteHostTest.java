package io.rivulet.security;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The key a per-source defence counts under: the host without its port, IPv6 by /64, and never a DNS lookup. */
class RemoteHostTest
{
    @Test
    void shouldDropThePortOfAnIpv4Address()
    {
        assertThat(RemoteHost.key("192.0.2.7:51000")).isEqualTo("192.0.2.7");
        assertThat(RemoteHost.key("192.0.2.7:1")).isEqualTo(RemoteHost.key("192.0.2.7:65535"));
        assertThat(RemoteHost.key("192.0.2.8:51000")).isNotEqualTo(RemoteHost.key("192.0.2.7:51000"));
    }

    @Test
    void shouldCountAnIpv6HostByItsSlash64()
    {
        assertThat(RemoteHost.key("[2001:db8:0:1::7]:7070")).isEqualTo("2001:db8:0:1::/64");
        // The JDK's own long form (SocketAddresses.format writes getHostAddress) gives the same key.
        assertThat(RemoteHost.key("[2001:db8:0:1:0:0:0:7]:7070")).isEqualTo("2001:db8:0:1::/64");
        assertThat(RemoteHost.key("[2001:db8:0:1:ffff:1:2:3]:1")).isEqualTo("2001:db8:0:1::/64");
        assertThat(RemoteHost.key("[2001:db8:0:2::7]:7070")).isEqualTo("2001:db8:0:2::/64");
        assertThat(RemoteHost.key("[0:0:0:0:0:0:0:1]:7070")).isEqualTo("0:0:0:0::/64");
        assertThat(RemoteHost.key("[fe80:0:0:0:1:2:3:4%eth0]:7070")).isEqualTo("fe80:0:0:0::/64");
    }

    @Test
    void shouldCountAnIpv4MappedAddressAsItsIpv4Host()
    {
        assertThat(RemoteHost.key("[::ffff:192.0.2.7]:7070")).isEqualTo("192.0.2.7");
    }

    @Test
    void shouldKeepTextThatIsNotAnAddressAsWrittenWithoutLookingItUp()
    {
        assertThat(RemoteHost.key("Example.invalid:7070")).isEqualTo("example.invalid");
        assertThat(RemoteHost.key("[not-an-address]:7070")).isEqualTo("not-an-address");
        assertThat(RemoteHost.key("[]:7070")).isEqualTo("[]:7070");
        assertThat(RemoteHost.key("no-port")).isEqualTo("no-port");
        assertThat(RemoteHost.key(":7070")).isEqualTo("unknown");
        assertThat(RemoteHost.key("")).isEqualTo("unknown");
        assertThat(RemoteHost.key(null)).isEqualTo("unknown");
    }
}
