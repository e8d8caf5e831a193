/**
 * UDP datagrams for the reliable-datagram protocols ({@code rivulet.datagrams=udp}):
 * {@link io.rivulet.transport.udp.UdpDatagrams} opens a {@link io.rivulet.transport.udp.UdpDatagramTransport} whose
 * {@link io.rivulet.transport.udp.UdpEndpoint}s send and receive unicast and multicast datagrams on non-blocking
 * {@link java.nio.channels.DatagramChannel}s, configured by {@link io.rivulet.transport.udp.UdpSettings}
 * ({@code rivulet.udp.*}). Connections stay on their own transport.
 */
package io.rivulet.transport.udp;
