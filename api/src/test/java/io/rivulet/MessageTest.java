package io.rivulet;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A message's views: made on first use (issue 16: most messages are only encoded or measured), yet each call returns
 * the same view, also when threads race to make it.
 */
class MessageTest
{
    @Test
    void viewsReadTheMessagesBytesAndAreTheSameOnEveryCall()
    {
        final Message message = Message.of("data").metadata("meta");

        final DirectBuffer data = message.data();
        assertThat(data.capacity()).isEqualTo(4);
        assertThat(data.getStringWithoutLengthUtf8(0, 4)).isEqualTo("data");
        assertThat(message.data()).isSameAs(data);
        final DirectBuffer metadata = message.metadata();
        assertThat(metadata.getStringWithoutLengthUtf8(0, 4)).isEqualTo("meta");
        assertThat(message.metadata()).isSameAs(metadata).isNotSameAs(data);
    }

    @Test
    void aMessageWithoutMetadataHasAnEmptyMetadataView()
    {
        final Message message = Message.of(new byte[]{1, 2, 3});

        assertThat(message.hasMetadata()).isFalse();
        assertThat(message.metadata().capacity()).isZero();
        assertThat(message.data().getByte(2)).isEqualTo((byte)3);
    }

    @Test
    void copyOfOwnsItsBytes()
    {
        final UnsafeBuffer source = new UnsafeBuffer("abcdef".getBytes(StandardCharsets.UTF_8));
        final Message message = Message.copyOf(source, 1, 3);
        source.putByte(1, (byte)'X');

        assertThat(message.dataUtf8()).isEqualTo("bcd");
        assertThat(message.data().getByte(0)).isEqualTo((byte)'b');
    }

    @Test
    void threadsRacingToTheFirstViewAllGetTheSameOne() throws Exception
    {
        final int threads = 4;
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try
        {
            for (int round = 0; round < 200; round++)
            {
                final Message message = Message.of(new byte[]{(byte)round}).metadata(new byte[]{7});
                final CyclicBarrier start = new CyclicBarrier(threads);
                final List<Future<DirectBuffer[]>> views = new ArrayList<>();
                for (int t = 0; t < threads; t++)
                {
                    views.add(pool.submit(() ->
                    {
                        start.await(10, TimeUnit.SECONDS);
                        return new DirectBuffer[]{message.data(), message.metadata()};
                    }));
                }
                final DirectBuffer[] first = views.get(0).get(10, TimeUnit.SECONDS);
                for (final Future<DirectBuffer[]> other : views)
                {
                    final DirectBuffer[] seen = other.get(10, TimeUnit.SECONDS);
                    assertThat(seen[0]).as("round %d data", round).isSameAs(first[0]);
                    assertThat(seen[1]).as("round %d metadata", round).isSameAs(first[1]);
                }
                assertThat(first[0].getByte(0)).isEqualTo((byte)round);
                assertThat(first[1].getByte(0)).isEqualTo((byte)7);
            }
        }
        finally
        {
            pool.shutdownNow();
        }
    }
}
