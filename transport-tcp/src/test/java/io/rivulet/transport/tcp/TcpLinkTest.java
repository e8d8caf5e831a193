package io.rivulet.transport.tcp;

import io.rivulet.spi.FramingException;
import io.rivulet.spi.LinkClosedException;
import io.rivulet.spi.TransportSettings;
import io.rivulet.tck.FrameRuns;
import io.rivulet.transport.tcp.TcpTestSupport.FrameCollector;
import io.rivulet.transport.tcp.TcpTestSupport.LinkPair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static io.rivulet.transport.tcp.TcpTestSupport.MAX_FRAME_LENGTH;
import static io.rivulet.transport.tcp.TcpTestSupport.SETTINGS;
import static io.rivulet.transport.tcp.TcpTestSupport.TIMEOUT_NS;
import static io.rivulet.transport.tcp.TcpTestSupport.await;
import static io.rivulet.transport.tcp.TcpTestSupport.awaitPollFailure;
import static io.rivulet.transport.tcp.TcpTestSupport.connectPair;
import static io.rivulet.transport.tcp.TcpTestSupport.frame;
import static io.rivulet.transport.tcp.TcpTestSupport.receive;
import static io.rivulet.transport.tcp.TcpTestSupport.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TcpLinkTest
{
    private TcpTransportDriver serverDriver;
    private TcpTransportDriver clientDriver;
    private Socket rawSocket;

    @BeforeEach
    void setUp() throws IOException
    {
        serverDriver = new TcpTransport().open(SETTINGS);
        clientDriver = new TcpTransport().open(SETTINGS);
    }

    @AfterEach
    void tearDown() throws IOException
    {
        if (null != rawSocket)
        {
            rawSocket.close();
        }
        clientDriver.close();
        serverDriver.close();
    }

    @Test
    void shouldExchangeFramesBothWays() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final byte[] request = frame(100, 1);
        final byte[] response = frame(MAX_FRAME_LENGTH, 2);

        send(pair.clientLink(), request, serverDriver, clientDriver);
        final FrameCollector serverFrames = new FrameCollector();
        receive(pair.serverLink(), serverFrames, 1, serverDriver, clientDriver);

        send(pair.serverLink(), response, serverDriver, clientDriver);
        final FrameCollector clientFrames = new FrameCollector();
        receive(pair.clientLink(), clientFrames, 1, serverDriver, clientDriver);

        assertThat(serverFrames.frames).containsExactly(request);
        assertThat(clientFrames.frames).containsExactly(response);
    }

    @Test
    void shouldReportAddressesOfBothEnds() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");

        assertThat(pair.listener().localAddress()).startsWith("127.0.0.1:").isNotEqualTo("127.0.0.1:0");
        assertThat(pair.clientLink().remoteAddress()).isEqualTo(pair.listener().localAddress());
        assertThat(pair.serverLink().localAddress()).isEqualTo(pair.listener().localAddress());
        assertThat(pair.serverLink().remoteAddress()).isEqualTo(pair.clientLink().localAddress());
        assertThat(pair.clientLink().remoteAddress()).isSameAs(pair.clientLink().remoteAddress());
    }

    @Test
    void shouldBatchManyFramesIntoOneFlush() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final TcpLink client = pair.clientLink();
        final List<byte[]> sent = new ArrayList<>();
        int expectedBytes = 0;
        for (int i = 0; i < 100; i++)
        {
            final byte[] frame = frame(1 + (i * 37) % MAX_FRAME_LENGTH, i);
            assertThat(client.offer(new UnsafeBuffer(frame), 0, frame.length)).isTrue();
            sent.add(frame);
            expectedBytes += TcpLink.LENGTH_PREFIX_LENGTH + frame.length;
        }

        assertThat(client.pendingSendBytes()).isEqualTo(expectedBytes);
        assertThat(client.flush()).isEqualTo(expectedBytes);
        assertThat(client.isFlushed()).isTrue();
        assertThat(client.flush()).isZero();

        final FrameCollector received = new FrameCollector();
        receive(pair.serverLink(), received, sent.size(), serverDriver, clientDriver);
        assertThat(received.frames).containsExactlyElementsOf(sent);
    }

    @Test
    void shouldTakeARunOfFramesWholeAndDeliverItsFramesOneByOne() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 100; i++)
        {
            sent.add(frame(1 + (i * 37) % MAX_FRAME_LENGTH, i));
        }
        final UnsafeBuffer run = FrameRuns.of(sent);

        assertThat(pair.clientLink().offerRun(run, 0, run.capacity())).isEqualTo(run.capacity());
        assertThat(pair.clientLink().pendingSendBytes()).isEqualTo(run.capacity()); // the run is the wire format
        assertThat(pair.clientLink().flush()).isEqualTo(run.capacity());

        final FrameCollector received = new FrameCollector();
        receive(pair.serverLink(), received, sent.size(), serverDriver, clientDriver);
        assertThat(received.frames).containsExactlyElementsOf(sent);
    }

    @Test
    void shouldTakeAsManyWholeFramesOfARunAsTheSendBufferHolds() throws IOException
    {
        final LinkPair pair = connectWithMinimalBuffers();
        final List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 60; i++)
        {
            sent.add(frame(0 == i % 4 ? MAX_FRAME_LENGTH : 1 + (i * 131) % MAX_FRAME_LENGTH, i));
        }
        final UnsafeBuffer run = FrameRuns.of(sent);

        final int firstTake = pair.clientLink().offerRun(run, 0, run.capacity());
        assertThat(firstTake).isPositive().isLessThan(run.capacity())
            .isLessThanOrEqualTo(MAX_FRAME_LENGTH + TransportSettings.FRAMING_ALLOWANCE);
        assertThat(FrameRuns.ends(sent)).as("whole frames only").contains(firstTake);

        final FrameCollector received = new FrameCollector();
        final int[] taken = { firstTake };
        await("the rest of the run through a send buffer smaller than it", () ->
        {
            pair.clientLink().flush();
            pair.serverLink().poll(received, Integer.MAX_VALUE);
            if (taken[0] < run.capacity())
            {
                final int take = pair.clientLink().offerRun(run, taken[0], run.capacity() - taken[0]);
                assertThat(FrameRuns.ends(sent)).contains(taken[0] + take);
                taken[0] += take;
            }
            return received.frames.size() == sent.size();
        }, serverDriver, clientDriver);

        assertThat(received.frames).containsExactlyElementsOf(sent);
    }

    /** Drivers whose links' buffers hold one largest frame and no more, and a pair connected through them. */
    private LinkPair connectWithMinimalBuffers() throws IOException
    {
        serverDriver.close();
        clientDriver.close();
        final int bufferLength = MAX_FRAME_LENGTH + TransportSettings.FRAMING_ALLOWANCE;
        final TransportSettings minimal = new TransportSettings(MAX_FRAME_LENGTH, bufferLength, bufferLength, 0, 0);
        serverDriver = new TcpTransport().open(minimal);
        clientDriver = new TcpTransport().open(minimal);
        return connectPair(serverDriver, clientDriver, "127.0.0.1");
    }

    @Test
    void shouldReassembleFramesSplitAcrossReads() throws IOException
    {
        final TcpLinkListener listener = serverDriver.listen("127.0.0.1:0");
        final TcpLink link = acceptRawSocket(listener);
        final OutputStream out = rawSocket.getOutputStream();

        final List<byte[]> sent = List.of(
            frame(1, 1), frame(3, 2), frame(200, 3), frame(MAX_FRAME_LENGTH, 4), frame(7, 5), frame(513, 6));
        final byte[] stream = encode(sent);
        final FrameCollector received = new FrameCollector();
        final int[] chunkSizes = { 1, 1, 1, 1, 1, 2, 3, 5, 7, 11, 13, 101, 257 };

        int position = 0;
        for (int i = 0; position < stream.length; i++)
        {
            final int chunk = Math.min(chunkSizes[i % chunkSizes.length], stream.length - position);
            out.write(stream, position, chunk);
            out.flush();
            position += chunk;

            // Each chunk is read on its own: wait until the link holds or has delivered every byte so far.
            final int written = position;
            await("chunk ending at " + written, () ->
            {
                link.poll(received, Integer.MAX_VALUE);
                return consumedBytes(received) + link.bufferedReceiveBytes() == written;
            }, serverDriver);
        }

        assertThat(received.frames).containsExactlyElementsOf(sent);
        assertThat(link.bufferedReceiveBytes()).isZero();
    }

    @Test
    void shouldApplyBackPressureUntilPeerReads() throws IOException
    {
        serverDriver.close();
        clientDriver.close();
        final TransportSettings smallBuffers = new TransportSettings(MAX_FRAME_LENGTH, 4096, 4096, 4096, 4096);
        serverDriver = new TcpTransport().open(smallBuffers);
        clientDriver = new TcpTransport().open(smallBuffers);
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final TcpLink client = pair.clientLink();
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[1000]);

        int offered = 0;
        boolean backPressured = false;
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        for (int i = 0; i < 1_000_000 && System.nanoTime() - deadlineNs < 0; i++)
        {
            frame.putInt(0, offered);
            if (client.offer(frame, 0, frame.capacity()))
            {
                offered++;
            }
            else if (0 == client.flush())
            {
                backPressured = true;
                break;
            }
        }

        assertThat(backPressured).as("back-pressure after %d frames", offered).isTrue();
        assertThat(client.offer(frame, 0, frame.capacity())).isFalse();
        assertThat(client.isFlushed()).isFalse();
        assertThat(offered).isGreaterThan(4);

        final int[] nextExpected = { 0 };
        final boolean[] inOrder = { true };
        final int sentBeforeReading = offered;
        await("room after the peer reads", () ->
        {
            pair.serverLink().poll((buffer, offset, length) ->
            {
                inOrder[0] &= buffer.getInt(offset) == nextExpected[0];
                nextExpected[0]++;
            }, Integer.MAX_VALUE);
            client.flush();
            return nextExpected[0] > 0 && client.offer(frame, 0, frame.capacity());
        }, serverDriver, clientDriver);
        frame.putInt(0, sentBeforeReading);
        final int total = sentBeforeReading + 1;

        await("every frame", () ->
        {
            client.flush();
            pair.serverLink().poll((buffer, offset, length) ->
            {
                inOrder[0] &= buffer.getInt(offset) == nextExpected[0];
                nextExpected[0]++;
            }, Integer.MAX_VALUE);
            return nextExpected[0] == total;
        }, serverDriver, clientDriver);

        assertThat(inOrder[0]).isTrue();
    }

    @Test
    void shouldCarryFramesThroughMinimumSizedBuffers() throws IOException
    {
        final LinkPair pair = connectWithMinimalBuffers();

        final List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++)
        {
            sent.add(frame(0 == i % 3 ? MAX_FRAME_LENGTH : 1 + (i * 131) % MAX_FRAME_LENGTH, i));
        }

        final FrameCollector received = new FrameCollector();
        final int[] next = { 0 };
        await("all frames through minimal buffers", () ->
        {
            while (next[0] < sent.size() && pair.clientLink().offer(new UnsafeBuffer(sent.get(next[0])), 0,
                sent.get(next[0]).length))
            {
                next[0]++;
            }
            pair.clientLink().flush();
            pair.serverLink().poll(received, 2);
            return received.frames.size() == sent.size();
        }, serverDriver, clientDriver);

        assertThat(received.frames).containsExactlyElementsOf(sent);
    }

    @ParameterizedTest
    @ValueSource(ints = { MAX_FRAME_LENGTH + 1, Integer.MAX_VALUE, 0, -1, Integer.MIN_VALUE })
    void shouldRejectFrameLengthOutOfBounds(final int declaredLength) throws IOException
    {
        final TcpLinkListener listener = serverDriver.listen("127.0.0.1:0");
        final TcpLink link = acceptRawSocket(listener);
        final byte[] prefix = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(declaredLength).array();
        rawSocket.getOutputStream().write(prefix);
        rawSocket.getOutputStream().flush();

        final IOException failure = awaitPollFailure(link, new FrameCollector(), serverDriver);

        assertThat(failure).isInstanceOf(FramingException.class);
        final String peer = link.remoteAddress();
        if (declaredLength > MAX_FRAME_LENGTH)
        {
            assertThat(failure).hasMessage(
                "frame length " + declaredLength + " exceeds maximum " + MAX_FRAME_LENGTH + " from " + peer);
        }
        else
        {
            assertThat(failure).hasMessage("invalid frame length " + declaredLength + " from " + peer);
        }
        assertThat(peer).isEqualTo("127.0.0.1:" + rawSocket.getLocalPort());
    }

    @Test
    void shouldDeliverFramesSentBeforePeerClosedThenReportClosed() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final TcpLink client = pair.clientLink();
        final String clientAddress = client.localAddress();
        for (int i = 0; i < 3; i++)
        {
            assertThat(client.offer(new UnsafeBuffer(frame(10, i)), 0, 10)).isTrue();
        }
        client.flush();
        assertThat(client.isFlushed()).isTrue();
        client.close();
        client.close();

        final FrameCollector received = new FrameCollector();
        final IOException failure = awaitPollFailure(pair.serverLink(), received, serverDriver);

        assertThat(received.frames).containsExactly(frame(10, 0), frame(10, 1), frame(10, 2));
        assertThat(failure).isInstanceOf(LinkClosedException.class).hasMessage("closed by peer " + clientAddress);
        assertThat(client.isClosed()).isTrue();
    }

    @Test
    void shouldRespectFrameLimitAndDeliverBufferedFramesWithoutNewData() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final TcpLink client = pair.clientLink();
        final TcpLink server = pair.serverLink();
        for (int i = 0; i < 10; i++)
        {
            assertThat(client.offer(new UnsafeBuffer(frame(20, i)), 0, 20)).isTrue();
        }
        assertThat(client.flush()).isEqualTo(10 * 24);

        final FrameCollector received = new FrameCollector();
        final int[] firstPoll = { 0 };
        await("first frames", () ->
        {
            firstPoll[0] = server.poll(received, 3);
            return firstPoll[0] > 0;
        }, serverDriver);
        assertThat(firstPoll[0]).isEqualTo(3);
        // One loopback write arrives as one segment, so one read took all ten frames.
        assertThat(server.bufferedReceiveBytes()).isEqualTo(7 * 24);

        // No doWork from here on: the selector cannot flag the link again, the buffer must suffice.
        assertThat(server.poll(received, 3)).isEqualTo(3);
        assertThat(server.poll(received, 3)).isEqualTo(3);
        assertThat(server.poll(received, 3)).isEqualTo(1);
        assertThat(server.poll(received, 3)).isZero();

        final List<byte[]> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++)
        {
            expected.add(frame(20, i));
        }
        assertThat(received.frames).containsExactlyElementsOf(expected);
    }

    @Test
    void shouldRejectOfferOfFrameOutOfBounds() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MAX_FRAME_LENGTH + 1]);

        assertThatThrownBy(() -> pair.clientLink().offer(buffer, 0, MAX_FRAME_LENGTH + 1))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("frame length " + (MAX_FRAME_LENGTH + 1))
            .hasMessageContaining("maximum " + MAX_FRAME_LENGTH);
        assertThatThrownBy(() -> pair.clientLink().offer(buffer, 0, 0))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(pair.clientLink().isFlushed()).isTrue();
    }

    @Test
    void shouldFailFlushAfterLinkIsClosed() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final TcpLink client = pair.clientLink();
        client.close();

        assertThat(client.isFlushed()).isTrue();
        assertThat(client.offer(new UnsafeBuffer(new byte[8]), 0, 8)).isTrue();
        assertThatThrownBy(client::flush).isInstanceOf(IOException.class);
    }

    @Test
    void shouldLetAFrameHandlerCloseItsLinkAndFreeTheBufferWhenPollReturns() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        for (int i = 0; i < 3; i++)
        {
            assertThat(pair.clientLink().offer(new UnsafeBuffer(frame(100, i)), 0, 100)).isTrue();
        }
        pair.clientLink().flush();
        final TcpLink server = pair.serverLink();
        final List<byte[]> seen = new ArrayList<>();
        final long[] heldDuringHandler = {-1};
        final int[] delivered = {0};
        await("a frame", () ->
        {
            delivered[0] += server.poll((buffer, offset, length) ->
            {
                server.close(); // from inside poll, as a protocol error found in a frame would
                heldDuringHandler[0] = serverDriver.allocatedBufferBytes();
                final byte[] copy = new byte[length];
                buffer.getBytes(offset, copy); // the frame's bytes stay readable for the rest of the call
                seen.add(copy);
            }, 16);
            return delivered[0] > 0;
        }, serverDriver);

        assertThat(delivered[0]).as("no frame after the close").isEqualTo(1);
        assertThat(seen).containsExactly(frame(100, 0));
        assertThat(heldDuringHandler[0]).as("the receive buffer, not yet freed inside the handler").isPositive();
        assertThat(serverDriver.allocatedBufferBytes()).as("freed when poll returned").isZero();
        assertThat(server.poll((buffer, offset, length) -> seen.add(null), 16)).isZero();
    }

    @Test
    void shouldFreeTheSendSideOfALinkClosedByAnotherThreadAtTheNextDutyCycle() throws Exception
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final TcpLink client = pair.clientLink();
        final Thread sender = new Thread(() ->
        {
            client.offer(new UnsafeBuffer(frame(100, 1)), 0, 100);
            try
            {
                client.flush();
            }
            catch (final IOException ex)
            {
                throw new java.io.UncheckedIOException(ex);
            }
        }, "sender");
        sender.start();
        sender.join(TIMEOUT_NS / 1_000_000);
        assertThat(sender.isAlive()).isFalse();
        final long sendBuffer = client.sendCapacity();
        assertThat(clientDriver.allocatedBufferBytes()).isEqualTo(sendBuffer);

        // The conductor (this thread) closes the link the sender used: its send side waits for a duty cycle.
        client.close();
        assertThat(clientDriver.allocatedBufferBytes()).as("left for the next duty cycle").isEqualTo(sendBuffer);
        clientDriver.doWork(System.nanoTime());
        assertThat(clientDriver.allocatedBufferBytes()).isZero();
    }

    @Test
    void shouldLeaveToTheGcASendSideThatAClosingDriverCannotFreeSafely() throws Exception
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final TcpLink client = pair.clientLink();
        final Thread sender = new Thread(() -> client.offer(new UnsafeBuffer(frame(100, 1)), 0, 100), "sender");
        sender.start();
        sender.join(TIMEOUT_NS / 1_000_000);
        client.flush(); // this thread flushes as well: the link's sender is the thread that offered first

        // A node closing without stopping its sender first: the driver closes the link, the sender may still run.
        clientDriver.close();
        assertThat(client.isClosed()).isTrue();
        assertThat(clientDriver.allocatedBufferBytes()).as("no longer the driver's, left to the GC").isZero();
        assertThat(client.offer(new UnsafeBuffer(frame(100, 2)), 0, 100)).as("discarded, buffer untouched").isTrue();
        assertThatThrownBy(client::flush).isInstanceOf(IOException.class).hasMessageContaining("closed");
    }

    private TcpLink acceptRawSocket(final TcpLinkListener listener) throws IOException
    {
        final String address = listener.localAddress();
        final int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        rawSocket = new Socket();
        rawSocket.setTcpNoDelay(true);
        rawSocket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);

        final TcpLink[] link = new TcpLink[1];
        await("accept", () -> null != (link[0] = listener.accept()), serverDriver);

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

    private static int consumedBytes(final FrameCollector collector)
    {
        int bytes = 0;
        for (final byte[] frame : collector.frames)
        {
            bytes += TcpLink.LENGTH_PREFIX_LENGTH + frame.length;
        }

        return bytes;
    }
}
