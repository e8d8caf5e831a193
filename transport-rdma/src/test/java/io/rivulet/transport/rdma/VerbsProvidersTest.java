package io.rivulet.transport.rdma;

import io.rivulet.ConfigurationException;
import io.rivulet.transport.rdma.disni.DisniVerbsProvider;
import io.rivulet.transport.rdma.ibverbs.IbverbsProvider;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The provider selection: by name, and {@code auto}'s order (ibverbs, disni, soft) with its one-line reason. */
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
    void shouldPreferIbverbsThenDisniAndNameEveryOnePassedOverInOneLine()
    {
        final FakeProvider ibverbs = new FakeProvider("ibverbs", VerbsProvider.Availability.no("no RDMA device"));
        final FakeProvider disni = new FakeProvider("disni", VerbsProvider.Availability.yes("DiSNI 2.1"));

        final VerbsProviders.Choice second = VerbsProviders.choose(List.of(ibverbs, disni), () ->
        {
            throw new AssertionError("fallback created");
        });
        assertThat(second.provider()).isSameAs(disni);
        assertThat(second.message())
            .isEqualTo("rivulet rdma: using provider disni (DiSNI 2.1); provider ibverbs unavailable (no RDMA device)");

        final VerbsProviders.Choice none = VerbsProviders.choose(
            List.of(ibverbs, new FakeProvider("disni", VerbsProvider.Availability.no("libdisni not found"))),
            () -> new FakeProvider("soft", VerbsProvider.Availability.yes("user-space verbs")));
        assertThat(none.provider().name()).isEqualTo("soft");
        assertThat(none.message()).isEqualTo("rivulet rdma: provider ibverbs unavailable (no RDMA device); " +
            "provider disni unavailable (libdisni not found); using soft").doesNotContain("\n");

        final VerbsProviders.Choice first = VerbsProviders.choose(List.of(
            new FakeProvider("ibverbs", VerbsProvider.Availability.yes("rdma-core; RDMA devices: rxe0")),
            new FakeProvider("disni", VerbsProvider.Availability.no("never asked"))), () -> null);
        assertThat(first.message()).isEqualTo("rivulet rdma: using provider ibverbs (rdma-core; RDMA devices: rxe0)");
    }

    @Test
    void shouldListEveryProviderInTheOrderAutoPrefersThem()
    {
        assertThat(VerbsProviders.all()).extracting(VerbsProvider::name).containsExactly("ibverbs", "disni", "soft");
        assertThat(VerbsProviders.describe().lines()).hasSize(3)
            .anySatisfy(line -> assertThat(line).startsWith("ibverbs: "))
            .anySatisfy(line -> assertThat(line).startsWith("soft: available - "));
    }

    @Test
    void shouldCreateProvidersByName()
    {
        assertThat(VerbsProviders.byName("ibverbs")).isInstanceOf(IbverbsProvider.class);
        assertThat(VerbsProviders.byName("disni")).isInstanceOf(DisniVerbsProvider.class);
        assertThat(VerbsProviders.byName(" DISNI ")).isInstanceOf(DisniVerbsProvider.class);
        assertThatThrownBy(() -> VerbsProviders.byName("verbs"))
            .isInstanceOf(ConfigurationException.class)
            .hasMessage("unknown RDMA verbs provider 'verbs': expected ibverbs, disni, soft or auto");
        assertThatThrownBy(() -> VerbsProviders.byName(null)).isInstanceOf(ConfigurationException.class);
    }

    @Test
    void shouldPickSoftAutomaticallyOnAHostWithoutRdma()
    {
        assumeTrue(softPresent(), "the soft provider is not built yet");
        assumeTrue(!new IbverbsProvider().availability().available(), "this host has an RDMA device");
        assumeTrue(!new DisniVerbsProvider().availability().available(), "this host has DiSNI and RDMA");

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
