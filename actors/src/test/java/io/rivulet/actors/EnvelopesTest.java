package io.rivulet.actors;

import io.rivulet.ProtocolViolationException;
import io.rivulet.actors.wire.ActorErrorCode;
import io.rivulet.actors.wire.RouteKind;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The actor envelopes: round trips, and untrusted bytes rejected before any field is read. */
class EnvelopesTest
{
    private final CodecRegistry serializers = new CodecRegistry(List.of(CodecBinding.STRING,
        CodecBinding.LONGS, TestMessages.TICKS, TestMessages.QUOTES));
    private final Envelopes.Reader reader = new Envelopes.Reader();

    @Test
    void shouldRoundTripEveryEnvelope()
    {
        final byte[] route = Envelopes.route(RouteKind.STREAM, 42, 7, "pricing");
        assertThat(reader.wrap(new UnsafeBuffer(route), 0, route.length)).isEqualTo(Envelopes.ROUTE);
        assertThat(reader.routeKind()).isEqualTo(RouteKind.STREAM);
        assertThat(reader.incarnation()).isEqualTo(42);
        assertThat(reader.correlationId()).isEqualTo(7);
        assertThat(reader.varText(Envelopes.MAX_NAME_LENGTH)).isEqualTo("pricing");

        final byte[] tell = Envelopes.tell(serializers, new TestMessages.Tick(3, 99));
        assertThat(reader.wrap(new UnsafeBuffer(tell), 0, tell.length)).isEqualTo(Envelopes.TELL);
        assertThat(reader.serializerId()).isEqualTo(TestMessages.TICKS.id());
        assertThat(TestMessages.TICKS.decode(new UnsafeBuffer(tell), reader.varOffset(), reader.varLength()))
            .isEqualTo(new TestMessages.Tick(3, 99));

        final TestMessages.Quote quote = new TestMessages.Quote("GBPUSD", 5, 1_2700, 1_2702);
        final byte[] ask = Envelopes.ask(serializers, 11, quote, true);
        assertThat(reader.wrap(new UnsafeBuffer(ask), 0, ask.length)).isEqualTo(Envelopes.ASK_STREAM);
        assertThat(reader.correlationId()).isEqualTo(11);
        assertThat(TestMessages.QUOTES.decode(new UnsafeBuffer(ask), reader.varOffset(), reader.varLength()))
            .isEqualTo(quote);

        final byte[] reply = Envelopes.reply(serializers, 12, 1234L);
        assertThat(reader.wrap(new UnsafeBuffer(reply), 0, reply.length)).isEqualTo(Envelopes.REPLY);
        assertThat(reader.correlationId()).isEqualTo(12);
        assertThat(CodecBinding.LONGS.decode(new UnsafeBuffer(reply), reader.varOffset(), reader.varLength()))
            .isEqualTo(1234L);

        final byte[] error = Envelopes.replyError(13, ActorErrorCode.REJECTED, "x".repeat(5000));
        assertThat(reader.wrap(new UnsafeBuffer(error), 0, error.length)).isEqualTo(Envelopes.REPLY_ERROR);
        assertThat(reader.errorCode()).isEqualTo(ActorErrorCode.REJECTED);
        assertThat(reader.varText(Envelopes.MAX_DETAIL_LENGTH)).hasSize(Envelopes.MAX_DETAIL_LENGTH);

        final byte[] ready = Envelopes.streamReady(14);
        assertThat(reader.wrap(new UnsafeBuffer(ready), 0, ready.length)).isEqualTo(Envelopes.STREAM_READY);
        assertThat(reader.correlationId()).isEqualTo(14);
    }

