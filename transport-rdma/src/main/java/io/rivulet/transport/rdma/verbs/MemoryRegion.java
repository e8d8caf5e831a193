package io.rivulet.transport.rdma.verbs;

import java.nio.ByteBuffer;

/**
 * {@code ibv_mr}: registered memory the device may touch. Work requests name it by address and
 * {@link #lkey()}; remote peers by address and {@link #rkey()}.
 */
public interface MemoryRegion extends AutoCloseable
{
    /** @return the registered buffer (the whole region). */
    ByteBuffer buffer();

    /** @return the virtual address of the first byte. */
    long address();

    int length();

    int lkey();

    int rkey();

    /** @return {@link Access} bits. */
    int access();

    /** {@code ibv_dereg_mr}: the keys stop working. */
    @Override
    void close();
}
