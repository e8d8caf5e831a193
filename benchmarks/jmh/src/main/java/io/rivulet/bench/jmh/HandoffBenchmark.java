package io.rivulet.bench.jmh;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.counters.NodeCounters;
import io.rivulet.engine.Sender;
import io.rivulet.protocol.Outbound;
import io.rivulet.protocol.ProtocolConnection;
import io.rivulet.protocol.ProtocolSettings;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The application-to-engine hand-off: a message handed to a {@link Connection} is encoded into the
 * connection's outbound ring, and the sender agent drains it to the link (here a {@link DiscardLink}).
 * Real engine classes, no network, default frame and ring sizes.
 *
 * <ul>
 *   <li>{@code offerThenDrain}: one thread does {@code Connection.offer} (zero copy) then one
 *       {@code Sender.doWork()}: the cost of the whole path per message, without cross-thread effects;</li>
 *   <li>{@code fireAndForgetThenDrain}: the same through the Reactor API,
 *       {@code Connection.fireAndForget(Message).subscribe()};</li>
 *   <li>{@code handoff}: an application thread offering while the sender agent drains on another
 *       thread, as in a running node; its {@code offer} score is the hand-off rate.</li>
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED"})
public class HandoffBenchmark
{
    /** A connection over a discarding link, with the sender agent that drains it. */
    @State(Scope.Group)
    public static class Engine
    {
        @Param({"32", "256", "4096"})
        public int size;

        Connection connection;
        Sender sender;
        UnsafeBuffer data;
        Message message;

        @Setup
        public void setUp()
        {
            final int maxFrameLength = 16 * 1024;
            final NodeCounters counters = new NodeCounters();
            final Outbound outbound = new Outbound(256 * 1024, maxFrameLength, counters.backPressureEvents);
            final ProtocolSettings settings = new ProtocolSettings(maxFrameLength, 16 * 1024 * 1024, 256,
                TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(5), 64);
            final ProtocolConnection protocolConnection = new ProtocolConnection(new DiscardLink(), outbound, settings,
                counters.connectionCounters(), true, Responder.none(), Runnable::run, Throwable::printStackTrace,
                System.nanoTime());
            connection = protocolConnection.api();
            sender = new Sender(counters);
            sender.add(protocolConnection);
            final byte[] bytes = new byte[size];
            data = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
            data.putBytes(0, bytes);
            message = Message.of(bytes);
        }
    }

    @Benchmark
    @Group("offerThenDrain")
    public int offerThenDrain(final Engine engine)
    {
        if (engine.connection.offer(engine.data, 0, engine.size) < 0)
        {
            throw new IllegalStateException("ring full: the sender should have drained it");
        }
        return engine.sender.doWork();
    }

    @Benchmark
    @Group("fireAndForgetThenDrain")
    public int fireAndForgetThenDrain(final Engine engine)
    {
        engine.connection.fireAndForget(engine.message).subscribe();
        return engine.sender.doWork();
    }

    @Benchmark
    @Group("handoff")
    @GroupThreads(1)
    public long offer(final Engine engine)
    {
        long result;
        int spins = 0;
        // Bounded, so the producer is not left spinning once the draining thread has stopped at the end
        // of an iteration.
        while ((result = engine.connection.offer(engine.data, 0, engine.size)) < 0 && ++spins < 100_000)
        {
            Thread.onSpinWait();
        }
        return result;
    }

    @Benchmark
    @Group("handoff")
    @GroupThreads(1)
    public int drain(final Engine engine)
    {
        return engine.sender.doWork();
    }
}
