package io.rivulet.transport.rdma.soft;

/** Something registered with a NIC's selector (socket mode); told which operations are ready. */
interface Selectable
{
    void onSelected(int readyOps);
}
