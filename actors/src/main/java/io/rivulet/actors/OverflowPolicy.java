package io.rivulet.actors;

/**
 * What happens when a message meets a full mailbox. Mailboxes are always bounded
 * ({@link ActorOptions#mailbox(int, OverflowPolicy)}); there is no unbounded choice.
 */
public enum OverflowPolicy
{
    /**
     * Slow the sender down. A local sender's {@link ActorRef#tell} waits for room, up to
     * {@link ActorSystem.Context#sendTimeout}, then throws {@link MailboxFullException}; an ask waits without
     * blocking, within its timeout. Messages from other nodes stay on the wire: the node stops granting
     * credits on that actor's channel, the sender's outbound queue fills and its tells wait in turn.
     */
    BACK_PRESSURE,

    /**
     * Refuse the message at once. A local {@link ActorRef#tell} throws {@link MailboxFullException}
     * ({@link ActorRef#tryTell} returns false); an ask fails with it. A message from another node is dropped
     * on arrival; its ask fails with {@link MailboxFullException}. Every rejection is counted
     * ({@link ActorCounters#mailboxRejected}, {@link ActorStats#rejected()}).
     */
    REJECT
}
