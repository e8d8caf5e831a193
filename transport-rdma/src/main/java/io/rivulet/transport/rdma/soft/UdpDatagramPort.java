package io.rivulet.transport.rdma.soft;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;

/** UD over UDP: one non-blocking UDP socket per soft device, datagrams demultiplexed by QP number. */
final class UdpDatagramPort implements DatagramPort, Selectable
{
    private static final int SOCKET_BUFFER = 4 * 1024 * 1024;
    private static final int POLL_LIMIT = 64;
    private static final int MAX_UDP_DATAGRAM = 64 * 1024;

    private final DatagramChannel channel;
    private final String gid;
    private final ByteBuffer receiveBuffer;
    private final UnsafeBuffer receiveView;
    private boolean readReady = true;

    UdpDatagramPort(final InetAddress address) throws IOException
    {
        channel = DatagramChannel.open(
            address instanceof java.net.Inet6Address ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
        try
        {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
            channel.bind(new InetSocketAddress(address, 0));
            channel.configureBlocking(false);
        }
        catch (final IOException ex)
        {
            channel.close();
            throw ex;
        }
        gid = Addresses.gid((InetSocketAddress)channel.getLocalAddress());
        receiveBuffer = BufferUtil.allocateDirectAligned(MAX_UDP_DATAGRAM, 64);
        receiveView = new UnsafeBuffer(receiveBuffer);
    }

    void register(final SoftNic nic) throws IOException
    {
        final SelectionKey key = nic.register(channel, SelectionKey.OP_READ, this);
        if (key == null)
        {
            throw new IOException("could not register the UD socket");
        }
    }

    @Override
    public void onSelected(final int readyOps)
    {
        readReady = true;
    }

    @Override
    public String gid()
    {
        return gid;
    }

    @Override
    public Object resolve(final SoftAddressHandle addressHandle)
    {
        return addressHandle.socketAddress();
    }

    @Override
    public boolean send(final Object route, final UnsafeBuffer buffer, final int length)
    {
        final ByteBuffer bytes = buffer.byteBuffer();
        bytes.clear().limit(length);
        try
        {
            return channel.send(bytes, (SocketAddress)route) > 0;
        }
        catch (final IOException ex)
        {
            return false; // unreachable or no buffer: UD drops it
        }
    }

    @Override
    public int poll(final Handler handler)
    {
        if (!readReady)
        {
            return 0;
        }
        int count = 0;
        while (count < POLL_LIMIT)
        {
            receiveBuffer.clear();
            final SocketAddress source;
            try
            {
                source = channel.receive(receiveBuffer);
            }
            catch (final IOException ex)
            {
                break;
            }
            if (source == null)
            {
                readReady = false;
                break;
            }
            handler.onDatagram(receiveView, 0, receiveBuffer.position());
            count++;
        }
        return count;
    }

    @Override
    public void close()
    {
        try
        {
            channel.close();
        }
        catch (final IOException ignore)
        {
            // closing anyway
        }
    }
}
