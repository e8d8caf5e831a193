package io.rivulet;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.agrona.concurrent.UnsafeBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes {@link Metadata#decode}, which reads bytes any peer can send: it either fails with
 * {@link MalformedMetadataException} or returns entries that encode back to exactly the input. In {@code mvn test}
 * Jazzer runs the seeds in {@code src/test/resources/io/rivulet/MetadataFuzzTestInputs/decode/}; with
 * {@code JAZZER_FUZZ=1} it mutates them (README, Fuzzing).
 */
class MetadataFuzzTest
{
    @FuzzTest(maxDuration = "1m")
    void decode(final byte[] input)
    {
        final Metadata metadata;
        try
        {
            metadata = Metadata.decode(new UnsafeBuffer(input), 0, input.length);
        }
        catch (final MalformedMetadataException expected)
        {
            assertThat(expected.getMessage()).isNotBlank();
            return;
        }
        assertThat(metadata.encode()).isEqualTo(input);
    }
}
