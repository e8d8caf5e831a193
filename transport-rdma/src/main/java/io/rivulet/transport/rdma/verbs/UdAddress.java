package io.rivulet.transport.rdma.verbs;

/**
 * Where a UD queue pair can be reached: the port's global id (a GID on hardware; host and port of
 * the soft fabric) with queue pair number and queue key. Exchanged over a control channel.
 *
 * @param gid      the port's address, provider-specific text.
 * @param qpNumber the queue pair number.
 * @param qkey     the queue key senders must present.
 */
public record UdAddress(String gid, int qpNumber, int qkey)
{
}
