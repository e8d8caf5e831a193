package io.rivulet.transport.rdma;

import io.rivulet.spi.SocketAddresses;
import io.rivulet.spi.FramingException;
import io.rivulet.tck.ScaledTimeout;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteOrder;

import static io.rivulet.transport.rdma.RdmaTestSupport.await;
import static io.rivulet.transport.rdma.RdmaTestSupport.awaitPollFailure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Design section 9, bad input from the network: a raw queue pair sends SENDs an {@link RdmaLink} must
 * reject with a {@link FramingException}, after delivering the good frames before them.
 */
@ScaledTimeout(30)
class RdmaHostileFrameTest
{
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final int MAX = RdmaTestSupport.MAX_FRAME_LENGTH;

    private RdmaTransportDriver serverDriver;
    private RdmaLink server;
    private VerbsContext context;
    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue receiveCq;
    private MemoryRegion region;
    private UnsafeBuffer buffer;
    private CmConnection raw;

    @BeforeEach
    void connectRawPeer() throws IOException
    {
        serverDriver = new RdmaTransport(RdmaTestSupport.provider()).open(RdmaTestSupport.SETTINGS);
        final RdmaLinkListener listener = serverDriver.listen("127.0.0.1:0");

        context = RdmaTestSupport.provider().open(InetAddress.getLoopbackAddress());
        pd = context.allocateProtectionDomain();
        sendCq = context.createCompletionQueue(16);
        receiveCq = context.createCompletionQueue(16);
        region = pd.register(BufferUtil.allocateDirectAligned(64 * 1024, 4096), Access.LOCAL_WRITE);
        buffer = new UnsafeBuffer(region.buffer());
        raw = context.connect(SocketAddresses.resolve(listener.localAddress()),
            new QueuePairConfig(pd, sendCq, receiveCq, 16, 16, 0, 7, 7, 0));
        final ReceiveWorkRequest receive = new ReceiveWorkRequest();
        for (int i = 0; i < 16; i++)
        {
            raw.queuePair().postReceive(receive.set(i, region.address() + 32 * 1024 + i * 2048L, 2048, region.lkey()));
        }

        final RdmaLink[] accepted = new RdmaLink[1];
        await("raw peer connected", () ->
        {
            if (null == accepted[0])
            {
                accepted[0] = listener.accept();
            }
            return null != raw.poll() && null != accepted[0];
        }, serverDriver);
        server = accepted[0];
    }

    @AfterEach
    void close()
    {
        RdmaTransportDriver.closeQuietly(raw);
        RdmaTransportDriver.closeQuietly(sendCq);
        RdmaTransportDriver.closeQuietly(receiveCq);
        RdmaTransportDriver.closeQuietly(region);
        RdmaTransportDriver.closeQuietly(pd);
        RdmaTransportDriver.closeQuietly(context);
        RdmaTransportDriver.closeQuietly(serverDriver);
    }

    @Test
    void shouldRejectFrameLengthOverMaximumAfterEarlierFrames() throws IOException
    {
        int offset = header(0);
        offset = frame(offset, 10);
        buffer.putInt(offset, MAX + 1, ORDER);
        send(offset + 4 + MAX + 1);

        final Frames frames = new Frames();
        final IOException failure = awaitPollFailure(server, frames);
        assertThat(frames.size()).isEqualTo(1);
        assertThat(failure).isInstanceOf(FramingException.class).hasMessageContaining("exceeds maximum " + MAX);
    }

    @Test
    void shouldRejectZeroFrameLength() throws IOException
    {
        final int offset = header(0);
        buffer.putInt(offset, 0, ORDER);
        send(offset + 4);

        assertThat(awaitPollFailure(server, new Frames())).isInstanceOf(FramingException.class)
            .hasMessageContaining("invalid frame length 0");
    }

    @Test
    void shouldRejectNegativeFrameLength() throws IOException
    {
        final int offset = header(0);
        buffer.putInt(offset, -5, ORDER);
        send(offset + 4 + 16);

        assertThat(awaitPollFailure(server, new Frames())).isInstanceOf(FramingException.class)
            .hasMessageContaining("invalid frame length -5");
    }

    @Test
    void shouldRejectFrameOverrunningItsSend() throws IOException
    {
        final int offset = header(0);
        buffer.putInt(offset, 100, ORDER);
        send(offset + 4 + 50);

        assertThat(awaitPollFailure(server, new Frames())).isInstanceOf(FramingException.class)
            .hasMessageContaining("overruns");
    }

    @Test
    void shouldRejectTruncatedLengthPrefix() throws IOException
    {
        final int offset = frame(header(0), 3);
        send(offset + 2);

        final Frames frames = new Frames();
        assertThat(awaitPollFailure(server, frames)).isInstanceOf(FramingException.class)
            .hasMessageContaining("truncated");
        assertThat(frames.size()).isEqualTo(1);
    }

    @Test
    void shouldRejectSendShorterThanHeader() throws IOException
    {
        send(4);

        assertThat(awaitPollFailure(server, new Frames())).isInstanceOf(FramingException.class)
            .hasMessageContaining("SEND of 4 bytes");
    }

    @Test
    void shouldRejectNegativeCredits() throws IOException
    {
        send(frame(header(-1), 3));

        assertThat(awaitPollFailure(server, new Frames())).isInstanceOf(FramingException.class)
            .hasMessageContaining("credits");
    }

    private int header(final int credits)
    {
        buffer.putInt(RdmaLink.CREDITS_OFFSET, credits, ORDER);
        buffer.putInt(RdmaLink.FLAGS_OFFSET, 0, ORDER);
        return RdmaLink.HEADER_LENGTH;
    }

    private int frame(final int offset, final int length)
    {
        buffer.putInt(offset, length, ORDER);
        buffer.setMemory(offset + 4, length, (byte)7);
        return offset + 4 + length;
    }

    private void send(final int length) throws IOException
    {
        final SendWorkRequest request = new SendWorkRequest()
            .wrId(1)
            .flags(SendWorkRequest.SIGNALED)
            .addSge(region.address(), length, region.lkey());
        raw.queuePair().postSend(request);
        final WorkCompletion[] completions = {new WorkCompletion()};
        await("send completed", () -> sendCq.poll(completions) == 1, serverDriver);
        assertThat(completions[0].status()).isEqualTo(WcStatus.SUCCESS);
    }
}
