package io.rivulet.counters;

/** What a node file's status field says about its node ({@link NodeFile#status()}). */
public enum NodeStatus
{
    /**
     * The node has not closed and its engine has not failed (or the file's writer predates the field): whether it
     * still runs is for its heartbeat to tell ({@link NodeFile#isAlive}).
     */
    RUNNING,
    /** The node closed cleanly. */
    CLOSED,
    /** The node's engine failed: connections and listeners were closed; {@link NodeFile#failureCause()} says why. */
    DEAD
}
