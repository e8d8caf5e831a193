package io.rivulet.region;

/**
 * What a requester knows of a remote region, as the target's {@code REGION_INFO} told it.
 *
 * @param name     the region's name.
 * @param regionId the target's id for it (never reused by that node).
 * @param address  its address in the target's memory (RDMA; 0 over TCP).
 * @param length   bytes.
 * @param rkey     the key that names it; the target refuses any other.
 * @param access   {@link RegionAccess} bits.
 * @param endpoint where one-sided paths to the target go ({@code host:port}), empty when the engine emulates.
 */
public record RegionDescriptor(String name, int regionId, long address, long length, int rkey, int access, String endpoint)
{
    /**
     * @param rkey another key.
     * @return this descriptor with another key: for tests of the target's checks.
     */
    public RegionDescriptor withRkey(final int rkey)
    {
        return new RegionDescriptor(name, regionId, address, length, rkey, access, endpoint);
    }

    /** @return true when the target named a one-sided endpoint. */
    public boolean oneSided()
    {
        return !endpoint.isEmpty();
    }
}
