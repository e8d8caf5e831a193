package io.rivulet.region;

import java.util.EnumSet;
import java.util.Set;

/**
 * What peers may do to an exposed region. Exposure asks for exactly what it needs: over RDMA the memory is
 * registered with these remote access flags and nothing more, so the NIC refuses the rest.
 */
public enum RegionAccess
{
    /** One-sided reads. */
    READ(1),
    /** One-sided writes. */
    WRITE(2),
    /** Compare-and-swap and fetch-and-add on 8-byte aligned words. */
    ATOMIC(4);

    private final int bit;

    RegionAccess(final int bit)
    {
        this.bit = bit;
    }

    /** @return the bit on the wire ({@code REGION_INFO.access}). */
    public int bit()
    {
        return bit;
    }

    /**
     * @param access any combination.
     * @return their bits OR-ed.
     */
    public static int bits(final RegionAccess... access)
    {
        int bits = 0;
        for (final RegionAccess a : access)
        {
            bits |= a.bit;
        }
        return bits;
    }

    /**
     * @param bits access bits.
     * @return the access they grant.
     */
    public static Set<RegionAccess> of(final int bits)
    {
        final EnumSet<RegionAccess> set = EnumSet.noneOf(RegionAccess.class);
        for (final RegionAccess a : values())
        {
            if ((bits & a.bit) != 0)
            {
                set.add(a);
            }
        }
        return set;
    }
}
