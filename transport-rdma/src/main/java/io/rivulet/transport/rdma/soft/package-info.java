/**
 * The {@code soft} verbs provider: RDMA semantics (registered memory, RC and UD queue pairs, one-sided
 * READ/WRITE/atomics, RNR, completion queues) in user space, over TCP/UDP sockets on loopback or an
 * in-memory {@link io.rivulet.transport.rdma.soft.SoftFabric}. Start at
 * {@link io.rivulet.transport.rdma.soft.SoftVerbsProvider}.
 */
package io.rivulet.transport.rdma.soft;
