package io.rivulet.transport.rdma.verbs;

/** {@code ibv_wc}: a reusable completion record filled by {@link CompletionQueue#poll}. */
public final class WorkCompletion
{
    private long wrId;
    private WcStatus status = WcStatus.SUCCESS;
    private WcOpcode opcode = WcOpcode.SEND;
    private int byteLength;
    private int immData;
    private boolean hasImmData;
    private int qpNumber;
    private int sourceQpNumber;

    public long wrId()
    {
        return wrId;
    }

    public WcStatus status()
    {
        return status;
    }

    public WcOpcode opcode()
    {
        return opcode;
    }

    /** @return bytes received (receives) or transferred. */
    public int byteLength()
    {
        return byteLength;
    }

    public int immData()
    {
        return immData;
    }

    public boolean hasImmData()
    {
        return hasImmData;
    }

    /** @return the local queue pair the work request ran on. */
    public int qpNumber()
    {
        return qpNumber;
    }

    /** @return the sending queue pair of a UD receive. */
    public int sourceQpNumber()
    {
        return sourceQpNumber;
    }

    /** Fills the record; providers' use. */
    public WorkCompletion set(
        final long wrId,
        final WcStatus status,
        final WcOpcode opcode,
        final int byteLength,
        final boolean hasImmData,
        final int immData,
        final int qpNumber,
        final int sourceQpNumber)
    {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLength = byteLength;
        this.hasImmData = hasImmData;
        this.immData = immData;
        this.qpNumber = qpNumber;
        this.sourceQpNumber = sourceQpNumber;
        return this;
    }

    @Override
    public String toString()
    {
        return "WorkCompletion{wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLength=" +
            byteLength + (hasImmData ? ", imm=" + immData : "") + ", qp=" + qpNumber + "}";
    }
}
