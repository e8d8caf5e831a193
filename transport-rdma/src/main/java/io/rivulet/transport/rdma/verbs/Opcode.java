package io.rivulet.transport.rdma.verbs;

/** Send work request opcodes ({@code enum ibv_wr_opcode}). */
public enum Opcode
{
    SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD;

    /** @return the completion opcode a successful request of this kind reports. */
    public WcOpcode completion()
    {
        switch (this)
        {
            case SEND:
            case SEND_WITH_IMM:
                return WcOpcode.SEND;
            case RDMA_WRITE:
            case RDMA_WRITE_WITH_IMM:
                return WcOpcode.RDMA_WRITE;
            case RDMA_READ:
                return WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP:
                return WcOpcode.COMP_SWAP;
            default:
                return WcOpcode.FETCH_ADD;
        }
    }

    /** @return true for READ, WRITE and atomics, which touch remote memory without a receive. */
    public boolean isOneSided()
    {
        return this == RDMA_WRITE || this == RDMA_READ || this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }
}
