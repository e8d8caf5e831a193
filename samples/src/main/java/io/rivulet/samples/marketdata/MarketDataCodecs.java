package io.rivulet.samples.marketdata;

import io.rivulet.samples.marketdata.sbe.MessageHeaderDecoder;
import io.rivulet.samples.marketdata.sbe.MessageHeaderEncoder;
import io.rivulet.samples.marketdata.sbe.QuoteDecoder;
import io.rivulet.samples.marketdata.sbe.QuoteEncoder;
import io.rivulet.samples.marketdata.sbe.TradeDecoder;
import io.rivulet.samples.marketdata.sbe.TradeEncoder;
import io.rivulet.topic.KeyExtractor;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A thin helper over the sample's SBE codecs. The Quote and Trade messages are defined by the schema
 * {@code samples/src/main/resources/sbe/market-data.xml} (id 7702, version 1, little-endian, standard 8-byte
 * message header); sbe-tool generates their flyweights into {@code io.rivulet.samples.marketdata.sbe} during
 * the build's {@code generate-sources} phase ({@code samples/pom.xml}), so the codecs are not in the source tree.
 *
 * <p>This class adds what the sample needs around them: the topic key (the instrument id, the first field of
 * both blocks), the encoded lengths to claim in a topic's log, and a decoder that checks an untrusted frame's
 * header and length before wrapping the matching generated decoder.
 *
 * <p>Encoders and decoders are flyweights and not thread-safe; use one of each per thread.
 */
final class MarketDataCodecs
{
    static final int SCHEMA_ID = MessageHeaderDecoder.SCHEMA_ID;
    static final int HEADER_LENGTH = MessageHeaderDecoder.ENCODED_LENGTH;
    /** What a publisher claims for one Quote: header and block. */
    static final int QUOTE_LENGTH = HEADER_LENGTH + QuoteEncoder.BLOCK_LENGTH;
    /** What a publisher claims for one Trade: header and block. */
    static final int TRADE_LENGTH = HEADER_LENGTH + TradeEncoder.BLOCK_LENGTH;

    /** The end of Trade's last field; the block is padded to {@link TradeEncoder#BLOCK_LENGTH}. */
    private static final int TRADE_USED = TradeEncoder.sideEncodingOffset() + TradeEncoder.sideEncodingLength();

    static
    {
        if (QuoteDecoder.instrumentIdEncodingOffset() != TradeDecoder.instrumentIdEncodingOffset())
        {
            throw new IllegalStateException("Quote and Trade must share the instrument id's offset: the topic key");
        }
    }

    /** Both messages start their block with the instrument id: the key of every market-data topic. */
    static final KeyExtractor INSTRUMENT = (buffer, offset, length) ->
        buffer.getLong(offset + HEADER_LENGTH + QuoteDecoder.instrumentIdEncodingOffset(), QuoteDecoder.BYTE_ORDER);

    private MarketDataCodecs()
    {
    }

    /** The publisher's side: header plus Quote or Trade encoder, written straight into a claimed slot. */
    static final class Encoders
    {
        private final MessageHeaderEncoder header = new MessageHeaderEncoder();
        private final QuoteEncoder quote = new QuoteEncoder();
        private final TradeEncoder trade = new TradeEncoder();

        /** Writes a Quote header at {@code offset}; {@link #QUOTE_LENGTH} bytes must be available there. */
        QuoteEncoder quote(final MutableDirectBuffer buffer, final int offset)
        {
            return quote.wrapAndApplyHeader(buffer, offset, header);
        }

        /** Writes a Trade header at {@code offset} and zeroes the block's padding; {@link #TRADE_LENGTH} bytes. */
        TradeEncoder trade(final MutableDirectBuffer buffer, final int offset)
        {
            buffer.setMemory(offset + HEADER_LENGTH + TRADE_USED, TradeEncoder.BLOCK_LENGTH - TRADE_USED, (byte)0);
            return trade.wrapAndApplyHeader(buffer, offset, header);
        }
    }

    /** The subscriber's side: checks a frame's header, then wraps the generated decoder of its template. */
    static final class Decoders
    {
        private final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final QuoteDecoder quote = new QuoteDecoder();
        final TradeDecoder trade = new TradeDecoder();

        /**
         * Checks the frame of {@code length} bytes at {@code offset} (schema id, a known template, a block at least
         * as long as this version's and within the frame) and wraps {@link #quote} or {@link #trade} over it.
         *
         * @return {@link QuoteDecoder#TEMPLATE_ID}, {@link TradeDecoder#TEMPLATE_ID}, or -1 if the frame is neither.
         */
        int wrap(final DirectBuffer buffer, final int offset, final int length)
        {
            if (length < HEADER_LENGTH)
            {
                return -1;
            }
            header.wrap(buffer, offset);
            if (header.schemaId() != SCHEMA_ID)
            {
                return -1;
            }
            final int templateId = header.templateId();
            final int blockLength = header.blockLength();
            final int required = templateId == QuoteDecoder.TEMPLATE_ID ? QuoteDecoder.BLOCK_LENGTH :
                templateId == TradeDecoder.TEMPLATE_ID ? TradeDecoder.BLOCK_LENGTH : Integer.MAX_VALUE;
            if (blockLength < required || length < HEADER_LENGTH + blockLength)
            {
                return -1;
            }
            if (templateId == QuoteDecoder.TEMPLATE_ID)
            {
                quote.wrap(buffer, offset + HEADER_LENGTH, blockLength, header.version());
            }
            else
            {
                trade.wrap(buffer, offset + HEADER_LENGTH, blockLength, header.version());
            }
            return templateId;
        }
    }
}
