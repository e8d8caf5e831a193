package io.rivulet.transport.rdma.verbs;

/**
 * {@code ibv_send_wr}, mutable and reused so that posting allocates nothing. Up to
 * {@link #MAX_SGE} scatter-gather entries (DiSNI's native side hard-codes four).
 */
public final class SendWorkRequest
{
    public static final int MAX_SGE = 4;
    /** Generate a completion for this request. */
    public static final int SIGNALED = 1;
    /** Copy the payload into the request (small sends; no lkey needed). */
    public static final int INLINE = 1 << 1;
    /** Wait for earlier READs and atomics before this request. */
    public static final int FENCE = 1 << 2;

    private final ScatterGatherEntry[] sges = new ScatterGatherEntry[MAX_SGE];
    private long wrId;
    private Opcode opcode = Opcode.SEND;
    private int flags;
    private int sgeCount;
    private int immData;
    private long remoteAddress;
    private int rkey;
    private long compareAdd;
    private long swap;
    private AddressHandle addressHandle;
    private int remoteQpNumber;
    private int remoteQkey;

    public SendWorkRequest()
    {
        for (int i = 0; i < MAX_SGE; i++)
        {
            sges[i] = new ScatterGatherEntry();
        }
    }

    /** Resets to a SEND with no entries and no flags. */
    public SendWorkRequest clear()
    {
        wrId = 0;
        opcode = Opcode.SEND;
        flags = 0;
        sgeCount = 0;
        immData = 0;
        remoteAddress = 0;
        rkey = 0;
        compareAdd = 0;
        swap = 0;
        addressHandle = null;
        remoteQpNumber = 0;
        remoteQkey = 0;
        return this;
    }

    public SendWorkRequest wrId(final long wrId)
    {
        this.wrId = wrId;
        return this;
    }

    public long wrId()
    {
        return wrId;
    }

    public SendWorkRequest opcode(final Opcode opcode)
    {
        this.opcode = opcode;
        return this;
    }

    public Opcode opcode()
    {
        return opcode;
    }

    public SendWorkRequest flags(final int flags)
    {
        this.flags = flags;
        return this;
    }

    public int flags()
    {
        return flags;
    }

    public boolean isSignaled()
    {
        return (flags & SIGNALED) != 0;
    }

    /**
     * Appends a scatter-gather entry.
     *
     * @throws IllegalStateException past {@link #MAX_SGE}.
     */
    public SendWorkRequest addSge(final long address, final int length, final int lkey)
    {
        if (sgeCount == MAX_SGE)
        {
            throw new IllegalStateException("at most " + MAX_SGE + " scatter-gather entries");
        }
        sges[sgeCount++].set(address, length, lkey);
        return this;
    }

    public int sgeCount()
    {
        return sgeCount;
    }

    public ScatterGatherEntry sge(final int index)
    {
        return sges[index];
    }

    /** @return the bytes all entries cover. */
    public long totalLength()
    {
        long total = 0;
        for (int i = 0; i < sgeCount; i++)
        {
            total += sges[i].length();
        }
        return total;
    }

    public SendWorkRequest immData(final int immData)
    {
        this.immData = immData;
        return this;
    }

    public int immData()
    {
        return immData;
    }

    /** Target of READ, WRITE and atomics. */
    public SendWorkRequest remote(final long remoteAddress, final int rkey)
    {
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        return this;
    }

    public long remoteAddress()
    {
        return remoteAddress;
    }

    public int rkey()
    {
        return rkey;
    }

    /** Operands of atomics: compare (CAS) or add (FETCH_AND_ADD), and swap (CAS). */
    public SendWorkRequest atomic(final long compareAdd, final long swap)
    {
        this.compareAdd = compareAdd;
        this.swap = swap;
        return this;
    }

    public long compareAdd()
    {
        return compareAdd;
    }

    public long swap()
    {
        return swap;
    }

    /** Destination of a UD send. */
    public SendWorkRequest ud(final AddressHandle addressHandle, final int remoteQpNumber, final int remoteQkey)
    {
        this.addressHandle = addressHandle;
        this.remoteQpNumber = remoteQpNumber;
        this.remoteQkey = remoteQkey;
        return this;
    }

    public AddressHandle addressHandle()
    {
        return addressHandle;
    }

    public int remoteQpNumber()
    {
        return remoteQpNumber;
    }

    public int remoteQkey()
    {
        return remoteQkey;
    }
}
