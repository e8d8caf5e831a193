package io.rivulet;

import reactor.core.publisher.Mono;

/**
 * A bound listener serving a {@link Responder}. Closing it stops accepting; connections already
 * accepted stay open until they or the node close.
 */
public interface Server extends AutoCloseable
{
    /** @return the bound address as {@code host:port}, with the real port when 0 was asked for. */
    String localAddress();

    /** @return completes when the server stops listening. */
    Mono<Void> onClose();

    @Override
    void close();
}
