package io.rivulet.transport.rdma.soft;

import org.agrona.UnsafeApi;

/**
 * Raw memory access on registered regions, the soft NIC's DMA engine. Callers check keys and bounds
 * first: nothing here validates an address.
 */
final class Memory
{
    private Memory()
    {
    }

    static void copy(final long source, final long destination, final long length)
    {
        if (length > 0)
        {
            UnsafeApi.copyMemory(source, destination, length);
        }
    }

    /** @return the value before the operation, as {@code IBV_WR_ATOMIC_CMP_AND_SWP} reports it. */
    static long compareAndSwap(final long address, final long expected, final long update)
    {
        return UnsafeApi.compareAndExchangeLong(null, address, expected, update);
    }

    /** @return the value before the addition. */
    static long fetchAndAdd(final long address, final long delta)
    {
        return UnsafeApi.getAndAddLong(null, address, delta);
    }

    static void putLong(final long address, final long value)
    {
        UnsafeApi.putLong(address, value);
    }

    static void putByte(final long address, final byte value)
    {
        UnsafeApi.putByte(address, value);
    }

    static void setMemory(final long address, final long length, final byte value)
    {
        if (length > 0)
        {
            UnsafeApi.setMemory(address, length, value);
        }
    }
}
