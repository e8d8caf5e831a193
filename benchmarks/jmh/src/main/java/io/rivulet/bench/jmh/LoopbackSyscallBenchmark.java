package io.rivulet.bench.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * The system calls a round trip over loopback TCP is made of, on this machine, for the latency budget in
 * docs/ARCHITECTURE.md (issue 16): the selector's poll of one idle socket ({@code selectNow}), a non-blocking
 * read that finds nothing, and one 32-byte message written and read back on one thread (write, the kernel's
 * loopback, read; no thread wake-up).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LoopbackSyscallBenchmark
{
    /** A connected pair of non-blocking loopback sockets, one registered with a selector for reads. */
    @State(Scope.Thread)
    public static class Sockets
    {
        ServerSocketChannel server;
        SocketChannel writer;
        SocketChannel reader;
        Selector selector;
        final ByteBuffer message = ByteBuffer.allocateDirect(32);
        final ByteBuffer received = ByteBuffer.allocateDirect(64 * 1024);

        @Setup(Level.Trial)
        public void setUp() throws IOException
        {
            server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
            writer = SocketChannel.open(server.getLocalAddress());
            reader = server.accept();
            for (final SocketChannel channel : new SocketChannel[]{writer, reader})
            {
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
            selector = Selector.open();
            reader.register(selector, SelectionKey.OP_READ);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException
        {
            selector.close();
            writer.close();
            reader.close();
            server.close();
        }
    }

    @Benchmark
    public int selectNowIdle(final Sockets sockets) throws IOException
    {
        return sockets.selector.selectNow();
    }

    @Benchmark
    public int readIdle(final Sockets sockets) throws IOException
    {
        sockets.received.clear();
        return sockets.reader.read(sockets.received);
    }

    @Benchmark
    public int writeThenRead(final Sockets sockets) throws IOException
    {
        sockets.message.clear();
        sockets.writer.write(sockets.message);
        int read = 0;
        while (read < 32)
        {
            sockets.received.clear();
            read += sockets.reader.read(sockets.received);
        }
        return read;
    }
}
