package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.VerbsProvider.Availability;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The provider on a host without libdisni or an RDMA device (the build machines): it must say so,
 * clearly, without crashing or poisoning the JVM. Skipped on RDMA hosts, where the hardware tests run.
 */
class DisniVerbsProviderTest
{
    private final DisniVerbsProvider provider = new DisniVerbsProvider();
    private Availability availability;

    @BeforeEach
    void checkHost()
    {
        availability = provider.availability();
        assumeFalse(availability.available(), "this host has DiSNI and an RDMA device: see DisniHardwareTest");
    }

    @Test
    void shouldBeUnavailableSayingWhatIsMissing()
    {
        assertThat(provider.name()).isEqualTo("disni");
        assertThat(availability.available()).isFalse();
        assertThat(availability.reason())
            .containsAnyOf("libdisni", "java.library.path", "no RDMA device", "--add-exports")
            .doesNotContain("Exception");
    }

    @Test
    void shouldGiveTheSameAnswerEveryTimeWithoutPoisoningDisni()
    {
        for (int i = 0; i < 3; i++)
        {
            assertThat(provider.availability()).isEqualTo(availability);
        }
    }

    @Test
    void shouldRefuseToOpenWithTheReason()
    {
        assertThatThrownBy(() -> provider.open(InetAddress.getLoopbackAddress()))
            .isInstanceOf(VerbsException.class)
            .isInstanceOf(IOException.class)
            .hasMessage("RDMA provider disni unavailable: " + availability.reason());
    }

    @Test
    void shouldRefuseAddressesDisniCannotUseBeforeTouchingTheDevice() throws Exception
    {
        assertThatThrownBy(() -> DisniVerbsContext.checkLocalAddress(InetAddress.getByName("::1")))
            .hasMessageContaining("IPv4 only");
        assertThatThrownBy(() -> DisniVerbsContext.checkLocalAddress(InetAddress.getByName("0.0.0.0")))
            .hasMessageContaining("not the wildcard");
        assertThatThrownBy(() -> DisniVerbsContext.checkLocalAddress(null))
            .hasMessageContaining("no local address");
        assertThatThrownBy(() -> DisniVerbsContext.checkRemoteAddress(
            new java.net.InetSocketAddress(InetAddress.getByName("10.0.0.1"), 0)))
            .hasMessageContaining("specific address and port");
        assertThatThrownBy(() -> DisniVerbsContext.checkRemoteAddress(
            java.net.InetSocketAddress.createUnresolved("rdma-peer", 7070)))
            .hasMessageContaining("unresolved");
    }
}
