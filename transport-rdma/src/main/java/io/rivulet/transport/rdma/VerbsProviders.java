package io.rivulet.transport.rdma;

import io.rivulet.ConfigurationException;
import io.rivulet.transport.rdma.disni.DisniVerbsProvider;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;
import io.rivulet.transport.rdma.verbs.VerbsProvider;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Picks a verbs provider by name: {@code disni} (RDMA hardware through DiSNI), {@code soft} (user
 * space, no RDMA NIC needed) or {@code auto} (disni when it is available here, else soft, saying why in
 * one log line).
 */
public final class VerbsProviders
{
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
     * @param message  one line: which provider and, on fallback, why the preferred one is unavailable.
     */
    public record Choice(VerbsProvider provider, String message)
    {
    }

    /**
     * @param name {@code soft}, {@code disni} or {@code auto} (case and surrounding blanks ignored).
     * @return the provider; {@code auto} resolves (and logs) its choice now.
     * @throws ConfigurationException naming an unknown provider.
     */
    public static VerbsProvider byName(final String name)
    {
        final String key = null == name ? "" : name.strip().toLowerCase(Locale.ROOT);
        switch (key)
        {
            case DISNI:
                return new DisniVerbsProvider();
            case SOFT:
                return soft();
            case AUTO:
                return auto();
            default:
                throw new ConfigurationException("unknown RDMA verbs provider '" + name + "': expected " + SOFT + ", " +
                    DISNI + " or " + AUTO);
        }
    }

    /**
     * {@code disni} when it is available here, else {@code soft}; logs the choice and the reason in one
     * INFO line.
     */
    public static VerbsProvider auto()
    {
        final Choice choice = choose(new DisniVerbsProvider(), VerbsProviders::soft);
        LOG.info("{}", choice.message());
        return choice.provider();
    }

    /**
     * The {@code auto} rule over given providers, without logging.
     *
     * @param preferred used when available.
     * @param fallback  used otherwise; created only then.
     * @return the choice and its one-line explanation.
     */
    public static Choice choose(final VerbsProvider preferred, final Supplier<VerbsProvider> fallback)
    {
        final VerbsProvider.Availability availability = preferred.availability();
        if (availability.available())
        {
            return new Choice(preferred, "rivulet rdma: using provider " + preferred.name() + " (" +
                availability.reason() + ")");
        }
        final VerbsProvider chosen = Objects.requireNonNull(fallback.get(), "fallback provider");
        return new Choice(chosen, "rivulet rdma: provider " + preferred.name() + " unavailable (" +
            availability.reason() + "); using " + chosen.name());
    }

    /** @return every provider, disni first. */
    public static List<VerbsProvider> all()
    {
        return List.of(new DisniVerbsProvider(), soft());
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
