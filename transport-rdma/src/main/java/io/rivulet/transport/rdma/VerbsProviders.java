package io.rivulet.transport.rdma;

import io.rivulet.ConfigurationException;
import io.rivulet.transport.rdma.disni.DisniVerbsProvider;
import io.rivulet.transport.rdma.ibverbs.IbverbsProvider;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;
import io.rivulet.transport.rdma.verbs.VerbsProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Picks a verbs provider by name: {@code ibverbs} (RDMA hardware through rdma-core and Rivulet's JNI library),
 * {@code disni} (RDMA hardware through DiSNI), {@code soft} (user space, no RDMA NIC needed) or {@code auto}:
 * ibverbs when a device exists and the library loads, otherwise disni when libdisni loads, otherwise soft, saying
 * which and why in one log line.
 */
public final class VerbsProviders
{
    public static final String IBVERBS = "ibverbs";
    public static final String DISNI = "disni";
    public static final String SOFT = "soft";
    public static final String AUTO = "auto";

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger("io.rivulet.transport.rdma");

    private VerbsProviders()
    {
    }

    /**
     * The outcome of {@code auto}: the provider and the sentence that explains it.
     *
     * @param provider the chosen provider.
     * @param message  one line: which provider and, for each preferred one passed over, why it is unavailable.
     */
    public record Choice(VerbsProvider provider, String message)
    {
    }

    /**
     * @param name {@code ibverbs}, {@code disni}, {@code soft} or {@code auto} (case and surrounding blanks ignored).
     * @return the provider; {@code auto} resolves (and logs) its choice now.
     * @throws ConfigurationException naming an unknown provider.
     */
    public static VerbsProvider byName(final String name)
    {
        final String key = null == name ? "" : name.strip().toLowerCase(Locale.ROOT);
        switch (key)
        {
            case IBVERBS:
                return new IbverbsProvider();
            case DISNI:
                return new DisniVerbsProvider();
            case SOFT:
                return soft();
            case AUTO:
                return auto();
            default:
                throw new ConfigurationException("unknown RDMA verbs provider '" + name + "': expected " + IBVERBS +
                    ", " + DISNI + ", " + SOFT + " or " + AUTO);
        }
    }

    /** ibverbs, else disni, else soft; logs the choice and the reasons in one INFO line. */
    public static VerbsProvider auto()
    {
        final Choice choice = chooseAuto();
        LOG.info("{}", choice.message());
        return choice.provider();
    }

    /** @return what {@code auto} picks here and why, without logging. */
    public static Choice chooseAuto()
    {
        return choose(List.of(new IbverbsProvider(), new DisniVerbsProvider()), VerbsProviders::soft);
    }

    /**
     * The {@code auto} rule over one preferred provider.
     *
     * @param preferred used when available.
     * @param fallback  used otherwise; created only then.
     * @return the choice and its one-line explanation.
     */
    public static Choice choose(final VerbsProvider preferred, final Supplier<VerbsProvider> fallback)
    {
        return choose(List.of(preferred), fallback);
    }

    /**
     * The {@code auto} rule: the first available of the preferred providers, in order, else the fallback.
     *
     * @param preferred tried in order; the ones after the chosen one are not asked.
     * @param fallback  used when none is available; created only then.
     * @return the choice and its one-line explanation.
     */
    public static Choice choose(final List<VerbsProvider> preferred, final Supplier<VerbsProvider> fallback)
    {
        final List<String> passedOver = new ArrayList<>();
        for (final VerbsProvider provider : preferred)
        {
            final VerbsProvider.Availability availability = provider.availability();
            if (availability.available())
            {
                final String message = "rivulet rdma: using provider " + provider.name() + " (" +
                    availability.reason() + ")";
                return new Choice(provider, passedOver.isEmpty() ? message :
                    message + "; " + String.join("; ", passedOver));
            }
            passedOver.add("provider " + provider.name() + " unavailable (" + availability.reason() + ")");
        }
        final VerbsProvider chosen = Objects.requireNonNull(fallback.get(), "fallback provider");
        return new Choice(chosen, "rivulet rdma: " + String.join("; ", passedOver) + "; using " + chosen.name());
    }

    /** @return every provider, in the order {@code auto} prefers them. */
    public static List<VerbsProvider> all()
    {
        return List.of(new IbverbsProvider(), new DisniVerbsProvider(), soft());
    }

    /**
     * @return one line per provider with its availability and reason, for {@code rivulet devices}.
     */
    public static String describe()
    {
        return describe(all());
    }

    /** @return one line per given provider: name, available or unavailable, and the reason. */
    public static String describe(final List<VerbsProvider> providers)
    {
        final StringBuilder text = new StringBuilder();
        for (final VerbsProvider provider : providers)
        {
            final VerbsProvider.Availability availability = provider.availability();
            text.append(provider.name())
                .append(": ")
                .append(availability.available() ? "available" : "unavailable")
                .append(" - ")
                .append(availability.reason())
                .append(System.lineSeparator());
        }
        return text.toString();
    }

    private static VerbsProvider soft()
    {
        return new SoftVerbsProvider();
    }
}
