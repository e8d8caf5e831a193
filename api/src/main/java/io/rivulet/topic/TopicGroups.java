package io.rivulet.topic;

import io.rivulet.ConfigurationException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Which topics a node publishes to which multicast group ({@code rivulet.topicMulticast}): a list of
 * {@code pattern=group} routes, the first whose pattern matches a topic's name wins. A group may carry many topics
 * (each its own stream, told apart by session); a topic no route matches is sent per subscriber as before.
 *
 * <pre>
 *   rivulet.topicMulticast=md.quotes.&gt;=239.1.2.3:40456,md.trades.*=239.1.2.4:40456
 * </pre>
 *
 * The group's form is the datagram network's: {@code address:port} for UDP, an IP multicast address for RDMA.
 * Immutable; thread-safe.
 */
public final class TopicGroups
{
    private static final TopicGroups NONE = new TopicGroups(List.of(), List.of());

    private final List<TopicPattern> patterns;
    private final List<String> groups;

    private TopicGroups(final List<TopicPattern> patterns, final List<String> groups)
    {
        this.patterns = patterns;
        this.groups = groups;
    }

    /** @return no topic to any group. */
    public static TopicGroups none()
    {
        return NONE;
    }

    /**
     * @param routes {@code pattern=group} routes separated by commas; blank for none.
     * @return the routes, in order.
     * @throws ConfigurationException naming the route that is not {@code pattern=group} or whose pattern is invalid.
     */
    public static TopicGroups parse(final String routes)
    {
        TopicGroups parsed = NONE;
        if (routes == null || routes.isBlank())
        {
            return parsed;
        }
        for (final String route : routes.split(","))
        {
            final String trimmed = route.trim();
            final int equals = trimmed.lastIndexOf('=');
            if (equals <= 0 || equals == trimmed.length() - 1)
            {
                throw new ConfigurationException("rivulet.topicMulticast: '" + trimmed + "' is not pattern=group, e.g. " +
                    "md.quotes.>=239.1.2.3:40456");
            }
            parsed = parsed.route(trimmed.substring(0, equals).trim(), trimmed.substring(equals + 1).trim());
        }
        return parsed;
    }

    /**
     * @param pattern a topic name or pattern ({@code *} one level, a trailing {@code >} the rest).
     * @param group   the group its topics go to.
     * @return these routes and one more, tried after them.
     * @throws ConfigurationException when the pattern is invalid or the group blank.
     */
    public TopicGroups route(final String pattern, final String group)
    {
        final TopicPattern parsed;
        try
        {
            parsed = TopicPattern.pattern(pattern);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigurationException("rivulet.topicMulticast: " + ex.getMessage());
        }
        if (group == null || group.isBlank())
        {
            throw new ConfigurationException("rivulet.topicMulticast: topics matching " + pattern + " need a group");
        }
        final List<TopicPattern> morePatterns = new ArrayList<>(patterns);
        final List<String> moreGroups = new ArrayList<>(groups);
        morePatterns.add(parsed);
        moreGroups.add(group);
        return new TopicGroups(Collections.unmodifiableList(morePatterns), Collections.unmodifiableList(moreGroups));
    }

    /** @return true when no topic goes to a group. */
    public boolean isEmpty()
    {
        return patterns.isEmpty();
    }

    /** @return the group of a topic, or null when it goes per subscriber. */
    String groupOf(final TopicPattern name)
    {
        for (int i = 0; i < patterns.size(); i++)
        {
            if (patterns.get(i).matches(name))
            {
                return groups.get(i);
            }
        }
        return null;
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < patterns.size(); i++)
        {
            text.append(i == 0 ? "" : ",").append(patterns.get(i)).append('=').append(groups.get(i));
        }
        return text.toString();
    }
}
