package io.rivulet.transport.rdma.verbs;

import java.io.IOException;
import java.nio.ByteBuffer;

/** {@code ibv_pd}: the scope of memory registrations and queue pairs. */
public interface ProtectionDomain extends AutoCloseable
{
    /**
     * {@code ibv_reg_mr} over a whole direct buffer. Slow (pins pages): call at start-up, never on
     * the hot path.
     *
     * @param buffer a direct buffer; its whole capacity is registered.
     * @param access {@link Access} bits.
     * @return the region with its keys.
     */
    MemoryRegion register(ByteBuffer buffer, int access) throws IOException;

    @Override
    void close();
}
