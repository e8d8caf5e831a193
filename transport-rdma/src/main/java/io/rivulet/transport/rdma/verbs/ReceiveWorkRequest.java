package io.rivulet.transport.rdma.verbs;

/** {@code ibv_recv_wr} with one scatter-gather entry; mutable and reused. */
public final class ReceiveWorkRequest
{
    private final ScatterGatherEntry sge = new ScatterGatherEntry();
    private long wrId;

    public ReceiveWorkRequest set(final long wrId, final long address, final int length, final int lkey)
    {
        this.wrId = wrId;
        sge.set(address, length, lkey);
        return this;
    }

    public long wrId()
    {
        return wrId;
    }

    public ScatterGatherEntry sge()
    {
        return sge;
    }
}
