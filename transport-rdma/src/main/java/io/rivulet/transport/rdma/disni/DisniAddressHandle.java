package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.UdAddress;

/**
 * {@code ibv_ah} created by the JNI extension on a DiSNI protection domain: the route to one remote UD
 * queue pair's port.
 *
 * <p>The pointer is volatile: the handle is made on the driver's address-handle thread and used on the one
 * that sends.
 */
final class DisniAddressHandle implements AddressHandle
{
    private final DisniVerbsContext context;
    private final UdAddress destination;
    private volatile long handle;

    DisniAddressHandle(final DisniVerbsContext context, final UdAddress destination, final long handle)
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

    DisniVerbsContext context()
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
        if (0 == handle)
        {
            return;
        }
        final int rc = Verbs.destroyAh(handle);
        handle = 0;
        if (rc != 0)
        {
            DisniVerbsContext.warn("ibv_destroy_ah", Verbs.failure("ibv_destroy_ah", rc));
        }
        context.forget(this);
    }

    @Override
    public String toString()
    {
        return "DisniAddressHandle{" + destination + (0 == handle ? ", closed}" : "}");
    }
}
