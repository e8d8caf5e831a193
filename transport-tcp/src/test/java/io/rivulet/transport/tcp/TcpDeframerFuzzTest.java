package io.rivulet.transport.tcp;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.rivulet.spi.FramingException;
import io.rivulet.spi.LinkClosedException;
import io.rivulet.spi.SocketAddresses;
import io.rivulet.transport.tcp.TcpTestSupport.FrameCollector;
import org.junit.jupiter.api.AfterAll;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.rivulet.transport.tcp.TcpTestSupport.MAX_FRAME_LENGTH;
import static io.rivulet.transport.tcp.TcpTestSupport.SETTINGS;
import static io.rivulet.transport.tcp.TcpTestSupport.await;
import static io.rivulet.transport.tcp.TcpTestSupport.awaitPollFailure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes the TCP length-prefix deframer ({@link TcpLink#poll}) over a real loopback socket: a raw socket writes the
 * fuzzer's bytes and shuts its output; the link must hand over exactly the frames a reference deframer finds, then
 * fail with {@link FramingException} at the first length outside {@code 1..maxFrameLength}, or with
 * {@link LinkClosedException} at the end of the stream (a trailing partial frame is never delivered). Seeds:
 * {@code src/test/resources/io/rivulet/transport/tcp/TcpDeframerFuzzTestInputs/deframe/} (see
 * {@link TcpFuzzSeedWriter}).
 */
class TcpDeframerFuzzTest
{
    private static TcpTransportDriver driver;
    private static TcpLinkListener listener;

    @AfterAll
    static void closeDriver()
    {
        if (driver != null)
        {
            driver.close();
            driver = null;
        }
    }

    @FuzzTest(maxDuration = "2m")
    void deframe(final byte[] input) throws IOException
    {
        LoopbackOnly.allow();
        if (driver == null)
        {
            driver = new TcpTransport().open(SETTINGS);
            listener = driver.listen("127.0.0.1:0");
        }
        final InetSocketAddress address = SocketAddresses.resolve(listener.localAddress());
        try (Socket raw = new Socket(address.getAddress(), address.getPort()))
        {
            final TcpLink[] accepted = new TcpLink[1];
            await("accept", () -> (accepted[0] = accepted[0] != null ? accepted[0] : listener.accept()) != null, driver);
            final TcpLink link = accepted[0];
            try
            {
                final OutputStream out = raw.getOutputStream();
                out.write(input);
                out.flush();
                raw.shutdownOutput();

                final FrameCollector collector = new FrameCollector();
                final IOException failure = awaitPollFailure(link, collector, driver);
                final Expected expected = Expected.of(input);

                assertThat(collector.frames).as("frames delivered").hasSize(expected.frames.size());
                for (int i = 0; i < expected.frames.size(); i++)
                {
                    assertThat(collector.frames.get(i)).as("frame %d", i).isEqualTo(expected.frames.get(i));
                }
                assertThat(failure).isInstanceOf(expected.badLength ? FramingException.class : LinkClosedException.class);
                assertThat(failure.getMessage()).isNotBlank();
            }
            finally
            {
                link.close();
            }
        }
    }

    /** The reference deframer: what the link must deliver, and how it must end. */
    private record Expected(List<byte[]> frames, boolean badLength)
    {
        static Expected of(final byte[] input)
        {
            final ByteBuffer buffer = ByteBuffer.wrap(input).order(ByteOrder.LITTLE_ENDIAN);
            final List<byte[]> frames = new ArrayList<>();
            int position = 0;
            while (input.length - position >= Integer.BYTES)
            {
                final int length = buffer.getInt(position);
                if (length <= 0 || length > MAX_FRAME_LENGTH)
                {
                    return new Expected(frames, true);
                }
                if (input.length - position - Integer.BYTES < length)
                {
                    break;
                }
                frames.add(Arrays.copyOfRange(input, position + Integer.BYTES, position + Integer.BYTES + length));
                position += Integer.BYTES + length;
            }
            return new Expected(frames, false);
        }
    }
}
