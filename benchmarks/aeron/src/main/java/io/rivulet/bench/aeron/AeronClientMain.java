package io.rivulet.bench.aeron;

import io.aeron.AeronVersion;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.rivulet.bench.harness.BenchClient;
import io.rivulet.bench.harness.ClientMain;
import io.rivulet.bench.harness.Histograms;
import io.rivulet.bench.harness.Line;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.Progress;
import io.rivulet.bench.harness.Waits;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Aeron's measuring side. {@code --channel ipc}: ping and pong are two threads of this process sharing
 * one embedded media driver, over {@code aeron:ipc}. {@code --channel udp}: pong is another process
 * ({@link AeronServerMain}) whose media driver this process uses too, over {@code aeron:udp} on 127.0.0.1. Messages are sent with {@code ExclusivePublication.offer} and received with
 * {@code Subscription.poll} through a {@link FragmentAssembler}.
 */
public final class AeronClientMain implements BenchClient
{
    private final AeronNode.ClientOptions options;
    private final boolean ipc;
    private final String idleName;
    private final IdleStrategy idle;
    private AeronNode node;
    private ExclusivePublication publication;
    private Subscription subscription;
    private Pong pong;
    private Thread pongThread;
    private AeronFanOut fanOut;

    private int size;
    private UnsafeBuffer echo;
    private UnsafeBuffer data;
    private UnsafeBuffer sync;
    private int seq;

    private int repliesSeen;
    private int lastSeq;
    private int lastLength;
    private long lastValue;
    private long[] sentAtNs;
    private Histogram latency;
    private final FragmentHandler onReply = new FragmentAssembler(this::onReply);

    AeronClientMain(final AeronNode.ClientOptions options)
    {
        this.options = options;
        this.ipc = "ipc".equals(options.channel);
        this.idleName = options.idle;
        this.idle = AeronNode.idleStrategy(idleName);
    }

    /** Runs the workloads over IPC, or against an {@link AeronServerMain}; {@code --help} lists the options. */
    public static void main(final String[] argv)
    {
        ClientMain.run(argv, new AeronNode.ClientOptions(), AeronClientMain::new);
    }

    @Override
    public Line info()
    {
        return Line.of(Line.INFO,
            "system", ipc ? "Aeron IPC" : "Aeron UDP",
            "version", AeronVersion.VERSION,
            "transport", ipc ? "aeron:ipc (shared memory)" : "aeron:udp 127.0.0.1",
            "topology", ipc ? "1 process (ping and pong threads)" : "2 processes, 1 media driver",
            "settings", (ipc ? "embedded media driver" : "one media driver for both processes (in the server's)") +
                ", SHARED threading, " + options.driverIdle + " driver idle; ping and pong " +
                "threads poll with " + idleName + " idle; ExclusivePublication.offer, default MTU and term lengths");
    }

    @Override
    public void start() throws Exception
    {
        node = new AeronNode(options, "client");
        if (ipc)
        {
            publication = node.aeron.addExclusivePublication("aeron:ipc", AeronNode.PING_STREAM);
            subscription = node.aeron.addSubscription("aeron:ipc", AeronNode.PONG_STREAM);
            pong = new Pong(node.aeron.addSubscription("aeron:ipc", AeronNode.PING_STREAM),
                node.aeron.addExclusivePublication("aeron:ipc", AeronNode.PONG_STREAM),
                AeronNode.idleStrategy(idleName));
            pongThread = new Thread(pong, "aeron-pong");
            pongThread.setDaemon(true);
            pongThread.start();
        }
        else
        {
            publication = node.aeron.addExclusivePublication(AeronServerMain.udp(options.port),
                AeronNode.PING_STREAM);
            subscription = node.aeron.addSubscription(AeronServerMain.udp(options.port2),
                AeronNode.PONG_STREAM);
        }
        final long deadlineNs = Waits.deadline();
        while (!publication.isConnected())
        {
            Waits.check(deadlineNs, "connected publication");
            Thread.sleep(1);
        }
    }

    @Override
    public void prepare(final int size)
    {
        this.size = size;
        echo = buffer(size, Payloads.ECHO);
        data = buffer(size, Payloads.DATA);
        sync = buffer(size, Payloads.SYNC);
    }

