package io.rivulet.transport.tcp;

import io.rivulet.spi.TransportSettings;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.tcp.TcpTestSupport.FrameCollector;
import io.rivulet.transport.tcp.TcpTestSupport.LinkPair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.rivulet.transport.tcp.GrowableBuffer.INITIAL_LENGTH;
import static io.rivulet.transport.tcp.TcpTestSupport.await;
import static io.rivulet.transport.tcp.TcpTestSupport.frame;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A link's buffers start at a few KiB and grow on demand; growth keeps the bytes in flight in both directions: a
 * partial frame in the receive buffer, and offered bytes a partial write left in the send buffer. Over plain TCP and
 * TLS (where the receive buffer fills from decrypted records, in pieces of whatever size).
 */
class TcpLinkGrowthTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final int MAX_FRAME_LENGTH = 16 * 1024;
    private static final int BUFFER_LENGTH = 256 * 1024;
    /** Small kernel buffers, so that flushes write partially while the peer does not read. */
    private static final TransportSettings SETTINGS =
        new TransportSettings(MAX_FRAME_LENGTH, BUFFER_LENGTH, BUFFER_LENGTH, 8192, 8192);

    private final List<TcpTransportDriver> drivers = new ArrayList<>();
    private Socket rawSocket;

    @AfterEach
    void close() throws IOException
    {
        if (null != rawSocket)
        {
            rawSocket.close();
        }
        drivers.forEach(TcpTransportDriver::close);
    }

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    @ScaledTimeout(60)
    void shouldKeepBytesInFlightWhileBothBuffersGrow(final boolean tls) throws IOException
    {
        final TcpTransportDriver server = open(tls, true);
        final TcpTransportDriver client = open(tls, false);
        final LinkPair pair = TcpTestSupport.connectPair(server, client, "127.0.0.1");
        final TcpLink sender = pair.clientLink();
        final TcpLink receiver = pair.serverLink();
        assertThat(sender.sendCapacity()).as("no send buffer before the first offer").isZero();
        assertThat(receiver.receiveCapacity()).as("no receive buffer before the first byte").isZero();

        final List<byte[]> sent = new ArrayList<>();
        final int[] sizes = {1, 100, 5000, MAX_FRAME_LENGTH, 37, 12_000, 3, MAX_FRAME_LENGTH - 1, 4093, 700};
        for (int i = 0; i < 300; i++)
        {
            sent.add(frame(sizes[i % sizes.length], i));
        }

        // The peer does not read: flushes go partial, and the send buffer grows with unsent bytes at its head.
        final int[] offered = {0};
        final int[] capacitiesSeen = {0};
        int previousCapacity = 0;
        for (int i = 0; i < 10_000 && offered[0] < sent.size(); i++)
        {
            final byte[] frame = sent.get(offered[0]);
            if (sender.offer(new UnsafeBuffer(frame), 0, frame.length))
            {
                offered[0]++;
                if (sender.sendCapacity() != previousCapacity)
                {
                    previousCapacity = sender.sendCapacity();
                    capacitiesSeen[0]++;
                }
            }
            else if (0 == sender.flush())
            {
                break; // full: the configured length is reached and the socket takes no more
            }
            else
            {
                client.doWork(System.nanoTime());
            }
        }
        assertThat(sender.sendCapacity()).as("grown to the configured length").isEqualTo(BUFFER_LENGTH);
        assertThat(capacitiesSeen[0]).as("grown in steps").isGreaterThan(3);
        assertThat(offered[0]).isLessThan(sent.size());

        // Now the peer reads one frame per poll, so partial frames wait in its receive buffer as it grows.
        final FrameCollector received = new FrameCollector();
        await("every frame", () ->
        {
            while (offered[0] < sent.size() &&
                sender.offer(new UnsafeBuffer(sent.get(offered[0])), 0, sent.get(offered[0]).length))
            {
                offered[0]++;
            }
            sender.flush();
            receiver.poll(received, 1);
            return received.frames.size() == sent.size();
        }, server, client);

        assertThat(received.frames).containsExactlyElementsOf(sent);
        assertThat(receiver.receiveCapacity()).as("grown past the largest frame")
            .isGreaterThanOrEqualTo(TcpLink.LENGTH_PREFIX_LENGTH + MAX_FRAME_LENGTH);
        assertThat(receiver.bufferedReceiveBytes()).isZero();
    }

    @Test
    @ScaledTimeout(60)
    void shouldGrowTheReceiveBufferForAnAnnouncedFrameKeepingItsFirstBytes() throws IOException
    {
        final TcpTransportDriver server = open(false, true);
        final TcpLinkListener listener = server.listen("127.0.0.1:0");
        final TcpLink link = acceptRawSocket(server, listener);
        final OutputStream out = rawSocket.getOutputStream();
        final byte[] small = frame(100, 1);
        final byte[] large = frame(10_000, 2);
        final byte[] stream = encode(List.of(small, large, frame(1, 3)));
        final FrameCollector received = new FrameCollector();

        // The small frame and the first 3,000 bytes of the large one: 3,108 bytes in the first, small buffer.
        final int firstPart = TcpLink.LENGTH_PREFIX_LENGTH + small.length + TcpLink.LENGTH_PREFIX_LENGTH + 3_000;
        out.write(stream, 0, firstPart);
        out.flush();
        await("the small frame, the large one partial", () ->
        {
            link.poll(received, Integer.MAX_VALUE);
            return received.frames.size() == 1 && link.bufferedReceiveBytes() == firstPart - 4 - small.length;
        }, server);
        assertThat(link.receiveCapacity()).as("the first buffer").isEqualTo(INITIAL_LENGTH);

        // The rest, in pieces: the buffer grows to the large frame's length with its first 3,000 bytes kept.
        for (int position = firstPart; position < stream.length; )
        {
            final int chunk = Math.min(1_111, stream.length - position);
            out.write(stream, position, chunk);
            out.flush();
            position += chunk;
            final int written = position;
            await("bytes up to " + written, () ->
            {
                link.poll(received, Integer.MAX_VALUE);
                return consumed(received) + link.bufferedReceiveBytes() == written;
            }, server);
        }

        assertThat(received.frames).containsExactly(small, large, frame(1, 3));
        assertThat(link.receiveCapacity()).isGreaterThanOrEqualTo(TcpLink.LENGTH_PREFIX_LENGTH + large.length)
            .isLessThan(BUFFER_LENGTH);
    }

    @Test
    @ScaledTimeout(60)
    void shouldFreeEveryBufferWhenLinksCloseAndCountWhatTheyHold() throws IOException
    {
        final TcpTransportDriver server = open(true, true);
        final TcpTransportDriver client = open(true, false);
        final LinkPair pair = TcpTestSupport.connectPair(server, client, "127.0.0.1");
        TcpTestSupport.send(pair.clientLink(), frame(MAX_FRAME_LENGTH, 1), server, client);
        final FrameCollector received = new FrameCollector();
        TcpTestSupport.receive(pair.serverLink(), received, 1, server, client);
        assertThat(server.allocatedBufferBytes()).as("TLS and link buffers holding a frame").isPositive();
        assertThat(client.allocatedBufferBytes()).isPositive();

        pair.serverLink().close();
        pair.clientLink().close();
        assertThat(server.allocatedBufferBytes()).as("freed by the close, on the thread that sent").isZero();
        assertThat(client.allocatedBufferBytes()).isZero();
        assertThat(pair.serverLink().poll(received, 1)).as("a closed link reads nothing").isZero();
        assertThat(pair.clientLink().offer(new UnsafeBuffer(new byte[8]), 0, 8)).as("discarded").isTrue();
        assertThat(pair.clientLink().pendingSendBytes()).isZero();
        assertThat(client.allocatedBufferBytes()).as("and nothing allocated for it").isZero();
    }

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    @ScaledTimeout(60)
    void shouldKeepLinksWorkingWithOneFrameBuffersOnceTheBudgetIsSpent(final boolean tls) throws IOException
    {
        final long budget = 64 * 1024; // what one busy link's send buffer alone would take beyond one frame
        final TcpTransportDriver server = open(tls, true, 0);
        final TcpTransportDriver client = open(tls, false, budget);
        final LinkPair first = TcpTestSupport.connectPair(server, client, "127.0.0.1");
        final LinkPair second = TcpTestSupport.connectPair(server, client, "127.0.0.1");

        final List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++)
        {
            sent.add(frame(1 + (i * 7919) % MAX_FRAME_LENGTH, i));
        }
        final FrameCollector firstReceived = new FrameCollector();
        final FrameCollector secondReceived = new FrameCollector();
        final int[] offered = {0, 0};
        final long[] mostGrown = {0};
        await("every frame on both links", () ->
        {
            offered[0] = offerAll(first.clientLink(), sent, offered[0]);
            offered[1] = offerAll(second.clientLink(), sent, offered[1]);
            mostGrown[0] = Math.max(mostGrown[0], client.grownBufferBytes());
            first.clientLink().flush();
            second.clientLink().flush();
            first.serverLink().poll(firstReceived, 1);
            second.serverLink().poll(secondReceived, 1);
            return firstReceived.frames.size() == sent.size() && secondReceived.frames.size() == sent.size();
        }, server, client);

        assertThat(firstReceived.frames).containsExactlyElementsOf(sent);
        assertThat(secondReceived.frames).containsExactlyElementsOf(sent);
        assertThat(mostGrown[0]).as("growth beyond one frame, all links together").isLessThanOrEqualTo(budget);
        assertThat(client.bufferGrowthsRefused()).as("growths the budget refused").isPositive();
        assertThat(server.grownBufferBytes()).as("no budget: every buffer at one frame or below").isZero();
        final int oneFrame = TcpLink.LENGTH_PREFIX_LENGTH + MAX_FRAME_LENGTH;
        assertThat(first.serverLink().receiveCapacity()).isLessThanOrEqualTo(oneFrame);
        assertThat(second.serverLink().receiveCapacity()).isLessThanOrEqualTo(oneFrame);
        assertThat(Math.min(first.clientLink().sendCapacity(), second.clientLink().sendCapacity()))
            .as("the link that came second to the budget").isLessThanOrEqualTo(oneFrame + (int)budget);
    }

    private static int offerAll(final TcpLink link, final List<byte[]> frames, final int from)
    {
        int next = from;
        while (next < frames.size() && link.offer(new UnsafeBuffer(frames.get(next)), 0, frames.get(next).length))
        {
            next++;
        }
        return next;
    }

    private TcpTransportDriver open(final boolean tls, final boolean server) throws IOException
    {
        return open(tls, server, TcpTransport.DEFAULT_MAX_BUFFER_MEMORY);
    }

    private TcpTransportDriver open(final boolean tls, final boolean server, final long maxBufferMemory)
        throws IOException
    {
        final TcpTransport transport;
        if (!tls)
        {
            transport = TcpTransport.plain();
        }
        else
        {
            final TestCertificates certificates = TestCertificates.get();
            transport = TcpTransport.tls(server ?
                new TlsSettings().keyStore(certificates.serverKeyStore, TestCertificates.PASSWORD)
                    .handshakeTimeout(TestTime.millis(10_000), TimeUnit.MILLISECONDS) :
                new TlsSettings().trustStore(certificates.trustStore, TestCertificates.PASSWORD));
        }
        final TcpTransportDriver driver = transport.maxBufferMemory(maxBufferMemory).open(SETTINGS);
        drivers.add(driver);
        return driver;
    }

    private TcpLink acceptRawSocket(final TcpTransportDriver driver, final TcpLinkListener listener)
        throws IOException
    {
        final String address = listener.localAddress();
        rawSocket = new Socket();
        rawSocket.setTcpNoDelay(true);
        rawSocket.connect(new InetSocketAddress("127.0.0.1",
            Integer.parseInt(address.substring(address.lastIndexOf(':') + 1))), (int)TIMEOUT.toMillis());
        final TcpLink[] link = new TcpLink[1];
        await("accept", () -> null != (link[0] = listener.accept()), driver);
        return link[0];
    }

    private static byte[] encode(final List<byte[]> frames)
    {
        int length = 0;
        for (final byte[] frame : frames)
        {
            length += TcpLink.LENGTH_PREFIX_LENGTH + frame.length;
        }
        final ByteBuffer stream = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        for (final byte[] frame : frames)
        {
            stream.putInt(frame.length).put(frame);
        }
        return stream.array();
    }

    private static int consumed(final FrameCollector collector)
    {
        int bytes = 0;
        for (final byte[] frame : collector.frames)
        {
            bytes += TcpLink.LENGTH_PREFIX_LENGTH + frame.length;
        }
        return bytes;
    }
}
