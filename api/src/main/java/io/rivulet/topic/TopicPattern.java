package io.rivulet.topic;

import io.rivulet.codec.FrameReader;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A hierarchical topic name ({@code md.quotes.EURUSD}) or a subscription pattern over such names:
 * tokens separated by {@code '.'}, where in a pattern {@code *} matches exactly one token and {@code >},
 * allowed only as the last token, matches one or more remaining tokens (NATS semantics):
 *
 * <pre>
 *   md.quotes.*     matches md.quotes.EURUSD              not md.quotes  nor md.quotes.EURUSD.depth
 *   md.*.EURUSD     matches md.quotes.EURUSD, md.trades.EURUSD
 *   md.>            matches md.quotes, md.quotes.EURUSD   not md
 * </pre>
 *
 * <p>Tokens are non-empty and made of printable ASCII other than {@code . * >} and space; a whole name or
 * pattern is 1 to {@link FrameReader#MAX_TOPIC_LENGTH} (200) bytes. Parsing allocates and is for the control
 * path (subscribing, creating publications); matching does not allocate.
 *
 * <p>Immutable and thread-safe.
 */
final class TopicPattern
{
    private static final String ONE = "*";
    private static final String REST = ">";

    private final String text;
    private final String[] tokens;
    private final boolean wildcard;

    private TopicPattern(final String text, final String[] tokens, final boolean wildcard)
    {
        this.text = text;
        this.tokens = tokens;
        this.wildcard = wildcard;
    }

    /**
     * @param pattern a subscription pattern.
     * @return the parsed pattern.
     * @throws IllegalArgumentException naming what is wrong with it.
     */
    static TopicPattern pattern(final String pattern)
    {
        return parse(pattern, true);
    }

    /**
     * @param name a topic name (no wildcards).
     * @return the parsed name, usable as a pattern that matches only itself.
     * @throws IllegalArgumentException naming what is wrong with it.
     */
    static TopicPattern name(final String name)
    {
        return parse(name, false);
    }

    private static TopicPattern parse(final String text, final boolean allowWildcards)
    {
        final String what = allowWildcards ? "topic pattern" : "topic name";
        if (text == null || text.isEmpty())
        {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        if (text.getBytes(StandardCharsets.UTF_8).length > FrameReader.MAX_TOPIC_LENGTH)
        {
            throw new IllegalArgumentException(what + " longer than " + FrameReader.MAX_TOPIC_LENGTH + " bytes: " + text);
        }
        final String[] tokens = text.split("\\.", -1);
        boolean wildcard = false;
        for (int i = 0; i < tokens.length; i++)
        {
            final String token = tokens[i];
            if (token.isEmpty())
            {
                throw new IllegalArgumentException(what + " has an empty token: '" + text + "'");
            }
            if (ONE.equals(token) || REST.equals(token))
            {
                if (!allowWildcards)
                {
                    throw new IllegalArgumentException("topic name must not contain wildcards: '" + text + "'");
                }
                if (REST.equals(token) && i != tokens.length - 1)
                {
                    throw new IllegalArgumentException("'>' must be the last token of a pattern: '" + text + "'");
                }
                wildcard = true;
                continue;
            }
            for (int c = 0; c < token.length(); c++)
            {
                final char ch = token.charAt(c);
                if (ch <= ' ' || ch > '~' || ch == '*' || ch == '>')
                {
                    throw new IllegalArgumentException(what + " has a character not allowed in a token (" +
                        (ch <= ' ' || ch > '~' ? "U+" + Integer.toHexString(ch) : "'" + ch + "'") + "): '" + text + "'");
                }
            }
        }
        return new TopicPattern(text, tokens, wildcard);
    }

    /**
     * @param name a parsed topic name.
     * @return true when this pattern matches the name.
     */
    boolean matches(final TopicPattern name)
    {
        final String[] names = name.tokens;
        final int count = tokens.length;
        for (int i = 0; i < count; i++)
        {
            final String token = tokens[i];
            if (REST.equals(token))
            {
                return names.length > i; // at least one more token
            }
            if (i >= names.length)
            {
                return false;
            }
            if (!ONE.equals(token) && !token.equals(names[i]))
            {
                return false;
            }
        }
        return names.length == count;
    }

    /** @return true when the pattern has {@code *} or {@code >}. */
    boolean isWildcard()
    {
        return wildcard;
    }

    /** @return the text it was parsed from. */
    String text()
    {
        return text;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof TopicPattern other && Arrays.equals(tokens, other.tokens);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(tokens);
    }

    @Override
    public String toString()
    {
        return text;
    }
}
