package io.rivulet.samples.marketdata;

import io.rivulet.topic.KeyExtractor;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * The sample's two market-data messages, laid out as SBE messages (standard 8-byte message header, then a
 * fixed block, little-endian), with flyweight encoders and decoders in the style of SBE's generated code:
 *
 * <pre>
 *   &lt;sbe:messageSchema package="io.rivulet.samples.marketdata" id="7702" version="1" byteOrder="littleEndian"&gt;
 *     &lt;sbe:message name="Quote" id="1"&gt;                          block 40 bytes
 *       &lt;field name="instrumentId" id="1" type="int64"/&gt;         offset  0
 *       &lt;field name="sendTimeNs"   id="2" type="int64"/&gt;         offset  8
 *       &lt;field name="bid"          id="3" type="int64"/&gt;         offset 16   price in millionths
 *       &lt;field name="ask"          id="4" type="int64"/&gt;         offset 24
 *       &lt;field name="bidSize"      id="5" type="int32"/&gt;         offset 32
 *       &lt;field name="askSize"      id="6" type="int32"/&gt;         offset 36
 *     &lt;/sbe:message&gt;
 *     &lt;sbe:message name="Trade" id="2"&gt;                          block 32 bytes
 *       &lt;field name="instrumentId" id="1" type="int64"/&gt;         offset  0
 *       &lt;field name="sendTimeNs"   id="2" type="int64"/&gt;         offset  8
 *       &lt;field name="price"        id="3" type="int64"/&gt;         offset 16   price in millionths
 *       &lt;field name="quantity"     id="4" type="int32"/&gt;         offset 24
 *       &lt;field name="side"         id="5" type="uint8"/&gt;         offset 28   0 buy, 1 sell
 *     &lt;/sbe:message&gt;
 *   &lt;/sbe:messageSchema&gt;
 * </pre>
 *
 * The flyweights are written by hand here because the samples module does not run the SBE tool; the
 * bytes are what SBE's generated codecs read and write for the schema above. A publisher encodes them
 * straight into a claimed slot of the topic's log ({@code Publication.tryClaim}).
 *
 * <p>Flyweights are not thread-safe; use one per thread.
 */
final class MarketDataCodecs
{
    static final int SCHEMA_ID = 7702;
    static final int SCHEMA_VERSION = 1;
    static final int HEADER_LENGTH = 8;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    /** Both messages start their block with the instrument id: the key of every market-data topic. */
    static final KeyExtractor INSTRUMENT = (buffer, offset, length) -> buffer.getLong(offset + HEADER_LENGTH, ORDER);

    private MarketDataCodecs()
    {
    }

