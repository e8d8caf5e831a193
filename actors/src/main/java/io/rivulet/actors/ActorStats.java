package io.rivulet.actors;

/**
 * A snapshot of one queue's bounds and use, from {@link ActorSystem#stats}: for a local actor its mailbox,
 * for a remote actor this system's outbound queue to it.
 *
 * @param path          the actor's path.
 * @param local         true for a mailbox, false for an outbound queue.
 * @param queued        messages queued now.
 * @param capacity      the most that can be queued (the bound memory is asserted against).
 * @param highWaterMark the most ever queued at once.
 * @param processed     messages handled by the actor (local) or batches sent (remote).
 * @param failures      failures of the actor's behaviour (local).
 * @param restarts      restarts of the actor (local).
 * @param rejected      messages refused by a full REJECT mailbox (local).
 */
public record ActorStats(
    String path,
    boolean local,
    int queued,
    int capacity,
    int highWaterMark,
    long processed,
    long failures,
    long restarts,
    long rejected)
{
}
