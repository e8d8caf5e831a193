/**
 * The RDMA transport: {@link io.rivulet.transport.rdma.RdmaTransport} opens a
 * {@link io.rivulet.transport.rdma.RdmaTransportDriver} over a verbs provider, whose
 * {@link io.rivulet.transport.rdma.RdmaLink}s carry frames in SENDs over RC queue pairs with credit-based
 * flow control, from memory a {@link io.rivulet.transport.rdma.MemoryPool} registered at start.
 */
package io.rivulet.transport.rdma;
