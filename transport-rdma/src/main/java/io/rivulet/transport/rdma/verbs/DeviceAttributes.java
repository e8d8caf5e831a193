package io.rivulet.transport.rdma.verbs;

/**
 * What a device can do ({@code ibv_query_device}), as far as Rivulet sizes anything by it.
 *
 * @param maxQpWorkRequests  the deepest send or receive queue ({@code max_qp_wr}).
 * @param maxSge             scatter-gather entries per work request ({@code max_sge}).
 * @param maxCqEntries       the largest completion queue ({@code max_cqe}).
 * @param maxResponderReads  READs and atomics a queue pair serves for its peer at once ({@code max_qp_rd_atom}):
 *                           what a requester may have outstanding towards this device.
 * @param maxInitiatorReads  READs and atomics a queue pair may have outstanding itself
 *                           ({@code max_qp_init_rd_atom}).
 * @param atomics            whether and how the device executes atomics ({@code atomic_cap}).
 */
public record DeviceAttributes(
    int maxQpWorkRequests,
    int maxSge,
    int maxCqEntries,
    int maxResponderReads,
    int maxInitiatorReads,
    AtomicCapability atomics)
{
    /** {@code enum ibv_atomic_cap}. */
    public enum AtomicCapability
    {
        /** {@code IBV_ATOMIC_NONE}: atomics complete with an error, or not at all. */
        NONE,
        /** {@code IBV_ATOMIC_HCA}: atomic among operations through this device. */
        HCA,
        /** {@code IBV_ATOMIC_GLOB}: atomic also against the host's CPUs. */
        GLOBAL;

        /** @return the constant of an {@code ibv_atomic_cap} value; unknown values count as NONE. */
        public static AtomicCapability of(final int value)
        {
            return value == 1 ? HCA : value == 2 ? GLOBAL : NONE;
        }
    }

    public DeviceAttributes
    {
        if (maxQpWorkRequests < 1 || maxSge < 1 || maxCqEntries < 1 || maxResponderReads < 0 || maxInitiatorReads < 0)
        {
            throw new IllegalArgumentException("device attributes out of range: " + maxQpWorkRequests + ", " + maxSge +
                ", " + maxCqEntries + ", " + maxResponderReads + ", " + maxInitiatorReads);
        }
        if (null == atomics)
        {
            throw new IllegalArgumentException("no atomic capability");
        }
    }

    /** @return true when atomics can be posted to and served by this device. */
    public boolean supportsAtomics()
    {
        return atomics != AtomicCapability.NONE;
    }
}
