/**
 * The verbs SPI, modelled on ibverbs and RDMA CM: devices, protection domains, registered memory,
 * completion queues, RC and UD queue pairs, work requests and connection management. Providers:
 * {@code soft} (user space, for machines without RDMA NICs) and {@code disni} (hardware).
 * Work requests and completions are mutable and reused so that the data path allocates nothing.
 */
package io.rivulet.transport.rdma.verbs;
