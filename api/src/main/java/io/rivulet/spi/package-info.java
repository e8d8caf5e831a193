/**
 * What a transport implements: a {@link io.rivulet.spi.Transport} factory found by
 * {@link java.util.ServiceLoader}, a per-node {@link io.rivulet.spi.TransportDriver}, listeners,
 * connectors and {@link io.rivulet.spi.ReliableLink}s that carry whole frames in order.
 * All of it runs on the engine thread; nothing blocks.
 */
package io.rivulet.spi;
