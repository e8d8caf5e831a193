package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.ScatterGatherEntry;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;

/**
 * A send work request's scatter-gather list, as the soft NIC's DMA engine sees it: checks of its entries
 * at post time and before transmission, and copies between the payload those entries describe (a
 * contiguous byte range {@code [0, totalLength)}) and raw memory.
 *
 * <p>Shared by the RC and UD queue pairs. The copies run on the NIC thread's hot path: they allocate
 * nothing unless a caller breaks their contract.
 */
final class ScatterGather
{
    private ScatterGather()
    {
    }

    /** @return the total length of a request's entries; rejects negative lengths and totals over 2 GiB. */
    static long checkSges(final SendWorkRequest request) throws VerbsException
    {
        long total = 0;
        for (int i = 0; i < request.sgeCount(); i++)
        {
            final ScatterGatherEntry sge = request.sge(i);
            if (sge.length() < 0)
            {
                throw new VerbsException("negative scatter-gather length");
            }
            total += sge.length();
        }
        if (total > Integer.MAX_VALUE)
        {
            throw new VerbsException("message longer than 2^31 - 1 bytes");
        }
        return total;
    }

    /**
     * @return true for an INLINE request, after checking its size. The soft provider also insists that
     * inline data lies in memory registered in the queue pair's protection domain: it reads the bytes
     * at post time, and an address nobody registered would crash the JVM rather than fail a request.
     */
    static boolean checkInline(
        final SendWorkRequest request, final long total, final int maxInlineData, final SoftProtectionDomain pd)
        throws VerbsException
    {
        if ((request.flags() & SendWorkRequest.INLINE) == 0)
        {
            return false;
        }
        if (total > maxInlineData)
        {
            throw new VerbsException("inline send of " + total + " bytes exceeds maxInlineData " + maxInlineData);
        }
        for (int i = 0; i < request.sgeCount(); i++)
        {
            final ScatterGatherEntry sge = request.sge(i);
            if (sge.length() > 0 && !pd.isRegistered(sge.address(), sge.length()))
            {
                throw new VerbsException("soft provider: inline data must lie in registered memory of the " +
                    "queue pair's protection domain");
            }
        }
        return true;
    }

    /**
     * Checks a request's local entries: lkey live in the protection domain, inside the region, and
     * LOCAL_WRITE where the device writes (READ and atomic results).
     */
    static boolean checkLocal(final SendQueue.Slot slot, final SoftProtectionDomain pd)
    {
        if (slot.inline)
        {
            return true;
        }
        final boolean writes = slot.isReadOrAtomic();
        for (int i = 0; i < slot.sgeCount; i++)
        {
            final int length = slot.sgeLength[i];
            if (length == 0)
            {
                continue;
            }
            final SoftMemoryRegion region = pd.local(slot.sgeLkey[i]);
            if (region == null || !region.contains(slot.sgeAddress[i], length) ||
                (writes && !region.allows(Access.LOCAL_WRITE)))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Copies {@code length} bytes of a request's payload, from {@code from}, to {@code destination}.
     *
     * @throws IllegalArgumentException when {@code [from, from + length)} is not inside the payload.
     */
    static void gather(final SendQueue.Slot slot, final long from, final long destination, final long length)
    {
        checkRange(slot, from, length);
        if (length == 0)
        {
            return;
        }
        if (slot.inline)
        {
            Memory.copy(slot.inlineAddress + from, destination, length);
            return;
        }
        long skip = from;
        long remaining = length;
        long to = destination;
        for (int i = 0; i < slot.sgeCount && remaining > 0; i++)
        {
            final int sgeLength = slot.sgeLength[i];
            if (skip >= sgeLength)
            {
                skip -= sgeLength;
                continue;
            }
            final long n = Math.min(sgeLength - skip, remaining);
            Memory.copy(slot.sgeAddress[i] + skip, to, n);
            to += n;
            remaining -= n;
            skip = 0;
        }
    }

    /**
     * Copies {@code length} bytes from {@code source} into a request's entries, at {@code from}.
     *
     * @throws IllegalArgumentException when {@code [from, from + length)} is not inside the payload.
     */
    static void scatter(final SendQueue.Slot slot, final long from, final long source, final long length)
    {
        checkRange(slot, from, length);
        long skip = from;
        long remaining = length;
        long at = source;
        for (int i = 0; i < slot.sgeCount && remaining > 0; i++)
        {
            final int sgeLength = slot.sgeLength[i];
            if (skip >= sgeLength)
            {
                skip -= sgeLength;
                continue;
            }
            final long n = Math.min(sgeLength - skip, remaining);
            Memory.copy(at, slot.sgeAddress[i] + skip, n);
            at += n;
            remaining -= n;
            skip = 0;
        }
    }

    /**
     * Callers bound every copy by the payload first (a response frame is checked against its request), so
     * this only catches a caller's slip: loudly, rather than by copying fewer bytes than asked or, for
     * inline data, by reading past the slot's copy.
     */
    private static void checkRange(final SendQueue.Slot slot, final long from, final long length)
    {
        if (from < 0 || length < 0 || from > slot.totalLength - length)
        {
            throw new IllegalArgumentException("copy of " + length + " bytes at " + from +
                " outside a payload of " + slot.totalLength + " bytes");
        }
    }
}
