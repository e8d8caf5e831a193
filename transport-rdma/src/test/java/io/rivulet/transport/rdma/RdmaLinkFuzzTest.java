package io.rivulet.transport.rdma;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.rivulet.spi.FramingException;
import io.rivulet.spi.SocketAddresses;
import io.rivulet.transport.rdma.RdmaTestSupport.Frames;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.rivulet.transport.rdma.RdmaTestSupport.await;
import static io.rivulet.transport.rdma.RdmaTestSupport.awaitPollFailure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes how an {@link RdmaLink} parses a SEND from its peer: the 8-byte header (credits returned, flags) and the
 * {@code [length][frame]} records batched behind it. A raw queue pair on the soft provider's in-process fabric posts
 * the fuzzer's bytes (up to one receive slot) as one SEND; the link must deliver exactly the frames a reference
 * parser finds and then either go on (a well-formed SEND) or fail with {@link FramingException} — never another
 * exception, never a frame beyond the SEND. Seeds: {@code src/test/resources/io/rivulet/transport/rdma/
 * RdmaLinkFuzzTestInputs/receive/}.
 */
class RdmaLinkFuzzTest
{
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final int MAX = RdmaTestSupport.MAX_FRAME_LENGTH;
    private static final int MAX_SEND = RdmaLink.HEADER_LENGTH + RdmaLink.LENGTH_PREFIX_LENGTH + MAX;
    private static final int POLLS_AFTER_LAST_FRAME = 50;

    @FuzzTest(maxDuration = "2m")
    void receive(final byte[] input) throws IOException
    {
        final byte[] send = input.length > MAX_SEND ? Arrays.copyOf(input, MAX_SEND) : input;
        final Expected expected = Expected.of(send);
        try (RawPeer peer = new RawPeer())
        {
            peer.send(send);
            final Frames frames = new Frames();
            if (expected.failure)
            {
                final IOException failure = awaitPollFailure(peer.link, frames);
                assertThat(failure).isInstanceOf(FramingException.class);
                assertThat(failure.getMessage()).isNotBlank();
            }
            else
            {
                await("frames delivered", () -> peer.link.poll(frames, 16) >= 0 && frames.size() >= expected.frames.size(),
                    peer.driver);
                for (int i = 0; i < POLLS_AFTER_LAST_FRAME; i++)
                {
                    peer.driver.doWork(System.nanoTime());
                    peer.link.poll(frames, 16);
                }
            }
            assertThat(frames.size()).as("frames delivered").isEqualTo(expected.frames.size());
            for (int i = 0; i < frames.size(); i++)
            {
                assertThat(frames.frames.get(i)).isEqualTo(expected.frames.get(i));
            }
        }
    }

    /** The reference parser of one SEND. */
    private record Expected(List<byte[]> frames, boolean failure)
    {
        static Expected of(final byte[] send)
        {
            final List<byte[]> frames = new ArrayList<>();
            if (send.length < RdmaLink.HEADER_LENGTH)
            {
                return new Expected(frames, true);
            }
            final ByteBuffer buffer = ByteBuffer.wrap(send).order(ORDER);
            final int credits = buffer.getInt(RdmaLink.CREDITS_OFFSET);
            if (credits < 0 || credits > RdmaLink.MAX_CREDITS_RETURNED)
            {
                return new Expected(frames, true);
            }
            int position = RdmaLink.HEADER_LENGTH;
            while (position < send.length)
            {
                if (send.length - position < Integer.BYTES)
                {
                    return new Expected(frames, true);
                }
                final int length = buffer.getInt(position);
                if (length <= 0 || length > MAX || length > send.length - position - Integer.BYTES)
                {
                    return new Expected(frames, true);
                }
                frames.add(Arrays.copyOfRange(send, position + Integer.BYTES, position + Integer.BYTES + length));
                position += Integer.BYTES + length;
            }
            return new Expected(frames, false);
        }
    }

    /** A link accepted by a driver, and a raw queue pair connected to it that can post any bytes as a SEND. */
    private static final class RawPeer implements AutoCloseable
    {
        final RdmaTransportDriver driver;
        final RdmaLink link;
        private final VerbsContext context;
        private final ProtectionDomain pd;
        private final CompletionQueue sendCq;
        private final CompletionQueue receiveCq;
        private final MemoryRegion region;
        private final CmConnection raw;

