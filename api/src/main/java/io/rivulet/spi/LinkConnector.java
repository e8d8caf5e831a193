package io.rivulet.spi;

import java.io.IOException;

/** An outbound connection attempt in progress. Engine thread only; never blocks. */
public interface LinkConnector extends AutoCloseable
{
    /**
     * @return the link once connected, null while the attempt is still in progress.
     * @throws IOException when the attempt failed (refused, unreachable); the message names the address.
     */
    ReliableLink poll() throws IOException;

    /** Abandons the attempt if it has not produced a link yet. */
    @Override
    void close();
}
