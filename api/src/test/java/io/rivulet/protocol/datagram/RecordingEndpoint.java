package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramEndpoint;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;

/** Records every datagram sent, for sender and receiver unit tests; can refuse sends (back-pressure). */
final class RecordingEndpoint implements DatagramEndpoint
{
    final List<UnsafeBuffer> sent = new ArrayList<>();
    boolean refuse;

    @Override
    public int maxDatagramLength()
    {
        return 64 * 1024;
    }

    @Override
    public String localAddress()
    {
        return "recording";
    }

    @Override
    public int resolve(final String address)
    {
        return 0;
    }

    @Override
    public boolean send(final int peer, final DirectBuffer buffer, final int offset, final int length)
    {
        if (refuse)
        {
            return false;
        }
        final byte[] copy = new byte[length];
        buffer.getBytes(offset, copy);
        sent.add(new UnsafeBuffer(copy));
        return true;
    }

    @Override
    public int poll(final DatagramHandler handler, final int limit)
    {
        return 0;
    }

    @Override
    public void close()
    {
    }

    /** @return and forget what was sent. */
    List<UnsafeBuffer> drain()
    {
        final List<UnsafeBuffer> copy = new ArrayList<>(sent);
        sent.clear();
        return copy;
    }

    static int type(final UnsafeBuffer datagram)
    {
        return DatagramHeader.type(datagram, 0);
    }

    static int sequence(final UnsafeBuffer datagram)
    {
        return DatagramHeader.sequence(datagram, 0);
    }
}
