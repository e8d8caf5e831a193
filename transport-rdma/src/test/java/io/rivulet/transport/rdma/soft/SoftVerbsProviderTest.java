package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SoftVerbsProviderTest
{
    @Test
    void shouldAlwaysBeAvailableUnderTheNameSoft()
    {
        final VerbsProvider provider = new SoftVerbsProvider();
        assertThat(provider.name()).isEqualTo("soft");
        assertThat(provider.availability().available()).isTrue();
        assertThat(new SoftVerbsProvider(new SoftFabric()).availability().reason()).contains("in-memory");
    }

    @Test
    void shouldRefuseAnAddressThatIsNotLoopback()
    {
        assertThatThrownBy(() -> new SoftVerbsProvider().open(InetAddress.getByName("10.1.2.3")))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("soft runs on loopback only");
    }

    @Test
    void shouldOpenOnAnyLoopbackAddress() throws IOException
    {
        final SoftVerbsProvider provider = new SoftVerbsProvider(new SoftFabric());
        try (SoftVerbsContext v4 = provider.open(InetAddress.getByName("127.0.0.2"));
            SoftVerbsContext v6 = provider.open(InetAddress.getByName("::1")))
        {
            assertThat(v4.providerName()).isEqualTo("soft");
            assertThat(v4.deviceName()).startsWith("soft").isNotEqualTo(v6.deviceName());
            assertThat(v6.isInProcess()).isTrue();
        }
    }

    @Test
    void shouldGiveUniqueKeysNeverReusedAndCountRegistrations() throws IOException
    {
        try (SoftVerbsContext context = new SoftVerbsProvider(new SoftFabric()).open(InetAddress.getLoopbackAddress()))
        {
            final ProtectionDomain pd = context.allocateProtectionDomain();
            final Set<Integer> lkeys = new HashSet<>();
            final Set<Integer> rkeys = new HashSet<>();
            final List<MemoryRegion> regions = new ArrayList<>();
            for (int i = 0; i < 100; i++)
            {
                final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
                final MemoryRegion region = pd.register(buffer, Access.LOCAL_WRITE | Access.REMOTE_READ);
                assertThat(region.lkey()).isNotZero().isNotEqualTo(region.rkey());
                assertThat(region.rkey()).isNotZero();
                assertThat(region.length()).isEqualTo(64);
                assertThat(region.address()).isEqualTo(BufferUtil.address(buffer));
                assertThat(lkeys.add(region.lkey())).isTrue();
                assertThat(rkeys.add(region.rkey())).isTrue();
                regions.add(region);
            }
            assertThat(context.registrations()).isEqualTo(100);
            for (int i = 0; i < 50; i++)
            {
                regions.get(i).close();
            }
            assertThat(context.registrations()).isEqualTo(50);
            for (int i = 0; i < 50; i++)
            {
                final MemoryRegion region = pd.register(ByteBuffer.allocateDirect(64), Access.LOCAL_WRITE);
                assertThat(lkeys.add(region.lkey())).as("lkey reused").isTrue();
                assertThat(rkeys.add(region.rkey())).as("rkey reused").isTrue();
            }
            assertThat(context.registrations()).isEqualTo(100);
            assertThat(context.totalRegistrations()).isEqualTo(150);

            pd.close();
            assertThat(context.registrations()).isZero();
            assertThat(context.totalRegistrations()).isEqualTo(150);
        }
    }

    @Test
    void shouldRefuseRegistrationsHardwareRefuses() throws IOException
    {
        try (SoftVerbsContext context = new SoftVerbsProvider(new SoftFabric()).open(InetAddress.getLoopbackAddress()))
        {
            final ProtectionDomain pd = context.allocateProtectionDomain();
            assertThatThrownBy(() -> pd.register(ByteBuffer.allocate(64), Access.LOCAL_WRITE))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("direct");
            assertThatThrownBy(() -> pd.register(ByteBuffer.allocateDirect(64), Access.REMOTE_WRITE))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("LOCAL_WRITE");
            assertThat(context.registrations()).isZero();
        }
    }

    @Test
    void shouldValidateConfiguration()
    {
        final SoftVerbsProvider provider = new SoftVerbsProvider();
        assertThatThrownBy(() -> provider.withMtu(10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SoftFaults.seeded(1).drop(1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThat(provider.withMtu(1500).mtu()).isEqualTo(1500);
        assertThat(provider.mtu()).isEqualTo(SoftVerbsProvider.DEFAULT_MTU);
    }
}
