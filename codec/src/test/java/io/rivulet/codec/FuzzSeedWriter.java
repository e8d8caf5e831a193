package io.rivulet.codec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Writes the seed corpus of {@link FrameReaderFuzzTest}: one valid frame of every type (topic, region and datagram
 * offer frames included) written by {@link FrameWriter}, plus known nasty cases. The files are committed; run this only to regenerate
 * them after a wire change:
 * <pre>{@code
 * mvn -B -q test-compile -pl codec -am
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp codec/target/test-classes:codec/target/classes:$(ls ~/.m2/repository/org/agrona/agrona/2.6.0/agrona-2.6.0.jar) \
 *     io.rivulet.codec.FuzzSeedWriter codec/src/test/resources
 * }</pre>
 */
public final class FuzzSeedWriter
{
    private FuzzSeedWriter()
    {
    }

    /** @param args the test resources root. */
    public static void main(final String[] args) throws IOException
    {
        final Path directory = Path.of(args[0], "io/rivulet/codec/FrameReaderFuzzTestInputs/wrap");
        Files.createDirectories(directory);
        for (final TestFrames.Sample sample : seeds())
        {
            final String name = sample.name().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
            Files.write(directory.resolve(name), sample.bytes());
        }
    }

    static List<TestFrames.Sample> seeds()
    {
        final List<TestFrames.Sample> seeds = new ArrayList<>(TestFrames.variety());
        seeds.addAll(TopicFrameHostileInputTest.samples());
        seeds.addAll(RegionFrameCodecTest.samples());
        seeds.addAll(DatagramOfferCodecTest.samples());

        final TestFrames.Sample request = TestFrames.oneOfEachType().get(2);
        final byte[] truncated = Arrays.copyOf(request.bytes(), request.length() - 3);
        seeds.add(new TestFrames.Sample("nasty truncated request", request.frameType(), truncated));

        final byte[] hugeVar = request.copy();
        TestFrames.putInt(hugeVar, TestFrames.varLengthFieldOffsets(hugeVar)[1], 0xFFFF_FFF0);
        seeds.add(new TestFrames.Sample("nasty huge var length", request.frameType(), hugeVar));

        final byte[] hugeBlock = request.copy();
        TestFrames.putShort(hugeBlock, 0, 0xFFFF);
        seeds.add(new TestFrames.Sample("nasty huge block length", request.frameType(), hugeBlock));

        final byte[] unknownType = request.copy();
        TestFrames.putShort(unknownType, 2, 99);
        seeds.add(new TestFrames.Sample("nasty unknown template", 99, unknownType));

        final byte[] negativeStream = request.copy();
        TestFrames.putInt(negativeStream, TestFrames.HEADER, -1);
        seeds.add(new TestFrames.Sample("nasty negative stream id", request.frameType(), negativeStream));

        seeds.add(new TestFrames.Sample("nasty header only", 0, Arrays.copyOf(request.bytes(), TestFrames.HEADER)));
        seeds.add(new TestFrames.Sample("nasty empty", 0, new byte[0]));
        seeds.add(new TestFrames.Sample("nasty extended block v2", request.frameType(),
            TestFrames.withExtendedBlock(request.bytes(), 2, 7, (byte)0x5A)));
        return seeds;
    }
}