    @Test
    void shouldRejectMalformedEnvelopes()
    {
        final byte[] tell = Envelopes.tell(serializers, "hello");
        assertThatThrownBy(() -> reader.wrap(new UnsafeBuffer(tell), 0, 7))
            .isInstanceOf(ProtocolViolationException.class);
        assertThatThrownBy(() -> reader.wrap(new UnsafeBuffer(tell), 0, tell.length - 1))
            .isInstanceOf(ProtocolViolationException.class).hasMessageContaining("var data");

        final byte[] lying = tell.clone();
        new UnsafeBuffer(lying).putInt(Envelopes.HEADER_LENGTH + 4, Integer.MAX_VALUE, ByteOrder.LITTLE_ENDIAN);
        assertThatThrownBy(() -> reader.wrap(new UnsafeBuffer(lying), 0, lying.length))
            .isInstanceOf(ProtocolViolationException.class);

        final byte[] unknownTemplate = tell.clone();
        new UnsafeBuffer(unknownTemplate).putShort(2, (short)99, ByteOrder.LITTLE_ENDIAN);
        assertThatThrownBy(() -> reader.wrap(new UnsafeBuffer(unknownTemplate), 0, unknownTemplate.length))
            .isInstanceOf(ProtocolViolationException.class).hasMessageContaining("template");

        final byte[] otherSchema = tell.clone();
        new UnsafeBuffer(otherSchema).putShort(4, (short)7701, ByteOrder.LITTLE_ENDIAN);
        assertThatThrownBy(() -> reader.wrap(new UnsafeBuffer(otherSchema), 0, otherSchema.length))
            .isInstanceOf(ProtocolViolationException.class).hasMessageContaining("schema");

        final byte[] hugeBlock = tell.clone();
        new UnsafeBuffer(hugeBlock).putShort(0, (short)60000, ByteOrder.LITTLE_ENDIAN);
        assertThatThrownBy(() -> reader.wrap(new UnsafeBuffer(hugeBlock), 0, hugeBlock.length))
            .isInstanceOf(ProtocolViolationException.class).hasMessageContaining("block length");

        final byte[] route = Envelopes.route(RouteKind.CHANNEL, 1, 0, "n".repeat(300));
        reader.wrap(new UnsafeBuffer(route), 0, route.length);
        assertThatThrownBy(() -> reader.varText(Envelopes.MAX_NAME_LENGTH)).isInstanceOf(ProtocolViolationException.class);
    }

    @Test
    void shouldValidateBatchFraming()
    {
        final UnsafeBuffer batch = new UnsafeBuffer(new byte[64]);
        batch.putInt(0, 20, ByteOrder.LITTLE_ENDIAN);
        batch.putInt(24, 36, ByteOrder.LITTLE_ENDIAN);
        assertThat(Envelopes.countEntries(batch, 64)).isEqualTo(2);
        assertThat(Envelopes.countEntries(batch, 0)).isZero();
        assertThatThrownBy(() -> Envelopes.countEntries(batch, 63)).isInstanceOf(ProtocolViolationException.class);
        assertThatThrownBy(() -> Envelopes.countEntries(batch, 26)).isInstanceOf(ProtocolViolationException.class);
        batch.putInt(0, -1, ByteOrder.LITTLE_ENDIAN);
        assertThatThrownBy(() -> Envelopes.countEntries(batch, 64)).isInstanceOf(ProtocolViolationException.class);
    }

    @Test
    void shouldNeverReadOutOfBoundsOnRandomBytes()
    {
        final SplittableRandom random = new SplittableRandom(7702);
        final byte[] valid = Envelopes.ask(serializers, 1, "payload", false);
        int accepted = 0;
        for (int i = 0; i < 20_000; i++)
        {
            final byte[] bytes = random.nextInt(4) == 0 ? new byte[random.nextInt(64)] : valid.clone();
            if (random.nextBoolean())
            {
                for (int j = 0; j < bytes.length; j++)
                {
                    bytes[j] = (byte)random.nextInt(256);
                }
            }
            else if (bytes.length > 0)
            {
                bytes[random.nextInt(bytes.length)] = (byte)random.nextInt(256);
            }
            try
            {
                reader.wrap(new UnsafeBuffer(bytes), 0, bytes.length);
                assertThat(reader.varOffset() + reader.varLength()).isLessThanOrEqualTo(bytes.length);
                accepted++;
            }
            catch (final ProtocolViolationException expected)
            {
                // rejected before reading
            }
        }
        assertThat(accepted).isPositive();
    }
}
