package io.rivulet.spi;

import java.io.IOException;

/** A listening endpoint. Engine thread only; never blocks. */
public interface LinkListener extends AutoCloseable
{
    /**
     * @return the next accepted link, or null when none is pending.
     * @throws IOException when the listener itself failed.
     */
    ReliableLink accept() throws IOException;

    /**
     * A connection the listener accepted but dropped before it became a link (for example a failed TLS
     * handshake): the engine reports and counts it; the listener keeps serving.
     *
     * @return the next such failure, or null when there is none.
     */
    default Throwable pollRejected()
    {
        return null;
    }

    /** @return the bound address as {@code host:port}, with the real port when 0 was asked for. */
    String localAddress();

    @Override
    void close();
}
