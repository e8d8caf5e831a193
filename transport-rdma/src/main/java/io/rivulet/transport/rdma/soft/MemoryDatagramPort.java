package io.rivulet.transport.rdma.soft;

import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * UD on the in-memory fabric: each device has a bounded inbox that any other device's NIC writes
 * datagrams into. A full inbox drops, like a congested switch.
 */
final class MemoryDatagramPort implements DatagramPort, MessageHandler
{
    private static final int INBOX_CAPACITY = 1024 * 1024;
    private static final int POLL_LIMIT = 64;
    private static final int UNICAST = 1;
    private static final int GROUP_COPY = 2;

    private final SoftFabric fabric;
    private final SoftNic nic;
    private final ManyToOneRingBuffer inbox;
    private final InetSocketAddress address;
    private final String gid;
    private final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
    private volatile boolean closed;
    private Handler handler;

    MemoryDatagramPort(final SoftFabric fabric, final SoftNic nic, final InetAddress host)
    {
        this.fabric = fabric;
        this.nic = nic;
        inbox = new ManyToOneRingBuffer(new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(INBOX_CAPACITY + RingBufferDescriptor.TRAILER_LENGTH, 64)));
        address = fabric.bindDatagramPort(new InetSocketAddress(host, 0), this);
        gid = Addresses.gid(address);
    }

    @Override
    public String gid()
    {
        return gid;
    }

    @Override
    public Object resolve(final SoftAddressHandle addressHandle)
    {
        final Object cached = addressHandle.route();
        if (cached instanceof MemoryDatagramPort && !((MemoryDatagramPort)cached).closed)
        {
            return cached;
        }
        final MemoryDatagramPort target = fabric.datagramPort(addressHandle.socketAddress());
        addressHandle.route(target);
        return target;
    }

    @Override
    public boolean send(final Object route, final UnsafeBuffer buffer, final int length)
    {
        final MemoryDatagramPort target = (MemoryDatagramPort)route;
        if (target == null || target.closed)
        {
            return false;
        }
        if (!target.inbox.write(UNICAST, buffer, 0, length))
        {
            return false;
        }
        target.nic.wake();
        return true;
    }

    /**
     * Any sender's NIC thread: one copy of a group datagram into this device's inbox; this device's NIC applies its own
     * faults to it when it takes it.
     *
     * @return false when the inbox is full or the device closed (the copy is lost, as a congested switch port would).
     */
    boolean sendGroupCopy(final UnsafeBuffer buffer, final int length)
    {
        if (closed || !inbox.write(GROUP_COPY, buffer, 0, length))
        {
            return false;
        }
        nic.wake();
        return true;
    }

    @Override
    public int poll(final Handler handler)
    {
        this.handler = handler;
        final int count = inbox.read(this, POLL_LIMIT);
        this.handler = null;
        return count;
    }

    @Override
    public void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        // Ring buffers hand out their AtomicBuffer; give the handler a plain view of the same bytes.
        view.wrap(buffer.addressOffset() + index, length);
        if (msgTypeId == GROUP_COPY)
        {
            handler.onGroupDatagram(view, 0, length);
        }
        else
        {
            handler.onDatagram(view, 0, length);
        }
    }

    @Override
    public void close()
    {
        closed = true;
        fabric.unbindDatagramPort(address, this);
    }
}
