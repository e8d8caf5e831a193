package io.rivulet.actors;

import io.rivulet.actors.sample.wire.QuoteDecoder;
import io.rivulet.actors.sample.wire.QuoteEncoder;
import io.rivulet.actors.sample.wire.QuoteRequestDecoder;
import io.rivulet.actors.sample.wire.QuoteRequestEncoder;
import io.rivulet.serde.Codec;
import io.rivulet.serde.SbeCodec;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Messages of the actor tests: {@link Tick} with a hand-written codec (the pluggable path) and the
 * pricing sample's {@link QuoteRequest}/{@link Quote} through {@link SbeCodec} (the SBE path).
 */
final class TestMessages
{
    /** A sequenced message from one sender. */
    record Tick(int sender, long sequence)
    {
    }

    /** Ask for a quote. */
    record QuoteRequest(String symbol)
    {
    }

    /** A quote. */
    record Quote(String symbol, long sequence, long bid, long ask)
    {
    }

    static final Codec<Tick> TICK_CODEC = new Codec<>()
    {
        @Override
        public String contentType()
        {
            return "application/x-tick";
        }

        @Override
        public Class<Tick> type()
        {
            return Tick.class;
        }

        @Override
        public int encode(final Tick message, final MutableDirectBuffer buffer, final int offset)
        {
            buffer.putInt(offset, message.sender(), ByteOrder.LITTLE_ENDIAN);
            buffer.putLong(offset + 4, message.sequence(), ByteOrder.LITTLE_ENDIAN);
            return 12;
        }

        @Override
        public <R extends Tick> R decode(final DirectBuffer buffer, final int offset, final int length,
            final Class<R> type)
        {
            if (length != 12)
            {
                throw new IllegalArgumentException("a Tick is 12 bytes, got " + length);
            }
            return type.cast(new Tick(buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN),
                buffer.getLong(offset + 4, ByteOrder.LITTLE_ENDIAN)));
        }
    };

    static final CodecBinding<Tick> TICKS = new CodecBinding<>(200, Tick.class, TICK_CODEC);

    static final Codec<QuoteRequest> QUOTE_REQUEST_CODEC = SbeCodec.of(QuoteRequest.class,
        QuoteRequestEncoder::new, QuoteRequestDecoder::new,
        (request, encoder) -> encoder.symbol(request.symbol()),
        decoder -> new QuoteRequest(decoder.symbol()));

    static final Codec<Quote> QUOTE_CODEC = SbeCodec.of(Quote.class,
        QuoteEncoder::new, QuoteDecoder::new,
        (quote, encoder) -> encoder.symbol(quote.symbol()).sequence(quote.sequence()).bid(quote.bid()).ask(quote.ask()),
        decoder -> new Quote(decoder.symbol(), decoder.sequence(), decoder.bid(), decoder.ask()));

    static final CodecBinding<QuoteRequest> QUOTE_REQUESTS = new CodecBinding<>(201, QuoteRequest.class,
        QUOTE_REQUEST_CODEC);
    static final CodecBinding<Quote> QUOTES = new CodecBinding<>(202, Quote.class, QUOTE_CODEC);

    private TestMessages()
    {
    }

    /** @return a context registering the test codecs. */
    static ActorSystem.Context context()
    {
        return new ActorSystem.Context()
            .dispatcherThreads(2)
            .codec(200, Tick.class, TICK_CODEC)
            .codec(201, QuoteRequest.class, QUOTE_REQUEST_CODEC)
            .codec(202, Quote.class, QUOTE_CODEC);
    }
}
