package io.rivulet.topic;

import java.util.ArrayList;

/**
 * A topic the peer attached to this side's subscriptions (subscriber side): the subscriptions it feeds, the
 * credits it granted, the snapshot in progress and the publisher's last sign of life. Conductor thread only.
 */
final class TopicAttachment
{
    final int topicId;
    final String topic;
    final int sessionId;
    final SlowConsumerPolicy policy;
    final ArrayList<Member> members = new ArrayList<>();
    long outstanding;
    long lastHeardNs;
    long lastStatusNs;
    int snapshotSubscriptionId;
    int snapshotRemaining;
    Member snapshotMember;
    boolean inCatchUp;
    long catchUpTo;
    boolean dirty;
    /** The image of the group's stream this topic's data comes from, or null while it comes over the connection. */
    io.rivulet.protocol.datagram.multicast.MulticastReceiver image;
    /** The receiver id the hand-over gave the image. */
    int receiverId;

    TopicAttachment(final int topicId, final String topic, final int sessionId, final SlowConsumerPolicy policy)
    {
        this.topicId = topicId;
        this.topic = topic;
        this.sessionId = sessionId;
        this.policy = policy;
    }

    Member member(final TopicSubscription subscription)
    {
        for (int i = 0; i < members.size(); i++)
        {
            if (members.get(i).subscription == subscription)
            {
                return members.get(i);
            }
        }
        return null;
    }

    /** The subscription leaves: no more frames for it, nor the rest of a snapshot it was being handed. */
    void removeMember(final TopicSubscription subscription)
    {
        final Member member = member(subscription);
        members.remove(member);
        if (snapshotMember == member)
        {
            snapshotMember = null;
        }
    }

    /** Every member has been handed up to a sequence (or skipped it): later frames only. */
    void skipTo(final long sequence)
    {
        for (int i = 0; i < members.size(); i++)
        {
            final Member member = members.get(i);
            member.lastSequence = Math.max(member.lastSequence, sequence);
        }
    }

    /** A subscription fed by an attachment, and the last sequence it was handed. */
    static final class Member
    {
        final TopicSubscription subscription;
        long lastSequence;

        Member(final TopicSubscription subscription, final long lastSequence)
        {
            this.subscription = subscription;
            this.lastSequence = lastSequence;
        }
    }
}
