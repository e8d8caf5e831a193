package io.rivulet.bench.jmh;

import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.transport.tcp.TcpTransport;
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

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One idle duty cycle of a node's engine with one open TCP connection (INVOKER mode, run by the benchmark
 * thread): what a busy-polling engine spends between looks at its socket, so half of it is the mean time a
 * frame waits to be seen (issue 16's latency budget). The server node runs on its own thread, backing off.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED"})
public class DutyCycleBenchmark
{
    /** An INVOKER client node connected to a SHARED server node over loopback. */
    @State(Scope.Thread)
    public static class Nodes
    {
        Rivulet server;
        Rivulet client;
        Connection connection;

        @Setup(Level.Trial)
        public void setUp()
        {
            server = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).countersFile(false));
            final Server bound = server.bind("127.0.0.1:0", Responder.none()).block(Duration.ofSeconds(10));
            client = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).countersFile(false)
                .threadingMode(ThreadingMode.INVOKER));
            final AtomicReference<Connection> connected = new AtomicReference<>();
            client.connect(bound.localAddress()).subscribe(connected::set);
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (connected.get() == null && System.nanoTime() - deadlineNs < 0)
            {
                client.invoke();
            }
            connection = connected.get();
            if (connection == null)
            {
                throw new IllegalStateException("not connected within 10 s");
            }
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            client.close();
            server.close();
        }
    }

    @Benchmark
    public int idleCycle(final Nodes nodes)
    {
        return nodes.client.invoke();
    }
}
