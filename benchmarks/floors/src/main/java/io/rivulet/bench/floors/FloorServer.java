package io.rivulet.bench.floors;

import io.rivulet.bench.harness.BenchServer;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.ServerMain;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.util.Map;

/**
 * The floors' server: {@code --variant blocking} serves each connection on a thread blocked in
 * {@code read}; {@code --variant busy} serves it on a thread spinning on a non-blocking channel. Both
 * echo ECHO, count DATA, answer SYNC, with TCP_NODELAY.
 */
public final class FloorServer implements BenchServer
{
    private final boolean busy;
    private ServerSocket serverSocket;
    private ServerSocketChannel serverChannel;
    private volatile boolean running = true;

    FloorServer(final FloorClient.ServerOptions options)
    {
        this.busy = FloorClient.isBusy(options.variant);
    }

    /** Serves until standard input closes; {@code --help} lists the options. */
    public static void main(final String[] argv)
    {
        ServerMain.run(argv, new FloorClient.ServerOptions(), FloorServer::new);
    }

    @Override
    public Map<String, Object> start() throws IOException
    {
        final int port;
        if (busy)
        {
            serverChannel = ServerSocketChannel.open();
            serverChannel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            port = serverChannel.socket().getLocalPort();
        }
        else
        {
            serverSocket = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
            port = serverSocket.getLocalPort();
        }
        final Thread acceptor = new Thread(this::acceptLoop, "floor-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        return Map.of("port", port);
    }

    private void acceptLoop()
    {
        try
        {
            while (running)
            {
                final Thread thread;
                if (busy)
                {
                    final SpinChannel channel = new SpinChannel(serverChannel.accept());
                    thread = new Thread(() -> serveBusy(channel), "floor-busy-server");
                }
                else
                {
                    final Socket socket = serverSocket.accept();
                    socket.setTcpNoDelay(true);
                    thread = new Thread(() -> serveBlocking(socket), "floor-blocking-server");
                }
                thread.setDaemon(true);
                thread.start();
            }
        }
        catch (final IOException ex)
        {
            if (running)
            {
                ex.printStackTrace();
            }
        }
    }

    private void serveBlocking(final Socket socket)
    {
        final byte[] header = new byte[Frames.LENGTH_FIELD];
        final byte[] payload = new byte[Frames.MAX_PAYLOAD];
        long counted = 0;
        try (socket)
        {
            final InputStream in = new BufferedInputStream(socket.getInputStream(), Frames.BUFFER_LENGTH);
            final OutputStream out = new BufferedOutputStream(socket.getOutputStream(), Frames.BUFFER_LENGTH);
            while (running)
            {
                final int length = Frames.read(in, header, payload);
                switch (Payloads.kind(payload))
                {
                    case Payloads.ECHO:
                        Frames.write(out, header, payload, length);
                        break;
                    case Payloads.DATA:
                        counted++;
                        break;
                    case Payloads.SYNC:
                        Payloads.value(payload, counted);
                        Frames.write(out, header, payload, length);
                        break;
                    default:
                        throw new IOException("unknown kind " + Payloads.kind(payload));
                }
                // Batch replies to requests that are already here; write before blocking for more.
                if (in.available() == 0)
                {
                    out.flush();
                }
            }
        }
        catch (final IOException ex)
        {
            // The client went away: the connection is done.
        }
    }

    private void serveBusy(final SpinChannel channel)
    {
        final long[] counted = new long[1];
        final byte[] syncReply = new byte[Frames.MAX_PAYLOAD];
        final SpinChannel.Handler handler = (buffer, offset, length) ->
        {
            switch (SpinChannel.kind(buffer, offset))
            {
                case Payloads.ECHO:
                    channel.queue(buffer, offset, length);
                    break;
                case Payloads.DATA:
                    counted[0]++;
                    break;
                case Payloads.SYNC:
                    buffer.get(offset, syncReply, 0, length);
                    Payloads.value(syncReply, counted[0]);
                    channel.queue(syncReply, length);
                    break;
                default:
                    throw new IOException("unknown kind " + SpinChannel.kind(buffer, offset));
            }
        };
        try
        {
            while (running)
            {
                channel.poll(handler);
                channel.writeSome();
            }
        }
        catch (final IOException ex)
        {
            // The client went away: the connection is done.
        }
        finally
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignore)
            {
                // Closing anyway.
            }
        }
    }

    @Override
    public void close() throws IOException
    {
        running = false;
        if (serverSocket != null)
        {
            serverSocket.close();
        }
        if (serverChannel != null)
        {
            serverChannel.close();
        }
    }
}
