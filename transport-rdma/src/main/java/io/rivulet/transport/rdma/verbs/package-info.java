/**
 * The verbs SPI, modelled on ibverbs and RDMA CM: devices, protection domains, registered memory,
 * completion queues, RC and UD queue pairs, work requests and connection management. Providers:
 * {@code ibverbs} (rdma-core through Rivulet's JNI library, librivulet-verbs), {@code disni} (DiSNI 2.1,
 * with the same JNI library for what DiSNI lacks) and {@code soft} (user space, for machines without RDMA NICs).
 * Work requests and completions are mutable and reused so that the data path allocates nothing; chains of
 * them are posted, and batches of completions polled, with one call each.
 */
package io.rivulet.transport.rdma.verbs;
