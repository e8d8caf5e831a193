package io.rivulet.bench.floors;

import io.rivulet.bench.harness.BenchClient;
import io.rivulet.bench.harness.ClientMain;
import io.rivulet.bench.harness.Histograms;
import io.rivulet.bench.harness.Line;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.Progress;
import io.rivulet.bench.harness.Waits;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.List;

/**
 * The floors' client. {@code --variant blocking}: java.net.Socket, the thread blocks in read; writes go
 * through a 64 KiB buffer flushed before each blocking read. {@code --variant busy}: a non-blocking
 * SocketChannel polled in a spin loop. TCP_NODELAY on both.
 */
public final class FloorClient implements BenchClient
{
    private final boolean busy;
    private final String host;
    private final int port;
    private final byte[] header = new byte[Frames.LENGTH_FIELD];
    private final byte[] reply = new byte[Frames.MAX_PAYLOAD];

    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private SpinChannel channel;

    private int size;
    private byte[] echo;
    private byte[] data;
    private byte[] sync;
    private int seq;

    // Busy variant's reply state, set by the frame handler.
    private int repliesSeen;
    private long lastValue;
    private int lastSeq;
    private int lastLength;
    private long[] sentAtNs;
    private Histogram latency;
    private final SpinChannel.Handler onReply = this::onReply;

    FloorClient(final ClientOptions options)
    {
        this.busy = isBusy(options.variant);
        this.host = options.host;
        this.port = options.port;
    }

    /** Runs the workloads against a {@link FloorServer}; {@code --help} lists the options. */
    public static void main(final String[] argv)
    {
        ClientMain.run(argv, new ClientOptions(), FloorClient::new);
    }

    static boolean isBusy(final String variant)
    {
        switch (variant)
        {
            case "busy":
                return true;
            case "blocking":
                return false;
            default:
                throw new IllegalArgumentException("--variant busy|blocking, not " + variant);
        }
    }

    @Override
    public Line info()
    {
        return busy ?
            Line.of(Line.INFO, "system", "TCP floor, busy-poll", "version",
                "JDK " + System.getProperty("java.runtime.version"), "transport", "TCP (SocketChannel)",
                "topology", "2 processes",
                "settings", "non-blocking SocketChannel, TCP_NODELAY, one thread per side spinning on read/write, " +
                "256 KiB direct buffers") :
            Line.of(Line.INFO, "system", "TCP floor, blocking", "version",
                "JDK " + System.getProperty("java.runtime.version"), "transport", "TCP (java.net.Socket)",
                "topology", "2 processes",
                "settings", "blocking java.net.Socket, TCP_NODELAY, one thread per side blocked in read, " +
                "64 KiB buffered streams flushed before each blocking read");
    }

