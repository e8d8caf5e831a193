package io.rivulet.transport.rdma.verbs;

import io.rivulet.transport.rdma.jni.Gid;

import java.net.InetAddress;

/**
 * What every provider's {@link MulticastMembership} keeps: the group, where the membership stands, why it failed, and
 * once joined the group's GID and LID, Q_Key and destination. Providers move it on with {@link #joined}, {@link #failed}
 * and {@link #left}.
 *
 * <p>Thread-safe for reading: the state and what it publishes are volatile; one thread (the context's owner) moves it.
 */
public abstract class AbstractMulticastMembership implements MulticastMembership
{
    private final InetAddress group;
    private volatile State state = State.JOINING;
    private volatile String failure;
    private volatile Gid gid;
    private volatile int qkey;
    private volatile UdAddress destination;

    protected AbstractMulticastMembership(final InetAddress group)
    {
        this.group = group;
    }

    /** JOINING becomes JOINED with what the join gave; the destination is the gid text, QP 0xffffff and the Q_Key. */
    protected final void joined(final Gid gid, final String gidText, final int qkey)
    {
        this.gid = gid;
        this.qkey = qkey;
        this.destination = new UdAddress(gidText, QP_NUMBER, qkey);
        state = State.JOINED;
    }

    protected final void failed(final String why)
    {
        failure = why;
        state = State.FAILED;
    }

    protected final void left()
    {
        state = State.LEFT;
    }

    @Override
    public final InetAddress group()
    {
        return group;
    }

    @Override
    public final State state()
    {
        return state;
    }

    @Override
    public final String failure()
    {
        return failure;
    }

    @Override
    public final Gid gid()
    {
        checkJoined();
        return gid;
    }

    @Override
    public final int qkey()
    {
        checkJoined();
        return qkey;
    }

    @Override
    public final UdAddress destination()
    {
        checkJoined();
        return destination;
    }

    /** @return the GID the join gave, whatever the state now, or null when it never joined. */
    protected final Gid joinedGid()
    {
        return gid;
    }

    /** @throws IllegalStateException unless {@link State#JOINED}, naming the state and the failure. */
    protected final void checkJoined()
    {
        if (state != State.JOINED)
        {
            throw new IllegalStateException("the membership of " + group.getHostAddress() + " is " + state +
                (null == failure ? "" : ": " + failure));
        }
    }

    @Override
    public String toString()
    {
        return getClass().getSimpleName() + "{" + group.getHostAddress() + ", " + state +
            (null == failure ? "" : ": " + failure) + (null == gid ? "" : ", " + gid.format()) + "}";
    }
}
