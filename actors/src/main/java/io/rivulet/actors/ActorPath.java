package io.rivulet.actors;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The address of an actor: {@code rivulet://authority/name}, where the authority is the {@code host:port} its
 * actor system is bound to, or {@value ActorSystem#UNBOUND} for a system that is not bound.
 *
 * <p>Immutable; equal when authority and name are.
 */
final class ActorPath
{
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._~-]{0,127}");

    private final String authority;
    private final String name;

    private ActorPath(final String authority, final String name)
    {
        this.authority = authority;
        this.name = name;
    }

    /**
     * @param authority {@code host:port} with a port in [1, 65535], or {@value ActorSystem#UNBOUND}.
     * @param name      an actor name (see {@link #requireName(String)}).
     * @return the path.
     * @throws IllegalArgumentException naming the bad part.
     */
    static ActorPath of(final String authority, final String name)
    {
        requireName(name);
        if (!isAuthority(authority))
        {
            throw new IllegalArgumentException("'" + authority + "' is not an actor system's address: expected " +
                "host:port or " + ActorSystem.UNBOUND);
        }
        return new ActorPath(authority, name);
    }

    /**
     * @param path {@code rivulet://host:port/name} or {@code rivulet://local/name}.
     * @return the path.
     * @throws IllegalArgumentException when the path is malformed, naming it.
     */
    static ActorPath parse(final String path)
    {
        Objects.requireNonNull(path, "path");
        if (!path.startsWith(ActorSystem.SCHEME))
        {
            throw malformed(path);
        }
        final String rest = path.substring(ActorSystem.SCHEME.length());
        final int slash = rest.indexOf('/');
        if (slash <= 0)
        {
            throw malformed(path);
        }
        final String authority = rest.substring(0, slash);
        final String name = requireName(rest.substring(slash + 1));
        if (!isAuthority(authority))
        {
            throw malformed(path);
        }
        return new ActorPath(authority, name);
    }

    /**
     * The text of a path, without validation: for callers that hold a name already checked, or that only
     * describe one.
     */
    static String format(final String authority, final String name)
    {
        return ActorSystem.SCHEME + authority + "/" + name;
    }

    /**
     * @param name the candidate.
     * @return the name: 1 to 128 letters, digits or {@code . _ ~ -}, not starting with {@code . ~ -}.
     * @throws IllegalArgumentException otherwise.
     */
    static String requireName(final String name)
    {
        if (name == null || !NAME.matcher(name).matches())
        {
            throw new IllegalArgumentException("'" + name + "' is not an actor name: 1 to 128 letters, digits or " +
                "._~- (not starting with . ~ -)");
        }
        return name;
    }

    /** @return the {@code host:port} of the actor's system, or {@value ActorSystem#UNBOUND}. */
    String authority()
    {
        return authority;
    }

    String name()
    {
        return name;
    }

    /** @return true for an actor of a system that is not bound, which only that system can reach. */
    boolean isUnbound()
    {
        return ActorSystem.UNBOUND.equals(authority);
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof ActorPath that && authority.equals(that.authority) && name.equals(that.name);
    }

    @Override
    public int hashCode()
    {
        return 31 * authority.hashCode() + name.hashCode();
    }

    @Override
    public String toString()
    {
        return format(authority, name);
    }

    private static boolean isAuthority(final String authority)
    {
        return ActorSystem.UNBOUND.equals(authority) || isHostPort(authority);
    }

    private static boolean isHostPort(final String authority)
    {
        if (authority == null)
        {
            return false;
        }
        final int colon = authority.lastIndexOf(':');
        if (colon <= 0 || colon == authority.length() - 1)
        {
            return false;
        }
        try
        {
            final int port = Integer.parseInt(authority.substring(colon + 1));
            return port > 0 && port <= 65535;
        }
        catch (final NumberFormatException ex)
        {
            return false;
        }
    }

    private static IllegalArgumentException malformed(final String path)
    {
        return new IllegalArgumentException("'" + path + "' is not an actor path: expected rivulet://host:port/name");
    }
}
