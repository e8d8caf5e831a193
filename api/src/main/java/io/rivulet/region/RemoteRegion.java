package io.rivulet.region;

import org.agrona.DirectBuffer;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.Set;

/**
 * A region another node exposed, reached through a connection ({@code Connection.remoteRegion(name)}). Over RDMA
 * every operation is a one-sided verb on a queue pair of its own: the target's CPU and application run nothing.
 * Over TCP the target's engine applies the operation (its CPU works, its application still runs nothing).
 *
 * <p>Every method returns a cold {@link Mono}: nothing happens until it is subscribed. Bounds, permissions,
 * alignment and revocation are checked locally first (failing with {@link RegionAccessException} before anything
 * is sent); the target's NIC or engine checks again. Signals arrive on the engine thread.
 *
 * <p>Atomics work on 8-byte words at offsets that are multiples of 8, in the target's native byte order, and are
 * atomic with respect to each other and to the target's own atomic access through
 * {@link ExposedRegion#buffer()} ({@code getAndAddLong}, {@code compareAndSetLong}).
 *
 * <p>Thread-safe.
 */
public interface RemoteRegion
{
    /** @return the region's name. */
    String name();

    /** @return its length in bytes. */
    long length();

    /** @return what the target allows. */
    Set<RegionAccess> access();

    /** @return how the target addresses it. */
    RegionDescriptor descriptor();

    /** @return true when operations go one-sided (RDMA), false when the target's engine emulates them. */
    boolean isOneSided();

    /** @return true once the target said the region was revoked. */
    boolean isRevoked();

    /**
     * @param offset first byte.
     * @param length bytes, positive; long reads are split into several operations.
     * @return the bytes, in a buffer the subscriber owns.
     */
    Mono<DirectBuffer> read(long offset, int length);

    /**
     * Many small reads at once (e.g. hash-table buckets), all in flight together.
     *
     * @param offsets first bytes.
     * @param length  bytes of each read.
     * @return the buffers, in the order of the offsets.
     */
    Mono<List<DirectBuffer>> readBatch(long[] offsets, int length);

    /**
     * @param offset first byte.
     * @param bytes  to write.
     * @return completes once the target holds the bytes.
     */
    Mono<Void> write(long offset, byte[] bytes);

    /**
     * @param offset first byte in the region.
     * @param source the bytes; read when the write is posted, so leave them unchanged until it completes.
     * @param sourceOffset first byte in source.
     * @param length bytes.
     * @return completes once the target holds the bytes.
     */
    Mono<Void> write(long offset, DirectBuffer source, int sourceOffset, int length);

    /**
     * Sets the word to {@code update} if it holds {@code expected}.
     *
     * @return the value the word held: equal to {@code expected} when the swap happened.
     */
    Mono<Long> compareAndSwap(long offset, long expected, long update);

    /**
     * Adds to the word.
     *
     * @return the value the word held before.
     */
    Mono<Long> fetchAndAdd(long offset, long delta);
}
