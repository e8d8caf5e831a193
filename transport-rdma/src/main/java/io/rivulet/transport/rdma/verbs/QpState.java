package io.rivulet.transport.rdma.verbs;

/** Queue pair states ({@code enum ibv_qp_state}) that Rivulet observes. */
public enum QpState
{
    RESET, INIT, RTR, RTS, ERROR
}
