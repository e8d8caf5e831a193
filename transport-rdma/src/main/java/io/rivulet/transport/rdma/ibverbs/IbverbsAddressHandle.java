package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.UdAddress;

/**
 * {@code ibv_ah}: the route to one remote UD queue pair's port. Made off the duty cycle (it may wait for the kernel
 * to resolve a RoCE peer's MAC address) and used by every send to that peer.
 *
 * <p>Thread-safe: the pointer is volatile, so a handle made on one thread can be used on another.
 */
final class IbverbsAddressHandle implements AddressHandle
{
    private final IbverbsContext context;
    private final UdAddress destination;
    private volatile long handle;

    IbverbsAddressHandle(final IbverbsContext context, final UdAddress destination, final long handle)
    {
        this.context = context;
        this.destination = destination;
        this.handle = handle;
    }

    @Override
    public UdAddress destination()
    {
        return destination;
    }

    IbverbsContext context()
    {
        return context;
    }

    /** @return the {@code ibv_ah} pointer, 0 once closed. */
    long handle()
    {
        return handle;
    }

    /** {@code ibv_destroy_ah}. Idempotent. */
    @Override
    public void close()
    {
        final long current = handle;
        if (current == 0)
        {
            return;
        }
        handle = 0;
        IbverbsContext.warnOnFailure("ibv_destroy_ah", Verbs.destroyAh(current));
        context.forget(this);
    }

    @Override
    public String toString()
    {
        return "IbverbsAddressHandle{" + destination + (handle == 0 ? ", closed}" : "}");
    }
}