    private static UnsafeBuffer buffer(final int size, final int kind)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        buffer.putBytes(0, Payloads.newPayload(size, kind));
        return buffer;
    }

    @Override
    public String pingPongApi()
    {
        return "offer/poll";
    }

    @Override
    public void roundTrip() throws Exception
    {
        echo.putInt(Payloads.SEQ_OFFSET, ++seq, ByteOrder.LITTLE_ENDIAN);
        AeronNode.offer(publication, echo, size, idle);
        awaitReplies(repliesSeen + 1);
        if (lastSeq != seq || lastLength != size)
        {
            throw new IllegalStateException("expected echo " + seq + " of " + size + " bytes, got " + lastSeq +
                " of " + lastLength);
        }
    }

    @Override
    public List<String> oneWayApis()
    {
        return List.of("offer");
    }

    @Override
    public void send(final String api, final long count, final Progress progress) throws Exception
    {
        for (long i = 0; i < count; i++)
        {
            AeronNode.offer(publication, data, size, idle);
            progress.update(i + 1);
        }
    }

    @Override
    public long sync() throws Exception
    {
        AeronNode.offer(publication, sync, size, idle);
        awaitReplies(repliesSeen + 1);
        return lastValue;
    }

    @Override
    public List<String> pipelinedApis()
    {
        return List.of("offer/poll");
    }

    @Override
    public void pipelined(
        final String api, final long count, final int window, final Histogram latencyNs, final Progress progress)
        throws Exception
    {
        final long[] sentAt = new long[window];
        sentAtNs = sentAt;
        latency = latencyNs;
        final int base = repliesSeen;
        long sent = 0;
        long received = 0;
        long deadlineNs = Waits.deadline();
        while (received < count)
        {
            while (sent < count && sent - received < window)
            {
                echo.putInt(Payloads.SEQ_OFFSET, (int)sent, ByteOrder.LITTLE_ENDIAN);
                sentAt[(int)(sent % window)] = System.nanoTime();
                offerPollingReplies(echo);
                sent++;
            }
            final int fragments = subscription.poll(onReply, 16);
            if (repliesSeen - base != received)
            {
                received = repliesSeen - base;
                progress.update(received);
                deadlineNs = Waits.deadline();
            }
            else if ((received & 0xFF) == 0)
            {
                Waits.check(deadlineNs, "reply");
            }
            idle.idle(fragments);
        }
        latency = null;
    }

    /**
     * Offers while draining replies: with 64 requests of 4 KiB in flight both directions can fill the
     * receiver windows (128 KiB for UDP), and a sender that stopped polling would deadlock with pong.
     */
    private void offerPollingReplies(final DirectBuffer buffer) throws Exception
    {
        long result;
        long deadlineNs = 0;
        while ((result = publication.offer(buffer, 0, size)) < 0)
        {
            if (result == io.aeron.Publication.CLOSED || result == io.aeron.Publication.MAX_POSITION_EXCEEDED)
            {
                throw new IllegalStateException("publication closed or at its maximum position");
            }
            if (deadlineNs == 0)
            {
                deadlineNs = Waits.deadline();
            }
            else
            {
                Waits.check(deadlineNs, "room in the publication");
            }
            idle.idle(subscription.poll(onReply, 16));
        }
        idle.reset();
    }

    private void awaitReplies(final int target) throws Exception
    {
        final long deadlineNs = Waits.deadline();
        int spins = 0;
        while (repliesSeen < target)
        {
            final int fragments = subscription.poll(onReply, 16);
            if (fragments == 0 && (++spins & 0xFFFF) == 0)
            {
                Waits.check(deadlineNs, "reply");
            }
            idle.idle(fragments);
        }
        idle.reset();
    }

    private void onReply(final DirectBuffer buffer, final int offset, final int length, final io.aeron.logbuffer.Header header)
    {
        lastSeq = buffer.getInt(offset + Payloads.SEQ_OFFSET, ByteOrder.LITTLE_ENDIAN);
        lastLength = length;
        if (AeronNode.kind(buffer, offset) == Payloads.SYNC)
        {
            lastValue = buffer.getLong(offset + Payloads.VALUE_OFFSET, ByteOrder.LITTLE_ENDIAN);
        }
        else if (latency != null)
        {
            Histograms.record(latency, System.nanoTime() -
                sentAtNs[(int)(Integer.toUnsignedLong(lastSeq) % sentAtNs.length)]);
        }
        repliesSeen++;
    }

    @Override
    public String fanOutApi()
    {
        return "ExclusivePublication.offer → Subscription.poll";
    }

    @Override
    public String fanOutSettings()
    {
        return (ipc ? "one aeron:ipc publication, N subscriptions to it" : "multi-destination-cast publication " +
            "(manual control mode) to N unicast UDP endpoints on 127.0.0.1, one subscription each, through the " +
            "server process's media driver") + "; publisher (the measuring thread) and one thread polling the N " +
            "subscriptions, in this process, both " + idleName + " idle; " + options.driverIdle +
            " driver idle";
    }

    @Override
    public void fanOut(
        final int subscribers, final long count, final long ratePerSecond, final Histogram latencyNs,
        final Progress progress) throws Exception
    {
        if (fanOut == null)
        {
            fanOut = new AeronFanOut(node.aeron, ipc, subscribers, idleName);
        }
        fanOut.run(size, count, ratePerSecond, latencyNs, progress);
    }

    /** Stops the subscriptions' polling thread and closes the fan-out's publication and subscriptions. */
    @Override
    public void endFanOut() throws Exception
    {
        if (fanOut != null)
        {
            fanOut.close();
            fanOut = null;
        }
    }

    @Override
    public void close() throws Exception
    {
        endFanOut();
        if (pong != null)
        {
            pong.stop();
            pongThread.join(5_000);
        }
        if (node != null)
        {
            node.close();
        }
    }
}
