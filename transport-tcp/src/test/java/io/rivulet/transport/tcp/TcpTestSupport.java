package io.rivulet.transport.tcp;

import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.Transport;
import io.rivulet.spi.TransportSettings;
import io.rivulet.tck.Await;
import io.rivulet.tck.TestTime;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Helpers for driving links on the test thread: bounded polling loops, link pairs and frame capture.
 */
final class TcpTestSupport
{
    static final int MAX_FRAME_LENGTH = 1024;
    static final TransportSettings SETTINGS = new TransportSettings(MAX_FRAME_LENGTH, 64 * 1024, 64 * 1024, 0, 0);
    static final long TIMEOUT_NS = TestTime.nanos(10, TimeUnit.SECONDS);

    private TcpTestSupport()
    {
    }

    /** A condition checked between duty cycles; may do I/O. */
    @FunctionalInterface
    interface Condition
    {
        boolean isMet() throws IOException;
    }

    /**
     * Runs the drivers' duty cycle until the condition holds, failing after {@link #TIMEOUT_NS}.
     */
    static void await(final String what, final Condition condition, final TcpTransportDriver... drivers)
        throws IOException
    {
        Await.until(Duration.ofNanos(TIMEOUT_NS), () -> doWork(drivers), condition::isMet, () -> what);
    }

    /**
     * Polls a link until it throws, failing if it does not within the timeout.
     */
    static IOException awaitPollFailure(
        final ReliableLink link, final FrameHandler handler, final TcpTransportDriver driver)
    {
        return Await.value(Duration.ofNanos(TIMEOUT_NS), () ->
        {
            driver.doWork(System.nanoTime());
            try
            {
                link.poll(handler, 16);
                return null;
            }
            catch (final IOException ex)
            {
                return ex;
            }
        }, () -> link + " to fail");
    }

    private static int doWork(final TcpTransportDriver... drivers)
    {
        int work = 0;
        for (final TcpTransportDriver driver : drivers)
        {
            work += driver.doWork(System.nanoTime());
        }
        return work;
    }

    /**
     * Listens on the server driver, connects from the client driver and waits for both ends.
     */
    static LinkPair connectPair(final TcpTransportDriver server, final TcpTransportDriver client, final String host)
        throws IOException
    {
        final TcpLinkListener listener = server.listen(host + ":0");
        final TcpLinkConnector connector = client.connect(listener.localAddress());
        final TcpLink[] links = new TcpLink[2];
        await(
            "connection to " + listener.localAddress(),
            () ->
            {
                if (null == links[0])
                {
                    links[0] = listener.accept();
                }
                if (null == links[1])
                {
                    links[1] = connector.poll();
                }
                return null != links[0] && null != links[1];
            },
            server, client);

        return new LinkPair(listener, links[0], links[1]);
    }

    /**
     * Offers and flushes one frame, waiting out back-pressure.
     */
    static void send(final TcpLink link, final byte[] frame, final TcpTransportDriver... drivers) throws IOException
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(frame);
        await("room to send on " + link, () -> link.offer(buffer, 0, frame.length), drivers);
        await("flush of " + link, () ->
        {
            link.flush();
            return link.isFlushed();
        }, drivers);
    }

    /**
     * Polls a link until the collector holds at least the given number of frames.
     */
    static void receive(
        final TcpLink link, final FrameCollector collector, final int frames, final TcpTransportDriver... drivers)
        throws IOException
    {
        await(frames + " frames on " + link, () ->
        {
            link.poll(collector, Integer.MAX_VALUE);
            return collector.frames.size() >= frames;
        }, drivers);
    }

    static byte[] frame(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(seed * 31 + i * 7);
        }

        return bytes;
    }

    /** A listener and the two ends of one connection it accepted. */
    record LinkPair(TcpLinkListener listener, TcpLink serverLink, TcpLink clientLink)
    {
    }

    /**
     * @param hostAndPort a listener's address, as {@code Server.localAddress()} gives it.
     * @return true when connecting to it is refused (nothing listens there any more).
     */
    static boolean refuses(final String hostAndPort)
    {
        final int colon = hostAndPort.lastIndexOf(':');
        final InetSocketAddress address =
            new InetSocketAddress(hostAndPort.substring(0, colon), Integer.parseInt(hostAndPort.substring(colon + 1)));
        try (Socket socket = new Socket())
        {
            socket.connect(address, 1_000);
            return false;
        }
        catch (final ConnectException ex)
        {
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /** The "direct" buffer pool's bytes in use: what {@code ByteBuffer.allocateDirect} holds, freed or not yet. */
    static long directMemoryUsed()
    {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                return pool.getMemoryUsed();
            }
        }
        throw new IllegalStateException("no direct buffer pool");
    }

    /** A TCP transport that keeps the driver a node opens, so that tests can read what its links hold. */
    static final class CapturingTransport implements Transport
    {
        private final TcpTransport transport;
        private volatile TcpTransportDriver driver;

        CapturingTransport(final TcpTransport transport)
        {
            this.transport = transport;
        }

        @Override
        public String name()
        {
            return transport.name();
        }

        @Override
        public TcpTransportDriver open(final TransportSettings settings) throws IOException
        {
            driver = transport.open(settings);
            return driver;
        }

        /** @return the driver opened last. */
        TcpTransportDriver driver()
        {
            return driver;
        }
    }

    /** Copies every frame it is handed, for assertions. */
    static final class FrameCollector implements FrameHandler
    {
        final List<byte[]> frames = new ArrayList<>();

        @Override
        public void onFrame(final DirectBuffer buffer, final int offset, final int length)
        {
            final byte[] copy = new byte[length];
            buffer.getBytes(offset, copy);
            frames.add(copy);
        }
    }
}