    @Override
    public void start() throws IOException
    {
        if (busy)
        {
            final SocketChannel socketChannel = SocketChannel.open(new InetSocketAddress(host, port));
            channel = new SpinChannel(socketChannel);
        }
        else
        {
            socket = new Socket(host, port);
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream(), Frames.BUFFER_LENGTH);
            out = new BufferedOutputStream(socket.getOutputStream(), Frames.BUFFER_LENGTH);
        }
    }

    @Override
    public void prepare(final int size)
    {
        this.size = size;
        echo = Payloads.newPayload(size, Payloads.ECHO);
        data = Payloads.newPayload(size, Payloads.DATA);
        sync = Payloads.newPayload(size, Payloads.SYNC);
    }

    @Override
    public String pingPongApi()
    {
        return busy ? "write/read (spin)" : "write/read (blocking)";
    }

    @Override
    public void roundTrip() throws Exception
    {
        Payloads.seq(echo, ++seq);
        if (busy)
        {
            channel.queue(echo, size);
            channel.flush();
            awaitReplies(repliesSeen + 1);
            check(lastSeq, lastLength);
        }
        else
        {
            Frames.write(out, header, echo, size);
            out.flush();
            final int length = Frames.read(in, header, reply);
            check(Payloads.seq(reply), length);
        }
    }

    private void check(final int replySeq, final int length)
    {
        if (replySeq != seq || length != size)
        {
            throw new IllegalStateException("expected echo " + seq + " of " + size + " bytes, got " + replySeq +
                " of " + length);
        }
    }

    @Override
    public List<String> oneWayApis()
    {
        return List.of(busy ? "write (spin)" : "write (blocking)");
    }

    @Override
    public void send(final String api, final long count, final Progress progress) throws IOException
    {
        for (long i = 0; i < count; i++)
        {
            if (busy)
            {
                channel.queue(data, size);
                if ((i & 15) == 15)
                {
                    channel.writeSome();
                }
            }
            else
            {
                Frames.write(out, header, data, size);
            }
            progress.update(i + 1);
        }
        if (busy)
        {
            channel.flush();
        }
        else
        {
            out.flush();
        }
    }

    @Override
    public long sync() throws Exception
    {
        if (busy)
        {
            channel.queue(sync, size);
            channel.flush();
            awaitReplies(repliesSeen + 1);
            return lastValue;
        }
        Frames.write(out, header, sync, size);
        out.flush();
        Frames.read(in, header, reply);
        return Payloads.value(reply);
    }

    @Override
    public List<String> pipelinedApis()
    {
        return List.of(busy ? "write/read (spin)" : "write/read (blocking)");
    }

    @Override
    public void pipelined(
        final String api, final long count, final int window, final Histogram latencyNs, final Progress progress)
        throws Exception
    {
        final long[] sentAt = new long[window];
        long sent = 0;
        long received = 0;
        if (busy)
        {
            sentAtNs = sentAt;
            latency = latencyNs;
            final int base = repliesSeen;
            long deadlineNs = Waits.deadline();
            while (received < count)
            {
                while (sent < count && sent - received < window)
                {
                    Payloads.seq(echo, (int)sent);
                    sentAt[(int)(sent % window)] = System.nanoTime();
                    channel.queue(echo, size);
                    sent++;
                }
                channel.writeSome();
                if (channel.poll(onReply) > 0)
                {
                    received = repliesSeen - base;
                    progress.update(received);
                    deadlineNs = Waits.deadline();
                }
                else if ((sent & 0xFF) == 0)
                {
                    Waits.check(deadlineNs, "reply");
                }
            }
            latency = null;
            return;
        }
        while (received < count)
        {
            while (sent < count && sent - received < window)
            {
                Payloads.seq(echo, (int)sent);
                sentAt[(int)(sent % window)] = System.nanoTime();
                Frames.write(out, header, echo, size);
                sent++;
            }
            out.flush();
            do
            {
                Frames.read(in, header, reply);
                Histograms.record(latencyNs, System.nanoTime() - sentAt[(int)(received % window)]);
                received++;
            }
            while (received < sent && in.available() > 0);
            progress.update(received);
        }
    }

    private void awaitReplies(final int target) throws Exception
    {
        final long deadlineNs = Waits.deadline();
        int spins = 0;
        while (repliesSeen < target)
        {
            if (channel.poll(onReply) == 0 && (++spins & 0xFFFF) == 0)
            {
                Waits.check(deadlineNs, "reply");
            }
        }
    }

    private void onReply(final ByteBuffer buffer, final int offset, final int length)
    {
        lastSeq = SpinChannel.seq(buffer, offset);
        lastLength = length;
        if (SpinChannel.kind(buffer, offset) == Payloads.SYNC)
        {
            lastValue = SpinChannel.value(buffer, offset);
        }
        else if (latency != null)
        {
            Histograms.record(latency, System.nanoTime() - sentAtNs[(int)(Integer.toUnsignedLong(lastSeq) % sentAtNs.length)]);
        }
        repliesSeen++;
    }

    @Override
    public void close() throws IOException
    {
        if (channel != null)
        {
            channel.close();
        }
        if (socket != null)
        {
            socket.close();
        }
    }

    /** The floor server's options. */
    @Command(name = "FloorServer", description = "A TCP floor's server: echoes, counts and answers the harness.")
    static class ServerOptions
    {
        @Option(names = "--variant", paramLabel = "VARIANT", defaultValue = "busy",
            description = "busy (a non-blocking channel polled in a spin loop) or blocking (java.net.Socket) " +
                "(default ${DEFAULT-VALUE})")
        String variant;
    }

    /** The floor client's options: the server's, and where it listens. */
    @Command(name = "FloorClient", description = "A TCP floor's client: the harness's workloads over one socket.")
    static final class ClientOptions extends ServerOptions
    {
        @Option(names = "--host", paramLabel = "HOST", defaultValue = "127.0.0.1",
            description = "the server's address (default ${DEFAULT-VALUE})")
        String host;

        @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "the server's port, from its READY line (default ${DEFAULT-VALUE})")
        int port;
    }
}
