package io.rivulet.transport.rdma;

import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.TransportSettings;
import io.rivulet.tck.Await;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.rdma.soft.SoftFabric;
import io.rivulet.transport.rdma.soft.SoftVerbsContext;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Helpers for driving RDMA links on the test thread over the soft provider's in-process fabric:
 * bounded polling loops, link pairs and frame capture.
 */
final class RdmaTestSupport
{
    static final int MAX_FRAME_LENGTH = 1024;
    /** Send ring of 16 KiB; receive area of 8 slots of 1088 bytes. */
    static final TransportSettings SETTINGS = new TransportSettings(MAX_FRAME_LENGTH, 16 * 1024, 8 * 1088, 0, 0);
    static final long TIMEOUT_NS = TestTime.nanos(10, TimeUnit.SECONDS);

    private RdmaTestSupport()
    {
    }

    /** @return the soft provider on the JVM's shared in-process fabric. */
    static SoftVerbsProvider provider()
    {
        return new SoftVerbsProvider(SoftFabric.shared());
    }

    /** @return the soft provider over TCP sockets, as between processes. */
    static SoftVerbsProvider socketProvider()
    {
        return new SoftVerbsProvider();
    }

    /** @return the soft device under a driver, for its counters. */
    static SoftVerbsContext device(final RdmaTransportDriver driver)
    {
        return (SoftVerbsContext)driver.verbsContext();
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
    static void await(final String what, final Condition condition, final RdmaTransportDriver... drivers)
        throws IOException
    {
        Await.until(Duration.ofNanos(TIMEOUT_NS), () -> doWork(drivers), condition::isMet, () -> what);
    }

    /**
     * Polls a link until it throws, failing if it does not within the timeout.
     */
    static IOException awaitPollFailure(final ReliableLink link, final FrameHandler handler)
    {
        return Await.value(Duration.ofNanos(TIMEOUT_NS), () ->
        {
            try
            {
                link.poll(handler, 16);
                return null;
            }
            catch (final IOException ex)
            {
                return ex;
            }
        }, () -> "poll to fail");
    }

    private static int doWork(final RdmaTransportDriver... drivers)
    {
        int work = 0;
        for (final RdmaTransportDriver driver : drivers)
        {
            work += driver.doWork(System.nanoTime());
        }
        return work;
    }

    static UnsafeBuffer frame(final int length, final int seed)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
        for (int i = 0; i < length; i++)
        {
            buffer.putByte(i, (byte)(seed + i));
        }
        return buffer;
    }

    static boolean isFrame(final DirectBuffer buffer, final int offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            if (buffer.getByte(offset + i) != (byte)(seed + i))
            {
                return false;
            }
        }
        return true;
    }

    /** Two drivers on one fabric with an established link between them. */
    static final class LinkPair implements AutoCloseable
    {
        final RdmaTransport transport;
        final RdmaTransportDriver serverDriver;
        final RdmaTransportDriver clientDriver;
        final RdmaLink server;
        final RdmaLink client;

        LinkPair(final VerbsProvider provider, final TransportSettings settings) throws IOException
        {
            transport = new RdmaTransport(provider).userRegionLength(64 * 1024);
            serverDriver = transport.open(settings);
            clientDriver = transport.open(settings);
            final RdmaLinkListener listener = serverDriver.listen("127.0.0.1:0");
            final RdmaLinkConnector connector = clientDriver.connect(listener.localAddress());
            final RdmaLink[] accepted = new RdmaLink[1];
            final RdmaLink[] connected = new RdmaLink[1];
            await("link established", () ->
            {
                if (null == accepted[0])
                {
                    accepted[0] = listener.accept();
                }
                if (null == connected[0])
                {
                    connected[0] = connector.poll();
                }
                return null != accepted[0] && null != connected[0];
            }, serverDriver, clientDriver);
            listener.close();
            server = accepted[0];
            client = connected[0];
        }

        LinkPair() throws IOException
        {
            this(provider(), SETTINGS);
        }

        /**
         * Flushes the sender until everything offered is posted and completed, polling the receiver into
         * the handler; the receiver's own sends (credits) flow too, and frames it sends are dropped.
         */
        void pump(final RdmaLink sender, final RdmaLink receiver, final FrameHandler handler) throws IOException
        {
            final FrameHandler ignore = (buffer, offset, length) -> { };
            await("flushed", () ->
            {
                sender.flush();
                receiver.poll(handler, Integer.MAX_VALUE);
                receiver.flush();
                sender.poll(ignore, Integer.MAX_VALUE);
                return sender.isFlushed();
            }, serverDriver, clientDriver);
        }

        @Override
        public void close()
        {
            clientDriver.close();
            serverDriver.close();
        }
    }

    /** Collects frames as strings of their bytes' lengths and first bytes, and copies. */
    static final class Frames implements FrameHandler
    {
        final List<byte[]> frames = new ArrayList<>();

        @Override
        public void onFrame(final DirectBuffer buffer, final int offset, final int length)
        {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            frames.add(bytes);
        }

        int size()
        {
            return frames.size();
        }
    }
}
