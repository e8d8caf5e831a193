package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.SVCRegMr;
import io.rivulet.transport.rdma.jni.WorkRequests;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ibv_pd} through DiSNI, with its memory registrations. Not thread-safe.
 */
final class DisniProtectionDomain implements ProtectionDomain
{
    private final DisniVerbsContext context;
    private final IbvPd pd;
    private final List<DisniMemoryRegion> regions = new ArrayList<>();
    private boolean closed;

    DisniProtectionDomain(final DisniVerbsContext context, final IbvPd pd)
    {
        this.context = context;
        this.pd = pd;
    }

    DisniVerbsContext context()
    {
        return context;
    }

    IbvPd ibvPd()
    {
        return pd;
    }

    boolean isOpen()
    {
        return !closed;
    }

    /**
     * {@code ibv_reg_mr} over the whole buffer ({@code regMr(buffer, access).execute().free().getMr()}).
     * One region is at most 2 GiB - 1 bytes: a {@link ByteBuffer}'s capacity and DiSNI's registration
     * length are both ints; register larger memory as several regions. Pinning needs the locked-memory
     * limit ({@code ulimit -l}) to cover every region.
     */
    @Override
    public MemoryRegion register(final ByteBuffer buffer, final int access) throws IOException
    {
        if (closed)
        {
            throw new VerbsException("protection domain closed");
        }
        final int ibvAccess = WorkRequests.checkRegistration(buffer, access);

        final IbvMr mr;
        SVCRegMr call = null;
        try
        {
            call = pd.regMr(buffer, ibvAccess);
            mr = call.execute().getMr();
        }
        catch (final IOException ex)
        {
            throw new VerbsException(registrationFailure(buffer.capacity(), ex), ex);
        }
        catch (final IllegalAccessError ex)
        {
            throw new VerbsException(DisniAvailability.ADD_EXPORTS + " missing: DiSNI cannot read the buffer's " +
                "address (" + DisniAvailability.text(ex) + ")", ex);
        }
        finally
        {
            if (null != call)
            {
                call.free();
            }
        }
        if (null == mr)
        {
            throw new VerbsException("ibv_reg_mr of " + buffer.capacity() + " bytes failed");
        }

        context.onRegistration();
        final DisniMemoryRegion region = new DisniMemoryRegion(
            buffer, mr.getAddr(), mr.getLength(), mr.getLkey(), mr.getRkey(), access,
            () -> mr.deregMr().execute().free(), regions::remove);
        regions.add(region);
        return region;
    }

    /** Deregisters what is left and deallocates the PD (fails with EBUSY while queue pairs use it). */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final DisniMemoryRegion region : new ArrayList<>(regions))
        {
            region.close();
        }
        try
        {
            final int rc = pd.deallocPd();
            if (rc != 0)
            {
                DisniVerbsContext.warn("ibv_dealloc_pd", new IOException("error " + rc +
                    " (queue pairs still use the protection domain? close them first)"));
            }
        }
        catch (final Exception ex)
        {
            DisniVerbsContext.warn("ibv_dealloc_pd", ex);
        }
        context.forget(this);
    }

    static String registrationFailure(final int length, final IOException ex)
    {
        return WorkRequests.registrationFailure(length, DisniAvailability.text(ex));
    }
}
