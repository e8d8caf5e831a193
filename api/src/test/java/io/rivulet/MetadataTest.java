package io.rivulet;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MetadataTest
{
    @Test
    void shouldRoundTripEntriesInOrder()
    {
        final Metadata metadata = Metadata.route("price")
            .with(Metadata.CONTENT_TYPE, "application/json")
            .with("blob", new byte[]{ 0, -1, 7 });

        final byte[] bytes = metadata.encode();
        final Metadata decoded = Metadata.decode(new UnsafeBuffer(bytes), 0, bytes.length);

        assertThat(bytes).hasSize(metadata.encodedLength());
        assertThat(decoded).isEqualTo(metadata);
        assertThat(decoded.keys()).containsExactly("route", "content-type", "blob");
        assertThat(decoded.route()).isEqualTo("price");
        assertThat(decoded.get(Metadata.CONTENT_TYPE)).isEqualTo("application/json");
        assertThat(decoded.bytes("blob")).containsExactly(0, -1, 7);
        assertThat(decoded.get("missing")).isNull();
        assertThat(decoded.toString()).isEqualTo("Metadata{route=price, content-type=application/json, blob=\0\uFFFD\7}");
    }

    @Test
    void shouldDecodeAtAnOffsetWithinALargerBuffer()
    {
        final Metadata metadata = Metadata.route("a.b").with(Metadata.TRACEPARENT, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[200]);
        buffer.setMemory(0, 200, (byte)'x');
        final int length = metadata.encode(buffer, 17);

        assertThat(Metadata.isComposite(buffer, 17, length)).isTrue();
        assertThat(Metadata.decode(buffer, 17, length)).isEqualTo(metadata);
    }

    @Test
    void shouldReplaceAndRemoveEntriesWithoutChangingTheOriginal()
    {
        final Metadata original = Metadata.route("a");
        final Metadata changed = original.with(Metadata.ROUTE, "b").with("x", "1");

        assertThat(original.route()).isEqualTo("a");
        assertThat(changed.route()).isEqualTo("b");
        assertThat(changed.keys()).containsExactly("route", "x");
        assertThat(changed.without("route").keys()).containsExactly("x");
        assertThat(changed.without("nothing")).isSameAs(changed);
        assertThat(Metadata.empty().isEmpty()).isTrue();
        assertThat(Metadata.empty().encode()).containsExactly('R', 'M', 1);
    }

    @Test
    void shouldReadAMessagesMetadata()
    {
        assertThat(Metadata.of(Message.of("data"))).isEqualTo(Metadata.empty());
        assertThat(Metadata.of(Message.of("data").metadata(Metadata.route("r").encode())).route()).isEqualTo("r");
        assertThatThrownBy(() -> Metadata.of(Message.of("data").metadata("a raw token")))
            .isInstanceOf(MalformedMetadataException.class)
            .isInstanceOf(ProtocolViolationException.class)
            .hasMessageContaining("not composite metadata");
    }

    @Test
    void shouldRefuseKeysThatCannotBeWritten()
    {
        assertThatThrownBy(() -> Metadata.empty().with("", "v")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Metadata.empty().with("a b", "v")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Metadata.empty().with("ключ", "v")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Metadata.empty().with("k".repeat(65), "v"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1..64");
    }

    @Test
    void shouldRejectMalformedBytesSayingWhatAndWhere()
    {
        assertMalformed(new byte[]{ 'R' }, "not composite metadata");
        assertMalformed(new byte[]{ 'R', 'M', 2 }, "version 2 is not supported");
        assertMalformed(new byte[]{ 'R', 'M', 1, 0 }, "at byte 3: key length 0");
        assertMalformed(new byte[]{ 'R', 'M', 1, 65 }, "at byte 3: key length 65");
        assertMalformed(new byte[]{ 'R', 'M', 1, 2, 'a' }, "at byte 3: entry truncated");
        assertMalformed(new byte[]{ 'R', 'M', 1, 1, '\n', 0, 0, 0, 0 }, "at byte 3: key holds byte 0xa");

        final byte[] longValue = entry("k", 5, 4);
        assertMalformed(longValue, "value of 'k' is 5 bytes, 4 remain");
        final byte[] negative = entry("k", -1, 0);
        assertMalformed(negative, "value of 'k' is -1 bytes");

        final byte[] one = Metadata.route("a").encode();
        final byte[] twice = new byte[one.length * 2 - 3];
        System.arraycopy(one, 0, twice, 0, one.length);
        System.arraycopy(one, 3, twice, one.length, one.length - 3);
        assertMalformed(twice, "key 'route' appears twice");
    }

    private static byte[] entry(final String key, final int declaredLength, final int actualLength)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[3 + 1 + key.length() + 4 + actualLength]);
        buffer.putBytes(0, new byte[]{ 'R', 'M', 1, (byte)key.length() });
        buffer.putBytes(4, key.getBytes(StandardCharsets.US_ASCII));
        buffer.putInt(4 + key.length(), declaredLength, ByteOrder.LITTLE_ENDIAN);
        return buffer.byteArray();
    }

    private static void assertMalformed(final byte[] bytes, final String message)
    {
        assertThat(Metadata.isComposite(new UnsafeBuffer(bytes), 0, bytes.length))
            .isEqualTo(bytes.length >= 3 && bytes[0] == 'R' && bytes[1] == 'M' && bytes[2] == 1);
        assertThatThrownBy(() -> Metadata.decode(new UnsafeBuffer(bytes), 0, bytes.length))
            .isInstanceOf(MalformedMetadataException.class)
            .hasMessageContaining(message);
    }
}
