package io.rivulet.transport.tcp;

import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.TransportSettings;
import io.rivulet.tck.TestTime;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.fail;

/**
 * Helpers for driving links on the test thread: bounded polling loops, link pairs and frame capture.
 */
final class TcpTestSupport
{
    static final int MAX_FRAME_LENGTH = 1024;
    static final TransportSettings SETTINGS = new TransportSettings(MAX_FRAME_LENGTH, 64 * 1024, 64 * 1024, 0, 0);
    static final long TIMEOUT_NS = TestTime.nanos(10, TimeUnit.SECONDS);
    static final int MAX_ITERATIONS = 10_000_000;

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
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        for (int i = 0; i < MAX_ITERATIONS; i++)
        {
            for (final TcpTransportDriver driver : drivers)
            {
                driver.doWork(System.nanoTime());
            }
            if (condition.isMet())
            {
                return;
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                break;
            }
            idle(i);
        }
        fail("timed out waiting for " + what);
    }

    /**
     * Polls a link until it throws, failing if it does not within the timeout.
     */
    static IOException awaitPollFailure(
        final ReliableLink link, final FrameHandler handler, final TcpTransportDriver driver)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        for (int i = 0; i < MAX_ITERATIONS; i++)
        {
            driver.doWork(System.nanoTime());
            try
            {
                link.poll(handler, 16);
            }
            catch (final IOException ex)
            {
                return ex;
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                break;
            }
            idle(i);
        }

        return fail("timed out waiting for " + link + " to fail");
    }

    /**
     * Spins briefly, then parks for a microsecond, so a loop neither burns a core for long nor sleeps.
     */
    static void idle(final int iteration)
    {
        if (iteration < 100)
        {
            Thread.onSpinWait();
        }
        else
        {
            LockSupport.parkNanos(1000);
        }
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
