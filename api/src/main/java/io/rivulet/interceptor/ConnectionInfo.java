package io.rivulet.interceptor;

/**
 * What an {@link Interceptor} learns of the connection whose responder it wraps.
 *
 * <p>Immutable and thread-safe.
 *
 * @param connectionId  the connection's id in the node, which labels its counters and log lines.
 * @param localAddress  this node's end, as {@code host:port} (or the transport's form).
 * @param remoteAddress the peer's end.
 * @param client        true when this node connected, false when it accepted the connection.
 */
public record ConnectionInfo(long connectionId, String localAddress, String remoteAddress, boolean client)
{
}
