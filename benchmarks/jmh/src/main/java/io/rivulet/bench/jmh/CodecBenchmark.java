package io.rivulet.bench.jmh;

import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * The codec on its own: encoding a REQUEST_FNF frame (header, block, metadata and data) into a direct
 * buffer with {@link FrameWriter}, and validating and reading one with {@link FrameReader}, as the engine
 * does for every message.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED"})
public class CodecBenchmark
{
    @Param({"32", "256", "4096"})
    public int size;

    private final FrameWriter writer = new FrameWriter();
    private final FrameReader reader = new FrameReader();
    private UnsafeBuffer data;
    private UnsafeBuffer out;
    private UnsafeBuffer frame;
    private int frameLength;

    @Setup
    public void setUp()
    {
        data = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        for (int i = 0; i < size; i++)
        {
            data.putByte(i, (byte)i);
        }
        out = new UnsafeBuffer(ByteBuffer.allocateDirect(size + 256));
        frame = new UnsafeBuffer(ByteBuffer.allocateDirect(size + 256));
        frameLength = writer.writePayloadFrame(frame, 0, FrameType.REQUEST_FNF, 0, 0, FrameFlags.NEXT,
            null, 0, 0, data, 0, size);
    }

    @Benchmark
    public int encode()
    {
        return writer.writePayloadFrame(out, 0, FrameType.REQUEST_FNF, 0, 0, FrameFlags.NEXT, null, 0, 0, data, 0, size);
    }

    @Benchmark
    public int decode()
    {
        if (!reader.wrap(frame, 0, frameLength))
        {
            throw new IllegalStateException(reader.error());
        }
        return reader.dataLength() + frame.getInt(reader.dataOffset());
    }
}