    /** @return the template id of an encoded message, after checking its header. */
    static int templateId(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < HEADER_LENGTH || (buffer.getShort(offset + 4, ORDER) & 0xFFFF) != SCHEMA_ID)
        {
            return -1;
        }
        final int blockLength = buffer.getShort(offset, ORDER) & 0xFFFF;
        final int templateId = buffer.getShort(offset + 2, ORDER) & 0xFFFF;
        final int required = templateId == Quote.TEMPLATE_ID ? Quote.BLOCK_LENGTH :
            templateId == Trade.TEMPLATE_ID ? Trade.BLOCK_LENGTH : Integer.MAX_VALUE;
        return blockLength >= required && length >= HEADER_LENGTH + blockLength ? templateId : -1;
    }

    private static void header(final MutableDirectBuffer buffer, final int offset, final int blockLength,
        final int templateId)
    {
        buffer.putShort(offset, (short)blockLength, ORDER);
        buffer.putShort(offset + 2, (short)templateId, ORDER);
        buffer.putShort(offset + 4, (short)SCHEMA_ID, ORDER);
        buffer.putShort(offset + 6, (short)SCHEMA_VERSION, ORDER);
    }

    /** A quote: best bid and ask of one instrument. */
    static final class Quote
    {
        static final int TEMPLATE_ID = 1;
        static final int BLOCK_LENGTH = 40;
        static final int ENCODED_LENGTH = HEADER_LENGTH + BLOCK_LENGTH;

        private MutableDirectBuffer buffer;
        private DirectBuffer readBuffer;
        private int offset;

        /** Writes the header and points the encoder at the block. */
        Quote wrapForEncode(final MutableDirectBuffer buffer, final int offset)
        {
            header(buffer, offset, BLOCK_LENGTH, TEMPLATE_ID);
            this.buffer = buffer;
            this.readBuffer = buffer;
            this.offset = offset + HEADER_LENGTH;
            return this;
        }

        /** Points the decoder at a message whose header {@link #templateId} checked. */
        Quote wrapForDecode(final DirectBuffer buffer, final int offset)
        {
            this.readBuffer = buffer;
            this.offset = offset + HEADER_LENGTH;
            return this;
        }

        Quote instrumentId(final long value)
        {
            buffer.putLong(offset, value, ORDER);
            return this;
        }

        Quote sendTimeNs(final long value)
        {
            buffer.putLong(offset + 8, value, ORDER);
            return this;
        }

        Quote bid(final long value)
        {
            buffer.putLong(offset + 16, value, ORDER);
            return this;
        }

        Quote ask(final long value)
        {
            buffer.putLong(offset + 24, value, ORDER);
            return this;
        }

        Quote bidSize(final int value)
        {
            buffer.putInt(offset + 32, value, ORDER);
            return this;
        }

        Quote askSize(final int value)
        {
            buffer.putInt(offset + 36, value, ORDER);
            return this;
        }

        long instrumentId()
        {
            return readBuffer.getLong(offset, ORDER);
        }

        long sendTimeNs()
        {
            return readBuffer.getLong(offset + 8, ORDER);
        }

        long bid()
        {
            return readBuffer.getLong(offset + 16, ORDER);
        }

        long ask()
        {
            return readBuffer.getLong(offset + 24, ORDER);
        }
    }

    /** A trade: one execution on one instrument. */
    static final class Trade
    {
        static final int TEMPLATE_ID = 2;
        static final int BLOCK_LENGTH = 32;
        static final int ENCODED_LENGTH = HEADER_LENGTH + BLOCK_LENGTH;

        private MutableDirectBuffer buffer;
        private DirectBuffer readBuffer;
        private int offset;

        Trade wrapForEncode(final MutableDirectBuffer buffer, final int offset)
        {
            header(buffer, offset, BLOCK_LENGTH, TEMPLATE_ID);
            this.buffer = buffer;
            this.readBuffer = buffer;
            this.offset = offset + HEADER_LENGTH;
            buffer.setMemory(this.offset + 29, 3, (byte)0);
            return this;
        }

        Trade wrapForDecode(final DirectBuffer buffer, final int offset)
        {
            this.readBuffer = buffer;
            this.offset = offset + HEADER_LENGTH;
            return this;
        }

        Trade instrumentId(final long value)
        {
            buffer.putLong(offset, value, ORDER);
            return this;
        }

        Trade sendTimeNs(final long value)
        {
            buffer.putLong(offset + 8, value, ORDER);
            return this;
        }

        Trade price(final long value)
        {
            buffer.putLong(offset + 16, value, ORDER);
            return this;
        }

        Trade quantity(final int value)
        {
            buffer.putInt(offset + 24, value, ORDER);
            return this;
        }

        Trade side(final int value)
        {
            buffer.putByte(offset + 28, (byte)value);
            return this;
        }

        long instrumentId()
        {
            return readBuffer.getLong(offset, ORDER);
        }

        long sendTimeNs()
        {
            return readBuffer.getLong(offset + 8, ORDER);
        }

        long price()
        {
            return readBuffer.getLong(offset + 16, ORDER);
        }
    }
}
