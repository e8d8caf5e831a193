package io.rivulet.protocol.datagram.multicast;

import io.rivulet.spi.MulticastEndpoint;

import java.util.HashMap;

/**
 * The groups one endpoint has joined, by name, each joined once however many streams use it and left when the last
 * one is done. Not thread-safe: the endpoint's thread.
 */
final class MulticastGroups
{
    private final MulticastEndpoint endpoint;
    private final boolean receive;
    private final HashMap<String, Membership> byName = new HashMap<>();

    private static final class Membership
    {
        final int handle;
        int users;

        Membership(final int handle)
        {
            this.handle = handle;
        }
    }

    MulticastGroups(final MulticastEndpoint endpoint, final boolean receive)
    {
        this.endpoint = endpoint;
        this.receive = receive;
    }

    /**
     * @return the group's handle, joining it if this is its first user.
     * @throws IllegalArgumentException when the endpoint refuses the group's name.
     */
    int acquire(final String group)
    {
        Membership membership = byName.get(group);
        if (membership != null && endpoint.groupState(membership.handle) == MulticastEndpoint.GROUP_FAILED &&
            membership.users == 0)
        {
            byName.remove(group);
            endpoint.leaveGroup(membership.handle);
            membership = null;
        }
        if (membership == null)
        {
            membership = new Membership(endpoint.joinGroup(group, receive));
            byName.put(group, membership);
        }
        membership.users++;
        return membership.handle;
    }

    /** One user less; the last one leaves the group. */
    void release(final String group)
    {
        final Membership membership = byName.get(group);
        if (membership != null && --membership.users <= 0)
        {
            byName.remove(group);
            endpoint.leaveGroup(membership.handle);
        }
    }

    /** @return groups joined. */
    int size()
    {
        return byName.size();
    }
}
