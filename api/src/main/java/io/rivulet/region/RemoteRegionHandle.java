package io.rivulet.region;

import io.rivulet.spi.OneSidedOperation;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * {@link RemoteRegion} over one connection's {@link RegionEndpoint}: checks locally, splits long reads and writes
 * into operations the path or a frame can carry, and completes the {@link Mono}s on the conductor.
 */
final class RemoteRegionHandle implements RemoteRegion
{
    private final RegionEndpoint endpoint;
    private final RegionDescriptor descriptor;
    private final boolean oneSided;
    private final int maxChunk;
    private volatile boolean revoked;

    RemoteRegionHandle(final RegionEndpoint endpoint, final RegionDescriptor descriptor, final boolean oneSided,
        final int maxChunk)
    {
        this.endpoint = endpoint;
        this.descriptor = descriptor;
        this.oneSided = oneSided;
        this.maxChunk = maxChunk;
    }

    @Override
    public String name()
    {
        return descriptor.name();
    }

    @Override
    public long length()
    {
        return descriptor.length();
    }

    @Override
    public Set<RegionAccess> access()
    {
        return RegionAccess.of(descriptor.access());
    }

    @Override
    public RegionDescriptor descriptor()
    {
        return descriptor;
    }

    @Override
    public boolean isOneSided()
    {
        return oneSided;
    }

    @Override
    public boolean isRevoked()
    {
        return revoked;
    }

    @Override
    public Mono<DirectBuffer> read(final long offset, final int length)
    {
        return Mono.defer(() ->
        {
            final RegionAccessException refused = check(OneSidedOperation.READ, RegionAccess.READ, offset, length);
            if (refused != null)
            {
                return Mono.error(refused);
            }
            final byte[] destination = new byte[length];
            return Mono.<DirectBuffer>create(sink -> submitChunks(OneSidedOperation.READ, offset, length, null, 0,
                destination, sink, new UnsafeBuffer(destination)));
        });
    }

    @Override
    public Mono<List<DirectBuffer>> readBatch(final long[] offsets, final int length)
    {
        return Mono.defer(() ->
        {
            final long[] copy = offsets.clone();
            for (final long offset : copy)
            {
                final RegionAccessException refused = check(OneSidedOperation.READ, RegionAccess.READ, offset, length);
                if (refused != null)
                {
                    return Mono.error(refused);
                }
            }
            final List<Mono<DirectBuffer>> reads = new ArrayList<>(copy.length);
            for (final long offset : copy)
            {
                reads.add(read(offset, length));
            }
            return Mono.zip(reads, results -> Arrays.asList(Arrays.copyOf(results, results.length, DirectBuffer[].class)));
        });
    }

    @Override
    public Mono<Void> write(final long offset, final byte[] bytes)
    {
        return write(offset, new UnsafeBuffer(bytes), 0, bytes.length);
    }

    @Override
    public Mono<Void> write(final long offset, final DirectBuffer source, final int sourceOffset, final int length)
    {
        return Mono.defer(() ->
        {
            final RegionAccessException refused = check(OneSidedOperation.WRITE, RegionAccess.WRITE, offset, length);
            if (refused != null)
            {
                return Mono.error(refused);
            }
            if (sourceOffset < 0 || length > source.capacity() - sourceOffset)
            {
                return Mono.error(new IllegalArgumentException("source range " + sourceOffset + "+" + length +
                    " is outside the source buffer of " + source.capacity()));
            }
            return Mono.<Void>create(sink -> submitChunks(OneSidedOperation.WRITE, offset, length, source, sourceOffset,
                null, sink, null));
        });
    }

    @Override
    public Mono<Long> compareAndSwap(final long offset, final long expected, final long update)
    {
        return atomic(OneSidedOperation.COMPARE_AND_SWAP, offset, expected, update);
    }

    @Override
    public Mono<Long> fetchAndAdd(final long offset, final long delta)
    {
        return atomic(OneSidedOperation.FETCH_AND_ADD, offset, delta, 0);
    }

    @Override
    public String toString()
    {
        return "RemoteRegion{" + name() + " on " + remoteAddress() + ", " + length() + " bytes, " + access() +
            (oneSided ? ", one-sided" : ", emulated") + (revoked ? ", revoked}" : "}");
    }

    RegionEndpoint endpoint()
    {
        return endpoint;
    }

    String remoteAddress()
    {
        return endpoint.remoteAddress();
    }

    void markRevoked()
    {
        revoked = true;
    }

    private Mono<Long> atomic(final int op, final long offset, final long compareAdd, final long swap)
    {
        return Mono.defer(() ->
        {
            final RegionAccessException refused = check(op, RegionAccess.ATOMIC, offset, Long.BYTES);
            if (refused != null)
            {
                return Mono.error(refused);
            }
            return Mono.create(sink -> endpoint.submit(new RegionOperation(this, op, offset, Long.BYTES, compareAdd,
                swap, null, 0, null, 0, (operation, error) ->
                {
                    if (error != null)
                    {
                        sink.error(error);
                    }
                    else
                    {
                        sink.success(operation.previous);
                    }
                })));
        });
    }

    /** Splits a READ or WRITE into operations of at most {@link #maxChunk} bytes, all in flight together. */
    private <T> void submitChunks(
        final int op,
        final long offset,
        final int length,
        final DirectBuffer source,
        final int sourceOffset,
        final byte[] destination,
        final MonoSink<T> sink,
        final T result)
    {
        final int chunks = (int)((length + (long)maxChunk - 1) / maxChunk);
        final int[] remaining = { chunks }; // completions run on the conductor only
        final RegionOperation.Completion completion = (operation, error) ->
        {
            if (remaining[0] <= 0)
            {
                return;
            }
            if (error != null)
            {
                remaining[0] = 0;
                sink.error(error);
            }
            else if (--remaining[0] == 0)
            {
                if (result == null)
                {
                    sink.success();
                }
                else
                {
                    sink.success(result);
                }
            }
        };
        for (int position = 0; position < length; position += maxChunk)
        {
            final int chunk = Math.min(maxChunk, length - position);
            endpoint.submit(new RegionOperation(this, op, offset + position, chunk, 0, 0, source, sourceOffset + position,
                destination, position, completion));
        }
    }

    /** The local first line of checks: what the descriptor says, and revocation. */
    private RegionAccessException check(final int op, final RegionAccess needed, final long offset, final int length)
    {
        final String what = RegionOperation.opName(op) + " of " + length + " bytes at offset " + offset + " of region '" +
            name() + "' on " + remoteAddress();
        if (revoked)
        {
            return new RegionAccessException(RegionAccessException.Reason.REVOKED, what + ": the region was revoked");
        }
        if ((descriptor.access() & needed.bit()) == 0)
        {
            return new RegionAccessException(RegionAccessException.Reason.PERMISSION, what + ": the region allows only " +
                access());
        }
        if (offset < 0 || length <= 0 || offset > descriptor.length() - length)
        {
            return new RegionAccessException(RegionAccessException.Reason.OUT_OF_BOUNDS, what +
                ": outside the region of " + descriptor.length() + " bytes");
        }
        if (needed == RegionAccess.ATOMIC && (offset & (Long.BYTES - 1)) != 0)
        {
            return new RegionAccessException(RegionAccessException.Reason.MISALIGNED, what +
                ": atomics need an offset that is a multiple of 8");
        }
        return null;
    }
}
