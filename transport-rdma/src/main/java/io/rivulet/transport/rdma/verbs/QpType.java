package io.rivulet.transport.rdma.verbs;

/** Queue pair transport types used by Rivulet. */
public enum QpType
{
    /** Reliable connected: in order, acknowledged, one peer. */
    RC,
    /** Unreliable datagram: MTU-bounded, may drop or reorder, any peer. */
    UD
}
