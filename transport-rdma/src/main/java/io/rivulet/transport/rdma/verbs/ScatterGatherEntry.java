package io.rivulet.transport.rdma.verbs;

/** {@code ibv_sge}: a piece of registered memory a work request reads or writes. Mutable, reused. */
public final class ScatterGatherEntry
{
    private long address;
    private int length;
    private int lkey;

    public ScatterGatherEntry set(final long address, final int length, final int lkey)
    {
        this.address = address;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    public long address()
    {
        return address;
    }

    public int length()
    {
        return length;
    }

    public int lkey()
    {
        return lkey;
    }
}
