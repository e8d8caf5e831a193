package io.rivulet.serde;

import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.codec.wire.ErrorDecoder;
import io.rivulet.codec.wire.ErrorEncoder;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CodecsTest
{
    /** A value an SBE codec writes through generated flyweights (the wire codec's ERROR body, for the test). */
    record Failure(ErrorCode code, String text)
    {
    }

    private static final Codec<Failure> FAILURES = SbeCodec.of(Failure.class, ErrorEncoder::new, ErrorDecoder::new,
        (failure, encoder) -> encoder.code(failure.code()).message(failure.text()),
        decoder -> new Failure(decoder.code(), decoder.message()));

    @Test
    void shouldRoundTripRawBytesAndBuffers()
    {
        final Codec<Object> bytes = Codecs.bytes();
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(4);
        final int length = bytes.encode(new byte[]{1, 2, 3, 4, 5, 6, 7, 8, 9}, buffer, 3);

        assertThat(length).isEqualTo(9);
        assertThat(bytes.decode(buffer, 3, length, byte[].class)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9);
        final DirectBuffer copy = bytes.decode(buffer, 4, 2, DirectBuffer.class);
        assertThat(copy.capacity()).isEqualTo(2);
        assertThat(copy.getByte(0)).isEqualTo((byte)2);
        assertThat(bytes.supports(byte[].class)).isTrue();
        assertThat(bytes.supports(DirectBuffer.class)).isTrue();
        assertThat(bytes.supports(String.class)).isFalse();
    }

    @Test
    void shouldRoundTripTextAndRefuseInvalidUtf8()
    {
        final Codec<String> text = Codecs.text();
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(4);
        final int length = text.encode("grüße", buffer, 0);

        assertThat(text.decode(buffer, 0, length, String.class)).isEqualTo("grüße");
        final UnsafeBuffer invalid = new UnsafeBuffer(new byte[]{'a', (byte)0xC3});
        assertThatThrownBy(() -> text.decode(invalid, 0, 2, String.class)).isInstanceOf(CodecException.class)
            .hasMessageContaining("not valid UTF-8");
    }

    @Test
    void shouldRoundTripSbeAndRefuseAnotherMessageOrTruncatedBytes()
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(8);
        final int length = FAILURES.encode(new Failure(ErrorCode.REJECTED, "no"), buffer, 0);

        assertThat(FAILURES.contentType()).isEqualTo(SbeCodec.CONTENT_TYPE);
        assertThat(FAILURES.decode(buffer, 0, length, Failure.class)).isEqualTo(new Failure(ErrorCode.REJECTED, "no"));
        assertThatThrownBy(() -> FAILURES.decode(buffer, 0, 5, Failure.class)).isInstanceOf(CodecException.class)
            .hasMessageContaining("shorter than an SBE header");
        assertThatThrownBy(() -> FAILURES.decode(buffer, 0, length - 1, Failure.class))
            .isInstanceOf(CodecException.class).hasMessageContaining("malformed SBE message");
        buffer.putShort(2, (short)999, java.nio.ByteOrder.LITTLE_ENDIAN);
        assertThatThrownBy(() -> FAILURES.decode(buffer, 0, length, Failure.class)).isInstanceOf(CodecException.class)
            .hasMessageContaining("template 999");
    }

    @Test
    void shouldTryRegisteredCodecsBeforeTheBuiltInsAndFindByContentType()
    {
        final Codec<String> shouting = new Codec<>()
        {
            @Override
            public String contentType()
            {
                return "text/shouting";
            }

            @Override
            public Class<String> type()
            {
                return String.class;
            }

            @Override
            public int encode(final String value, final MutableDirectBuffer buffer, final int offset)
            {
                return buffer.putStringWithoutLengthUtf8(offset, value.toUpperCase());
            }

            @Override
            public <R extends String> R decode(
                final DirectBuffer buffer, final int offset, final int length, final Class<R> type)
            {
                return type.cast(buffer.getStringWithoutLengthUtf8(offset, length));
            }
        };
        final Codecs defaults = Codecs.defaults();
        final Codecs codecs = Codecs.of(List.of(shouting, FAILURES));

        assertThat(defaults.forType(String.class)).isSameAs(Codecs.text());
        assertThat(defaults.forType(byte[].class)).isSameAs(Codecs.bytes());
        assertThat(codecs.forType(String.class)).isSameAs(shouting);
        assertThat(codecs.find(TextCodec.CONTENT_TYPE, String.class)).isSameAs(Codecs.text());
        assertThat(codecs.find(null, Failure.class)).isSameAs(FAILURES);
        assertThat(codecs.find(SbeCodec.CONTENT_TYPE, Failure.class)).isSameAs(FAILURES);
        assertThatThrownBy(() -> defaults.forType(Failure.class)).isInstanceOf(CodecException.class)
            .hasMessageContaining(Failure.class.getName()).hasMessageContaining("Rivulet.Context.codecs");
        assertThatThrownBy(() -> codecs.find("application/x-unknown", String.class))
            .isInstanceOf(CodecException.class).hasMessageContaining("application/x-unknown")
            .hasMessageContaining("text/shouting");
    }
}
