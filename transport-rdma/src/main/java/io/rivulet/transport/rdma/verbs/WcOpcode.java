package io.rivulet.transport.rdma.verbs;

/** What a completion completed ({@code enum ibv_wc_opcode}). */
public enum WcOpcode
{
    SEND, RDMA_WRITE, RDMA_READ, COMP_SWAP, FETCH_ADD, RECV, RECV_RDMA_WITH_IMM,
    /**
     * Not known: an error completion, whose opcode ibverbs leaves undefined (only wr_id, status, qp_num and
     * vendor_err are valid in it), or a code this SPI does not list.
     */
    UNKNOWN
}
