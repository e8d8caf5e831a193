package io.rivulet.transport.rdma.disni;

/**
 * A queue pair as its completion queues see it: RC queue pairs through DiSNI and UD queue pairs
 * through the JNI extension share DiSNI's CQs, which report error completions back to them.
 */
interface CompletionQueueUser
{
    /** @return the queue pair number. */
    int qpNumber();

    /** An error completion of this queue pair was polled: the device has moved it to ERROR. */
    void onError();
}
