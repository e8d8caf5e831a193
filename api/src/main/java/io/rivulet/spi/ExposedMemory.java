package io.rivulet.spi;

import java.nio.ByteBuffer;

/**
 * Memory a {@link OneSidedTransport} registered for one exposed region: where it is and the key peers name it by.
 * Closing deregisters it: its remote key stops working at once and is never handed out again for other memory.
 * The bytes themselves stay readable locally until the buffer is garbage.
 */
public interface ExposedMemory extends AutoCloseable
{
    /** @return the memory, a direct buffer of exactly the exposed length. */
    ByteBuffer buffer();

    /** @return the address peers use in one-sided operations. */
    long address();

    /** @return the remote key peers name the registration by. */
    int rkey();

    /** Deregisters. Idempotent. */
    @Override
    void close();
}
