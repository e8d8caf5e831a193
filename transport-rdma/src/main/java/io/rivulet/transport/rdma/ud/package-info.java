/**
 * The reliable-datagram SPI ({@link io.rivulet.spi.DatagramEndpoint}) over one verbs UD queue pair.
 */
package io.rivulet.transport.rdma.ud;
