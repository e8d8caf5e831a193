package io.rivulet.actors;

import io.rivulet.actors.sample.wire.QuoteDecoder;
import io.rivulet.actors.sample.wire.QuoteEncoder;
import io.rivulet.actors.sample.wire.QuoteRequestDecoder;
import io.rivulet.actors.sample.wire.QuoteRequestEncoder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Messages of the actor tests: {@link Tick} with a hand-written serializer (the pluggable path) and the
 * pricing sample's {@link QuoteRequest}/{@link Quote} through {@link SbeSerializer} (the SBE path).
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

    static final Serializer<Tick> TICKS = new Serializer<>()
    {
        @Override
        public int id()
        {
            return 200;
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
        public Tick decode(final DirectBuffer buffer, final int offset, final int length)
        {
            if (length != 12)
            {
                throw new IllegalArgumentException("a Tick is 12 bytes, got " + length);
            }
            return new Tick(buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN), buffer.getLong(offset + 4, ByteOrder.LITTLE_ENDIAN));
        }
    };

    static final Serializer<QuoteRequest> QUOTE_REQUESTS = SbeSerializer.of(201, QuoteRequest.class,
        QuoteRequestEncoder::new, QuoteRequestDecoder::new,
        (request, encoder) -> encoder.symbol(request.symbol()),
        decoder -> new QuoteRequest(decoder.symbol()));

    static final Serializer<Quote> QUOTES = SbeSerializer.of(202, Quote.class,
        QuoteEncoder::new, QuoteDecoder::new,
        (quote, encoder) -> encoder.symbol(quote.symbol()).sequence(quote.sequence()).bid(quote.bid()).ask(quote.ask()),
        decoder -> new Quote(decoder.symbol(), decoder.sequence(), decoder.bid(), decoder.ask()));

    private TestMessages()
    {
    }

    /** @return a context registering the test serializers. */
    static ActorSystem.Context context()
    {
        return new ActorSystem.Context()
            .dispatcherThreads(2)
            .serializer(TICKS)
            .serializer(QUOTE_REQUESTS)
            .serializer(QUOTES);
    }
}
