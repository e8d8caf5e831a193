package io.rivulet.transport.rdma.verbs;

/** Access flags of a memory region, with ibverbs' values ({@code IBV_ACCESS_*}). */
public final class Access
{
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;

    private Access()
    {
    }

    public static boolean allows(final int access, final int required)
    {
        return (access & required) == required;
    }
}
