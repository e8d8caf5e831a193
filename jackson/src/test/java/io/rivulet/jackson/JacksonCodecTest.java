package io.rivulet.jackson;

import io.rivulet.serde.Codec;
import io.rivulet.serde.CodecException;
import io.rivulet.serde.Codecs;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JacksonCodecTest
{
    record Quote(String symbol, double bid, double ask, List<Integer> sizes)
    {
    }

    private final JacksonCodec codec = new JacksonCodec();

    @Test
    void shouldRoundTripARecordAtAnOffset()
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(8);
        final Quote quote = new Quote("EURUSD", 1.1, 1.2, List.of(1, 2));

        final int length = codec.encode(quote, buffer, 5);

        assertThat(buffer.getStringWithoutLengthUtf8(5, length)).contains("\"symbol\":\"EURUSD\"");
        assertThat(codec.decode(buffer, 5, length, Quote.class)).isEqualTo(quote);
    }

    @Test
    void shouldBeFoundOnTheClassPathAfterTheBuiltIns()
    {
        final Codecs codecs = Codecs.defaults();

        assertThat(codecs.forType(Quote.class)).isInstanceOf(JacksonCodec.class);
        assertThat(codecs.forType(String.class)).isSameAs(Codecs.text());
        assertThat(codecs.find(JacksonCodec.CONTENT_TYPE, String.class)).isInstanceOf(JacksonCodec.class);
    }

    @Test
    void shouldFailClearlyOnHostileJson()
    {
        assertBad("{\"symbol\": \"EURUSD\", \"bid\": ", "Unexpected end-of-input");
        assertBad("{\"symbol\": \"A\"} {\"symbol\": \"B\"}", "Trailing token");
        assertBad("[".repeat(JacksonCodec.MAX_NESTING_DEPTH + 1), Object.class, "nesting depth");
        assertBad("{\"bid\": " + "9".repeat(JacksonCodec.MAX_NUMBER_LENGTH + 1) + "}", "Number value length");
        assertBad("{\"sizes\": \"not a list\"}", "Quote");
        assertBad("\u0000\u0001", "Quote");
    }

    private void assertBad(final String json, final String reason)
    {
        assertBad(json, Quote.class, reason);
    }

    private void assertBad(final String json, final Class<?> type, final String reason)
    {
        final byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        final Codec<Object> json3 = codec;
        assertThatThrownBy(() -> json3.decode(new UnsafeBuffer(bytes), 0, bytes.length, type))
            .isInstanceOf(CodecException.class).hasMessageContaining(type.getName())
            .hasMessageContaining(reason);
    }
}
