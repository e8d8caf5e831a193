package io.rivulet.transport.rdma.verbs;

/** What a completion completed ({@code enum ibv_wc_opcode}). */
public enum WcOpcode
{
    SEND, RDMA_WRITE, RDMA_READ, COMP_SWAP, FETCH_ADD, RECV, RECV_RDMA_WITH_IMM
}