        RawPeer() throws IOException
        {
            driver = new RdmaTransport(RdmaTestSupport.provider()).open(RdmaTestSupport.SETTINGS);
            final RdmaLinkListener listener = driver.listen("127.0.0.1:0");
            context = RdmaTestSupport.provider().open(InetAddress.getLoopbackAddress());
            pd = context.allocateProtectionDomain();
            sendCq = context.createCompletionQueue(16);
            receiveCq = context.createCompletionQueue(16);
            region = pd.register(BufferUtil.allocateDirectAligned(16 * 1024, 4096), Access.LOCAL_WRITE);
            raw = context.connect(SocketAddresses.resolve(listener.localAddress()),
                new QueuePairConfig(pd, sendCq, receiveCq, 16, 16, 0, 7, 7, 0));
            final ReceiveWorkRequest receive = new ReceiveWorkRequest();
            for (int i = 0; i < 4; i++)
            {
                raw.queuePair().postReceive(receive.set(i, region.address() + 8 * 1024 + i * 2048L, 2048, region.lkey()));
            }
            final RdmaLink[] accepted = new RdmaLink[1];
            await("raw peer connected", () ->
            {
                if (null == accepted[0])
                {
                    accepted[0] = listener.accept();
                }
                return null != raw.poll() && null != accepted[0];
            }, driver);
            link = accepted[0];
        }

        void send(final byte[] bytes) throws IOException
        {
            new UnsafeBuffer(region.buffer()).putBytes(0, bytes);
            final SendWorkRequest request = new SendWorkRequest().wrId(1).flags(SendWorkRequest.SIGNALED)
                .addSge(region.address(), bytes.length, region.lkey());
            raw.queuePair().postSend(request);
            final WorkCompletion[] completions = {new WorkCompletion()};
            await("send completed", () -> sendCq.poll(completions) == 1, driver);
            assertThat(completions[0].status()).isEqualTo(WcStatus.SUCCESS);
        }

        @Override
        public void close()
        {
            RdmaTransportDriver.closeQuietly(raw);
            RdmaTransportDriver.closeQuietly(sendCq);
            RdmaTransportDriver.closeQuietly(receiveCq);
            RdmaTransportDriver.closeQuietly(region);
            RdmaTransportDriver.closeQuietly(pd);
            RdmaTransportDriver.closeQuietly(context);
            RdmaTransportDriver.closeQuietly(driver);
        }

        /** Writes the seed corpus; run with the test class path and {@code transport-rdma/src/test/resources}. */
        static void writeSeeds(final java.nio.file.Path root) throws IOException
        {
            final java.nio.file.Path directory = java.nio.file.Files.createDirectories(
                root.resolve("io/rivulet/transport/rdma/RdmaLinkFuzzTestInputs/receive"));
            java.nio.file.Files.write(directory.resolve("header-only"), send(2));
            java.nio.file.Files.write(directory.resolve("one-frame"), send(0, 10));
            java.nio.file.Files.write(directory.resolve("three-frames"), send(1, 10, 100, 1));
            java.nio.file.Files.write(directory.resolve("max-frame"), send(0, MAX));
            java.nio.file.Files.write(directory.resolve("nasty-negative-credits"), send(-1, 3));
            java.nio.file.Files.write(directory.resolve("nasty-overrun"), Arrays.copyOf(send(0, 100), 60));
            java.nio.file.Files.write(directory.resolve("nasty-short"), new byte[] { 1, 0, 0 });
        }

        private static byte[] send(final int credits, final int... frameLengths)
        {
            int length = RdmaLink.HEADER_LENGTH;
            for (final int frameLength : frameLengths)
            {
                length += Integer.BYTES + frameLength;
            }
            final ByteBuffer buffer = ByteBuffer.allocate(length).order(ORDER);
            buffer.putInt(credits).putInt(0);
            for (final int frameLength : frameLengths)
            {
                buffer.putInt(frameLength);
                for (int i = 0; i < frameLength; i++)
                {
                    buffer.put((byte)(frameLength + i));
                }
            }
            return buffer.array();
        }
    }

    /** @param args the test resources root. */
    public static void main(final String[] args) throws IOException
    {
        RawPeer.writeSeeds(java.nio.file.Path.of(args[0]));
    }
}
