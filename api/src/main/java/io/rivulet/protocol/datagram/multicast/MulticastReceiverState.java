package io.rivulet.protocol.datagram.multicast;

/**
 * What a publisher knows of one receiver of its stream: where it started, what its status messages last said
 * (consumed, received, window, delay) and when. Created by {@link MulticastSender#addReceiver}; the publisher's
 * thread reads and writes it.
 */
public final class MulticastReceiverState
{
    /** Added, no status message yet (joining the group): it holds the log from its start, flow control ignores it. */
    public static final int PENDING = 0;
    /** Reporting: flow control follows it as its policy says. */
    public static final int ACTIVE = 1;
    /** No status message for the timeout: flow control no longer waits for it. */
    public static final int TIMED_OUT = 2;
    /** Removed: nothing more is sent for it. */
    public static final int REMOVED = 3;

    final int id;
    final int peer;
    final long tag;
    final long start;
    final long addedNs;
    int state = PENDING;
    long consumed;
    long received;
    int window;
    long lastStatusNs;
    long delayNs = -1;
    long delayAtNs;
    long lostSentNs;
    long statusReceived;
    long naksReceived;

    MulticastReceiverState(final int id, final int peer, final long tag, final long start, final long nowNs)
    {
        this.id = id;
        this.peer = peer;
        this.tag = tag;
        this.start = start;
        this.addedNs = nowNs;
        this.consumed = start;
        this.received = start;
        this.lastStatusNs = nowNs;
    }

    /** @return the id the receiver's NAKs and status messages carry. */
    public int id()
    {
        return id;
    }

    /** @return the receiver's handle on the publisher's endpoint. */
    public int peer()
    {
        return peer;
    }

    /** @return {@link #PENDING}, {@link #ACTIVE}, {@link #TIMED_OUT} or {@link #REMOVED}. */
    public int state()
    {
        return state;
    }

    /** @return where its stream started. */
    public long start()
    {
        return start;
    }

    /** @return the position it last said it consumed (never beyond what was sent), or its start. */
    public long consumed()
    {
        return consumed;
    }

    /** @return the position below which it last said it holds every byte. */
    public long received()
    {
        return received;
    }

    /** @return when its last status message arrived (or when it was added). */
    public long lastStatusNs()
    {
        return lastStatusNs;
    }

    /** @return its last delay sample (round trip less its hold time), -1 before any. */
    public long delayNs()
    {
        return delayNs;
    }

    /** @return NAKs it sent that reached the publisher. */
    public long naksReceived()
    {
        return naksReceived;
    }

    boolean isLive()
    {
        return state == PENDING || state == ACTIVE;
    }

    @Override
    public String toString()
    {
        return "MulticastReceiverState{id=" + id + ", state=" + state + ", start=" + start + ", consumed=" + consumed + ", received=" +
            received + ", window=" + window + ", delayNs=" + delayNs + "}";
    }
}
