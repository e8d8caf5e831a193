package io.rivulet.region;

import io.rivulet.spi.ExposedMemory;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Set;

/**
 * A named region of this node's memory that peers may read, write or update atomically, with the access it was
 * exposed with ({@code Rivulet.exposeRegion}). Over RDMA the memory is registered with exactly that access and
 * peers reach it with one-sided verbs; over TCP the engine applies their operations.
 *
 * <p>The local application works on {@link #buffer()} directly; use its atomic methods ({@code getAndAddLong},
 * {@code compareAndSetLong}, {@code getLongVolatile}) for words that peers update atomically.
 *
 * <p>{@link #revoke()} deregisters the memory (its remote key stops working and is never reused), removes the
 * name, and tells every peer that looked the region up. The buffer stays readable locally.
 *
 * <p>Thread-safe.
 */
public final class ExposedRegion implements AutoCloseable
{
    private final RegionRegistry registry;
    private final String name;
    private final int id;
    private final int access;
    private final ExposedMemory memory;
    private final int rkey;
    private final UnsafeBuffer buffer;
    private volatile boolean revoked;

    ExposedRegion(
        final RegionRegistry registry, final String name, final int id, final int access, final ExposedMemory memory,
        final int rkey)
    {
        this.registry = registry;
        this.name = name;
        this.id = id;
        this.access = access;
        this.memory = memory;
        this.rkey = rkey;
        this.buffer = new UnsafeBuffer(memory.buffer());
    }

    /** @return the name peers look it up by. */
    public String name()
    {
        return name;
    }

    /** @return this node's id for it; ids are never reused. */
    public int id()
    {
        return id;
    }

    /** @return its length in bytes. */
    public int length()
    {
        return buffer.capacity();
    }

    /** @return what peers may do. */
    public Set<RegionAccess> access()
    {
        return RegionAccess.of(access);
    }

    /** @return the memory, for the local application. */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /** @return the remote key peers are given. */
    public int rkey()
    {
        return rkey;
    }

    /** @return true once revoked. */
    public boolean isRevoked()
    {
        return revoked;
    }

    /** Stops peers' access and tells those that looked it up. Idempotent. */
    public void revoke()
    {
        if (!revoked)
        {
            revoked = true;
            registry.onRevoked(this);
        }
    }

    /** Same as {@link #revoke()}. */
    @Override
    public void close()
    {
        revoke();
    }

    @Override
    public String toString()
    {
        return "ExposedRegion{" + name + ", id=" + id + ", " + length() + " bytes, " + access() +
            (revoked ? ", revoked}" : "}");
    }

    int accessBits()
    {
        return access;
    }

    long address()
    {
        return memory.address();
    }

    ExposedMemory memory()
    {
        return memory;
    }
}
