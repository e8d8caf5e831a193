package io.rivulet.actors;

import io.rivulet.ConfigurationException;
import io.rivulet.actors.sample.wire.OrderAckDecoder;
import io.rivulet.actors.sample.wire.OrderAckEncoder;
import io.rivulet.actors.sample.wire.OrderStatus;
import io.rivulet.serde.Codec;
import io.rivulet.serde.CodecException;
import io.rivulet.serde.Codecs;
import io.rivulet.serde.SbeCodec;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** SBE and pluggable codecs, the registry of codec ids, and configuration checks. */
class SerializationTest
{
    record Ack(long orderId, OrderStatus status, String reason)
    {
    }

    private static final Codec<Ack> ACK_CODEC = SbeCodec.of(Ack.class, OrderAckEncoder::new, OrderAckDecoder::new,
        (ack, encoder) -> encoder.orderId(ack.orderId()).status(ack.status()).fillPrice(0).reason(ack.reason()),
        decoder -> new Ack(decoder.orderId(), decoder.status(), decoder.reason()));
    private static final CodecBinding<Ack> ACKS = new CodecBinding<>(300, Ack.class, ACK_CODEC);

    @Test
    void shouldRoundTripThroughSbe()
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(8);
        final Ack ack = new Ack(17, OrderStatus.REJECTED, "limit below the market");
        final int length = ACKS.encode(ack, buffer, 5);
        assertThat(ACKS.decode(buffer, 5, length)).isEqualTo(ack);

        final TestMessages.Quote quote = new TestMessages.Quote("EURUSD", 1, 10850, 10852);
        final int quoteLength = TestMessages.QUOTES.encode(quote, buffer, 0);
        assertThat(quoteLength).isEqualTo(SbeCodec.HEADER_LENGTH + 32);
        assertThat(TestMessages.QUOTES.decode(buffer, 0, quoteLength)).isEqualTo(quote);
    }

    @Test
    void shouldRejectBytesOfAnotherMessageOrTruncatedOrLying()
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(8);
        final int quoteLength = TestMessages.QUOTES.encode(new TestMessages.Quote("EURUSD", 1, 2, 3), buffer, 0);
        assertThatThrownBy(() -> ACKS.decode(buffer, 0, quoteLength))
            .isInstanceOf(CodecException.class).hasMessageContaining("template");
        assertThatThrownBy(() -> TestMessages.QUOTES.decode(buffer, 0, quoteLength - 1))
            .isInstanceOf(CodecException.class).hasMessageContaining("block length");
        assertThatThrownBy(() -> TestMessages.QUOTES.decode(buffer, 0, 3)).isInstanceOf(CodecException.class);

        final int ackLength = ACKS.encode(new Ack(1, OrderStatus.FILLED, "ok"), buffer, 0);
        final UnsafeBuffer lying = new UnsafeBuffer(new byte[ackLength]);
        lying.putBytes(0, buffer, 0, ackLength);
        lying.putInt(ackLength - 2 - 4, 1_000_000, ByteOrder.LITTLE_ENDIAN);
        assertThatThrownBy(() -> ACKS.decode(lying, 0, ackLength)).isInstanceOf(CodecException.class);
    }

    @Test
    void shouldChooseSerializersByClassAndId()
    {
        final CodecRegistry registry = new CodecRegistry(List.of(CodecBinding.STRING, ACKS));
        assertThat(registry.forMessage("text")).isSameAs(CodecBinding.STRING);
        assertThat(registry.forId(300)).isSameAs(ACKS);
        assertThatThrownBy(() -> registry.forMessage(42)).isInstanceOf(SerializationException.class)
            .hasMessageContaining("java.lang.Integer");
        assertThatThrownBy(() -> registry.forId(999)).isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> new CodecRegistry(List.of(ACKS, ACKS))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldNameTheBadSettingOfAContext()
    {
        assertThatThrownBy(() -> new ActorSystem.Context().dispatcherThreads(0).conclude())
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("dispatcherThreads");
        assertThatThrownBy(() -> new ActorSystem.Context().askTimeout(Duration.ZERO).conclude())
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("askTimeout");
        assertThatThrownBy(() -> new ActorSystem.Context().codec(1, String.class, Codecs.text()).conclude())
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("reserved");
        assertThatThrownBy(() -> new ActorSystem.Context().codec(300, Ack.class, ACK_CODEC)
            .codec(300, Ack.class, ACK_CODEC).conclude())
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("codec id 300");
        assertThatThrownBy(() -> new ActorSystem.Context().codec(301, Ack.class, Codecs.bytes()))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not support");
        assertThatThrownBy(() -> ActorOptions.defaults().mailbox(0, OverflowPolicy.REJECT))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldDoubleTheBackoffUpToItsMaximum()
    {
        final SupervisorStrategy strategy = SupervisorStrategy.restart()
            .withBackoff(Duration.ofMillis(10), Duration.ofMillis(100));
        assertThat(strategy.backoffNs(1)).isEqualTo(Duration.ofMillis(10).toNanos());
        assertThat(strategy.backoffNs(2)).isEqualTo(Duration.ofMillis(20).toNanos());
        assertThat(strategy.backoffNs(4)).isEqualTo(Duration.ofMillis(80).toNanos());
        assertThat(strategy.backoffNs(5)).isEqualTo(Duration.ofMillis(100).toNanos());
        assertThat(strategy.backoffNs(1000)).isEqualTo(Duration.ofMillis(100).toNanos());
        assertThat(SupervisorStrategy.restart().backoffNs(3)).isZero();
        assertThatThrownBy(() -> SupervisorStrategy.stop().withLimit(1, Duration.ofSeconds(1)))
            .isInstanceOf(IllegalStateException.class);
    }
}
