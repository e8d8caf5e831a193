package io.rivulet.topic;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.rivulet.ProtocolViolationException;
import io.rivulet.protocol.datagram.DatagramChannel;
import io.rivulet.protocol.datagram.DatagramHeader;
import io.rivulet.protocol.datagram.LossyDatagramNetwork;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Coverage-guided fuzzing of the datagram side of topics: every byte a subscriber node's datagram plane reads from
 * the network (the datagram header, then the channel's stream of length-prefixed frames, then each frame) is
 * hostile. Two subscriber connections (the {@link TopicHarness} over a simulated network) are joined to a topic;
 * the input becomes datagrams that reach the plane as if from the publisher's endpoint: raw ones (header and
 * all fuzzed), and DATA datagrams with a valid header on the second connection's session near its next expected
 * sequence (so the stream and frame decoders are reached) and a fuzzed payload.
 *
 * <p>Properties: nothing throws out of the engine's duty cycle; whatever fails closes the attacked connection
 * with a protocol violation and nothing else; the other connection keeps receiving. In {@code mvn test} Jazzer runs
 * the seeds in {@code src/test/resources/io/rivulet/topic/TopicDatagramFuzzTestInputs/datagrams/}; with
 * {@code JAZZER_FUZZ=1} it mutates them (README, Fuzzing).
 *
 * <p>Input: a sequence of {@code [kind u8][length u16 LE][bytes]}; even kinds send the bytes as a whole datagram,
 * odd kinds wrap them in a DATA header at the expected sequence plus {@code (kind >> 1) % 4}.
 */
class TopicDatagramFuzzTest
{
    private static final long STEP_NS = TimeUnit.MICROSECONDS.toNanos(5);
    private static final int MAX_DATAGRAMS = 64;

    @FuzzTest(maxDuration = "3m")
    void datagrams(final byte[] input)
    {
        final TopicHarness harness = new TopicHarness();
        final LossyDatagramNetwork network = new LossyDatagramNetwork(7, 1024 + DatagramHeader.DATA_HEADER_LENGTH, 1024);
        final LossyDatagramNetwork.Endpoint publisherEndpoint = network.newEndpoint();
        final LossyDatagramNetwork.Endpoint subscriberEndpoint = network.newEndpoint();
        harness.datagrams(TopicDatagramTest.settings(), publisherEndpoint, TopicDatagramTest.settings(),
            subscriberEndpoint, nowNs -> network.nowNs = nowNs);
        final TopicHarness.JoinedPair pair = harness.joinTwo("md.a");
        final Publication publication = pair.publication();
        final TopicHarness.Peer good = pair.first();
        final TopicHarness.Collector goodItems = pair.firstItems();

        final DatagramChannel channel = harness.subscriberPlane.channel(1);
        final int subscriberPeer = publisherEndpoint.resolve(subscriberEndpoint.localAddress());
        final UnsafeBuffer datagram = new UnsafeBuffer(new byte[network.maxDatagram()]);
        int position = 0;
        for (int sent = 0; sent < MAX_DATAGRAMS && position + 3 <= input.length; sent++)
        {
            final int kind = input[position] & 0xFF;
            final int declared = (input[position + 1] & 0xFF) | (input[position + 2] & 0xFF) << 8;
            position += 3;
            final int length = Math.min(declared, input.length - position);
            final boolean wrapped = (kind & 1) == 1;
            final int header = wrapped ? DatagramHeader.DATA_HEADER_LENGTH : 0;
            final int payload = Math.min(length, datagram.capacity() - header);
            if (header + payload == 0)
            {
                continue;
            }
            if (wrapped)
            {
                DatagramHeader.writeData(datagram, 0, 0, channel.receiveSessionId(),
                    channel.receiver().expectedSequence() + ((kind >> 1) % 4), payload, harness.nowNs());
            }
            datagram.putBytes(header, input, position, payload);
            position += length;
            publisherEndpoint.send(subscriberPeer, datagram, 0, header + payload);
            harness.advance(TimeUnit.MICROSECONDS.toNanos(20));
        }
        harness.advance(TimeUnit.MILLISECONDS.toNanos(2));
        harness.settle();

        for (final Throwable error : harness.errors)
        {
            assertThat(error).isInstanceOf(ProtocolViolationException.class);
        }
        assertThat(good.subscriberSide.isOpen()).as("the other connection is untouched").isTrue();
        final UnsafeBuffer message = new UnsafeBuffer(new byte[16]);
        assertThat(publication.offer(message, 0, 16)).isPositive();
        harness.advanceUntil("the other connection still receives", STEP_NS, TimeUnit.SECONDS.toNanos(5),
            () -> goodItems.count(TopicMessage.Kind.DATA) == 1);
        assertThat(goodItems.error).isNull();
    }
}
