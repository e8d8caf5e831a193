package io.rivulet.transport.rdma.disni;

import io.rivulet.ConfigurationException;
import io.rivulet.transport.rdma.VerbsProviders;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The provider selection, which lives in {@code io.rivulet.transport.rdma} but is the disni provider's to get right. */
class VerbsProvidersTest
{
    private static final String NO_DEVICE = "no RDMA device: /sys/class/infiniband is empty";

    @Test
    void shouldFallBackExplainingWhyInOneLine()
    {
        final VerbsProviders.Choice choice = VerbsProviders.choose(
            new FakeProvider("disni", VerbsProvider.Availability.no(NO_DEVICE)),
            () -> new FakeProvider("soft", VerbsProvider.Availability.yes("user-space verbs")));

        assertThat(choice.provider().name()).isEqualTo("soft");
        assertThat(choice.message())
            .isEqualTo("rivulet rdma: provider disni unavailable (" + NO_DEVICE + "); using soft")
            .doesNotContain("\n");
    }

    @Test
    void shouldPreferTheAvailableProviderWithoutCreatingTheFallback()
    {
        final FakeProvider disni = new FakeProvider("disni", VerbsProvider.Availability.yes("DiSNI 2.1; RDMA devices: mlx5_0"));
        final VerbsProviders.Choice choice = VerbsProviders.choose(disni, () ->
        {
            throw new AssertionError("fallback created");
        });

        assertThat(choice.provider()).isSameAs(disni);
        assertThat(choice.message()).isEqualTo("rivulet rdma: using provider disni (DiSNI 2.1; RDMA devices: mlx5_0)");
    }

    @Test
    void shouldCreateProvidersByName()
    {
        assertThat(VerbsProviders.byName("disni")).isInstanceOf(DisniVerbsProvider.class);
        assertThat(VerbsProviders.byName(" DISNI ")).isInstanceOf(DisniVerbsProvider.class);
        assertThatThrownBy(() -> VerbsProviders.byName("verbs"))
            .isInstanceOf(ConfigurationException.class)
            .hasMessage("unknown RDMA verbs provider 'verbs': expected soft, disni or auto");
        assertThatThrownBy(() -> VerbsProviders.byName(null)).isInstanceOf(ConfigurationException.class);
    }

    @Test
    void shouldPickSoftAutomaticallyOnAHostWithoutRdma()
    {
        assumeTrue(softPresent(), "the soft provider is not built yet");
        assumeTrue(!new DisniVerbsProvider().availability().available(), "this host has RDMA");

        assertThat(VerbsProviders.auto().name()).isEqualTo("soft");
        assertThat(VerbsProviders.byName("soft").name()).isEqualTo("soft");
        assertThat(VerbsProviders.byName("auto").name()).isEqualTo("soft");
    }

    @Test
    void shouldDescribeEachProviderOnItsOwnLine()
    {
        final String text = VerbsProviders.describe(List.of(
            new FakeProvider("disni", VerbsProvider.Availability.no(NO_DEVICE)),
            new FakeProvider("soft", VerbsProvider.Availability.yes("user-space verbs"))));

        assertThat(text.lines()).containsExactly(
            "disni: unavailable - " + NO_DEVICE,
            "soft: available - user-space verbs");
    }

    private static boolean softPresent()
    {
        try
        {
            Class.forName("io.rivulet.transport.rdma.soft.SoftVerbsProvider");
            return true;
        }
        catch (final ClassNotFoundException ex)
        {
            return false;
        }
    }

    private record FakeProvider(String name, Availability availability) implements VerbsProvider
    {
        @Override
        public VerbsContext open(final InetAddress localAddress)
        {
            throw new UnsupportedOperationException();
        }
    }
}
