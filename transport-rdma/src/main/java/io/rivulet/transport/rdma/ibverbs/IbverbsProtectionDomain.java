package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.jni.WorkRequests;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.agrona.BufferUtil;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ibv_pd}, with its memory registrations. Registration ({@code ibv_reg_mr}) pins the pages and fills the
 * device's translation table: slow, for start-up only. Not thread-safe.
 */
final class IbverbsProtectionDomain implements ProtectionDomain
{
    private final IbverbsContext context;
    private final long pd;
    private final List<IbverbsMemoryRegion> regions = new ArrayList<>();
    private final ByteBuffer keys = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
    private boolean closed;

    IbverbsProtectionDomain(final IbverbsContext context, final long pd)
    {
        this.context = context;
        this.pd = pd;
    }

    IbverbsContext context()
    {
        return context;
    }

    long handle()
    {
        return pd;
    }

    boolean isOpen()
    {
        return !closed;
    }

    /**
     * {@code ibv_reg_mr} over the whole buffer. Pinning needs the locked-memory limit ({@code ulimit -l}) to cover
     * every region; the message says so when it does not.
     */
    @Override
    public MemoryRegion register(final ByteBuffer buffer, final int access) throws IOException
    {
        if (closed)
        {
            throw new VerbsException("protection domain closed");
        }
        final int ibvAccess = WorkRequests.checkRegistration(buffer, access);
        final long address = BufferUtil.address(buffer);
        final long mr = Verbs.regMr(pd, address, buffer.capacity(), ibvAccess, Verbs.addressOf(keys));
        if (mr < 0)
        {
            throw new VerbsException(WorkRequests.registrationFailure(buffer.capacity(), Verbs.errorText(mr)));
        }
        context.onRegistration();
        final IbverbsMemoryRegion region = new IbverbsMemoryRegion(
            this, buffer, address, buffer.capacity(), keys.getInt(0), keys.getInt(4), access, mr);
        regions.add(region);
        return region;
    }

    void forget(final IbverbsMemoryRegion region)
    {
        regions.remove(region);
    }

    /** Deregisters what is left and deallocates the PD (EBUSY while queue pairs or address handles use it). */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final IbverbsMemoryRegion region : new ArrayList<>(regions))
        {
            region.close();
        }
        IbverbsContext.warnOnFailure("ibv_dealloc_pd (queue pairs or address handles still use it?)",
            Verbs.deallocPd(pd));
        context.forget(this);
    }

    @Override
    public String toString()
    {
        return "IbverbsProtectionDomain{regions=" + regions.size() + (closed ? ", closed}" : "}");
    }
}
