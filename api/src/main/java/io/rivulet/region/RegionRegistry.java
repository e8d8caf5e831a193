package io.rivulet.region;

import io.rivulet.RivuletException;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.ExposedMemory;
import io.rivulet.spi.NodeExtension;
import io.rivulet.spi.OneSidedTransport;
import org.agrona.BufferUtil;
import org.agrona.concurrent.status.AtomicCounter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node's exposed regions by name and id, and the region endpoint of each of its connections. Exposing and
 * revoking may happen on any thread; the endpoints live on the conductor, which sends the revocation notices.
 *
 * <p>Memory comes from the transport when it is one-sided capable ({@link OneSidedTransport#expose}: registered
 * with exactly the requested access); otherwise it is a direct buffer the engine serves, with a random key that
 * operations must name.
 */
public final class RegionRegistry implements NodeExtension
{
    /** Memory alignment of TCP-served regions: atomics need 8-byte aligned words. */
    private static final int ALIGNMENT = 64;

    private final ConcurrentHashMap<String, ExposedRegion> byName = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, ExposedRegion> byId = new ConcurrentHashMap<>();
    private final AtomicInteger lastId = new AtomicInteger();
    private final Executor conductor;
    private final OneSidedTransport oneSided;
    private final AtomicCounter opsEmulated;
    private final AtomicCounter opsPosted;

    // Conductor.
    private final ArrayList<RegionEndpoint> endpoints = new ArrayList<>();

    /**
     * @param conductor   runs commands on the conductor thread.
     * @param oneSided    the driver's one-sided capability, or null (the engine emulates).
     * @param opsEmulated counts operations this node's engine applied for peers.
     * @param opsPosted   counts one-sided operations this node posted to peers.
     */
    public RegionRegistry(
        final Executor conductor, final OneSidedTransport oneSided, final AtomicCounter opsEmulated,
        final AtomicCounter opsPosted)
    {
        this.conductor = conductor;
        this.oneSided = oneSided;
        this.opsEmulated = opsEmulated;
        this.opsPosted = opsPosted;
    }

    /**
     * Any thread: exposes a new region.
     *
     * @param name   1..200 UTF-8 bytes, unique on this node.
     * @param length bytes, positive.
     * @param access what peers may do; at least one.
     * @return the region.
     * @throws IllegalArgumentException when the name, length or access is not valid.
     * @throws IllegalStateException    when a region of that name is exposed.
     * @throws RivuletException         when the transport cannot register the memory.
     */
    public ExposedRegion expose(final String name, final int length, final RegionAccess... access)
    {
        final int nameLength = name == null ? 0 : name.getBytes(StandardCharsets.UTF_8).length;
        if (nameLength < 1 || nameLength > FrameReader.MAX_TOPIC_LENGTH)
        {
            throw new IllegalArgumentException("region name must be 1 to " + FrameReader.MAX_TOPIC_LENGTH +
                " UTF-8 bytes: '" + name + "'");
        }
        if (length <= 0)
        {
            throw new IllegalArgumentException("region length must be positive: " + length);
        }
        final int bits = RegionAccess.bits(access);
        if (bits == 0)
        {
            throw new IllegalArgumentException("region '" + name + "' needs at least one RegionAccess");
        }
        if (byName.containsKey(name))
        {
            throw new IllegalStateException("region '" + name + "' is already exposed");
        }
        final ExposedMemory memory;
        final int rkey;
        if (oneSided != null)
        {
            try
            {
                memory = oneSided.expose(length, bits);
            }
            catch (final IOException ex)
            {
                throw new RivuletException("cannot register region '" + name + "': " + ex.getMessage(), ex);
            }
            rkey = memory.rkey();
        }
        else
        {
            memory = new DirectMemory(BufferUtil.allocateDirectAligned(length, ALIGNMENT));
            rkey = randomKey();
        }
        final ExposedRegion region = new ExposedRegion(this, name, lastId.incrementAndGet(), bits, memory, rkey);
        if (byName.putIfAbsent(name, region) != null)
        {
            memory.close();
            throw new IllegalStateException("region '" + name + "' is already exposed");
        }
        byId.put(region.id(), region);
        return region;
    }

    /** @return the driver's one-sided capability, or null. */
    OneSidedTransport oneSided()
    {
        return oneSided;
    }

    ExposedRegion byName(final String name)
    {
        return byName.get(name);
    }

    ExposedRegion byId(final int id)
    {
        return byId.get(id);
    }

    /** @return true when the id was handed out by this node (so a missing region was revoked). */
    boolean wasExposed(final int id)
    {
        return id > 0 && id <= lastId.get();
    }

    AtomicCounter opsEmulated()
    {
        return opsEmulated;
    }

    AtomicCounter opsPosted()
    {
        return opsPosted;
    }

    /** Any thread: the region was revoked; its key dies now, peers hear of it from the conductor. */
    void onRevoked(final ExposedRegion region)
    {
        byName.remove(region.name(), region);
        byId.remove(region.id(), region);
        region.memory().close();
        conductor.execute(() ->
        {
            for (int i = 0; i < endpoints.size(); i++)
            {
                endpoints.get(i).onLocalRegionRevoked(region.id());
            }
        });
    }

    @Override
    public int[] frameTypes()
    {
        return new int[]{FrameType.REGION_LOOKUP, FrameType.REGION_INFO, FrameType.REGION_ERROR,
            FrameType.REGION_REVOKED, FrameType.REGION_OP, FrameType.REGION_OP_RESULT};
    }

    /**
     * Conductor: a new connection's endpoint.
     *
     * @param link the connection as its extensions see it.
     * @return the endpoint; the connection drives it and passes it region frames.
     */
    @Override
    public RegionEndpoint attach(final ConnectionServices link)
    {
        final RegionEndpoint endpoint = new RegionEndpoint(this, link);
        endpoints.add(endpoint);
        return endpoint;
    }

    /** Conductor: the endpoint's connection closed. */
    void onEndpointClosed(final RegionEndpoint endpoint)
    {
        endpoints.remove(endpoint);
    }

    private static int randomKey()
    {
        int key;
        do
        {
            key = ThreadLocalRandom.current().nextInt();
        }
        while (key == 0);
        return key;
    }

    /** Memory the engine serves (TCP): a direct buffer, nothing to deregister. */
    private static final class DirectMemory implements ExposedMemory
    {
        private final ByteBuffer buffer;

        DirectMemory(final ByteBuffer buffer)
        {
            this.buffer = buffer;
        }

        @Override
        public ByteBuffer buffer()
        {
            return buffer;
        }

        @Override
        public long address()
        {
            return 0;
        }

        @Override
        public int rkey()
        {
            return 0;
        }

        @Override
        public void close()
        {
        }
    }
}
