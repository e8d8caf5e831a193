package io.rivulet;

/**
 * Where the engine's agents run, after Aeron's modes. The engine has two agents: the conductor
 * (commands, connection set-up, receive, protocol state, timers) and the sender (outbound rings to
 * the network).
 */
public enum ThreadingMode
{
    /** Conductor and sender each on a thread of their own: lowest latency, two busy cores. */
    DEDICATED,
    /** Both agents on one engine thread: the default, kind to small machines. */
    SHARED,
    /** No engine thread: the application drives both agents by calling {@link Rivulet#invoke()}. */
    INVOKER
}
