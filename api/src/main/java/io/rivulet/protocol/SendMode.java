package io.rivulet.protocol;

/** What the sender agent should do with a connection's outbound ring. */
public enum SendMode
{
    /** Drain the ring to the link as it fills. */
    ACTIVE,
    /** Drain what is left, flush, then release the connection. */
    DRAIN,
    /** Release the connection now, discarding what is left. */
    RELEASE
}
