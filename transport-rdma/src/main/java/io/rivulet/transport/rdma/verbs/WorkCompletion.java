package io.rivulet.transport.rdma.verbs;

/**
 * {@code ibv_wc}: a reusable completion record filled by {@link CompletionQueue#poll}.
 *
 * <p>In an error completion only {@link #wrId()}, {@link #status()}, {@link #qpNumber()} and
 * {@link #vendorError()} are meaningful (as in ibverbs); providers report its opcode as
 * {@link WcOpcode#UNKNOWN} and its other fields as 0.
 */
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
    private boolean hasGrh;
    private int sourceLid;
    private int vendorError;

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

    /** @return bytes received (receives, the 40-byte GRH included on UD) or transferred. */
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

    /**
     * @return true when a UD receive's first 40 bytes hold a Global Routing Header ({@code IBV_WC_GRH}); without
     *         it (InfiniBand within a subnet) those bytes are undefined and the sender is known by
     *         {@link #sourceLid()} and {@link #sourceQpNumber()} only.
     */
    public boolean hasGrh()
    {
        return hasGrh;
    }

    /** @return the sender's LID of a UD receive (InfiniBand; 0 on RoCE). */
    public int sourceLid()
    {
        return sourceLid;
    }

    /** @return the device's own error detail ({@code vendor_err}) of an error completion, else 0. */
    public int vendorError()
    {
        return vendorError;
    }

    /** Fills the record of a successful or flushed completion without GRH, LID or vendor detail; providers' use. */
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
        return set(wrId, status, opcode, byteLength, hasImmData, immData, qpNumber, sourceQpNumber, false, 0, 0);
    }

    /** Fills every field; providers' use. */
    public WorkCompletion set(
        final long wrId,
        final WcStatus status,
        final WcOpcode opcode,
        final int byteLength,
        final boolean hasImmData,
        final int immData,
        final int qpNumber,
        final int sourceQpNumber,
        final boolean hasGrh,
        final int sourceLid,
        final int vendorError)
    {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLength = byteLength;
        this.hasImmData = hasImmData;
        this.immData = immData;
        this.qpNumber = qpNumber;
        this.sourceQpNumber = sourceQpNumber;
        this.hasGrh = hasGrh;
        this.sourceLid = sourceLid;
        this.vendorError = vendorError;
        return this;
    }

    /** Fills an error completion: only what ibverbs defines for one; providers' use. */
    public WorkCompletion setError(final long wrId, final WcStatus status, final int qpNumber, final int vendorError)
    {
        return set(wrId, status, WcOpcode.UNKNOWN, 0, false, 0, qpNumber, 0, false, 0, vendorError);
    }

    @Override
    public String toString()
    {
        return "WorkCompletion{wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLength=" +
            byteLength + (hasImmData ? ", imm=" + immData : "") + ", qp=" + qpNumber +
            (vendorError != 0 ? ", vendorErr=0x" + Integer.toHexString(vendorError) : "") + "}";
    }
}
