package io.rivulet.actors;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.sbe.MessageDecoderFlyweight;
import org.agrona.sbe.MessageEncoderFlyweight;

import java.nio.ByteOrder;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A {@link Serializer} that writes a type as one SBE message, header included, through flyweights generated
 * by SBE's tool: typed messages with a schema, versioned and cheap to encode.
 *
 * <pre>{@code
 * Serializer<Quote> quotes = SbeSerializer.of(101, Quote.class, QuoteEncoder::new, QuoteDecoder::new,
 *     (quote, encoder) -> encoder.bid(quote.bid()).ask(quote.ask()),
 *     decoder -> new Quote(decoder.bid(), decoder.ask()));
 * }</pre>
 *
 * <p>Decoding checks the header (schema id, template id, block length) against the bytes and reads through a
 * view bounded to them, so malformed input fails with an exception instead of reading past the message.
 *
 * <p>Thread-safe: each thread gets its own flyweights.
 *
 * @param <T> the type serialized.
 * @param <E> the SBE encoder.
 * @param <D> the SBE decoder.
 */
public final class SbeSerializer<T, E extends MessageEncoderFlyweight, D extends MessageDecoderFlyweight>
    implements Serializer<T>
{
    /** Length of the standard SBE message header. */
    public static final int HEADER_LENGTH = 8;

    private final int id;
    private final Class<T> type;
    private final BiConsumer<? super T, ? super E> writer;
    private final Function<? super D, ? extends T> reader;
    private final ThreadLocal<E> encoders;
    private final ThreadLocal<D> decoders;
    private static final byte[] EMPTY = new byte[0];

    private final ThreadLocal<UnsafeBuffer> views = ThreadLocal.withInitial(() -> new UnsafeBuffer(EMPTY));
    private final int templateId;
    private final int schemaId;
    private final int blockLength;
    private final int version;

    private SbeSerializer(
        final int id,
        final Class<T> type,
        final Supplier<E> encoder,
        final Supplier<D> decoder,
        final BiConsumer<? super T, ? super E> writer,
        final Function<? super D, ? extends T> reader)
    {
        this.id = id;
        this.type = Objects.requireNonNull(type, "type");
        this.writer = Objects.requireNonNull(writer, "writer");
        this.reader = Objects.requireNonNull(reader, "reader");
        this.encoders = ThreadLocal.withInitial(encoder);
        this.decoders = ThreadLocal.withInitial(decoder);
        final E sample = encoder.get();
        final D sampleDecoder = decoder.get();
        this.templateId = sample.sbeTemplateId();
        this.schemaId = sample.sbeSchemaId();
        this.blockLength = sample.sbeBlockLength();
        this.version = sample.sbeSchemaVersion();
        if (sampleDecoder.sbeTemplateId() != templateId || sampleDecoder.sbeSchemaId() != schemaId)
        {
            throw new IllegalArgumentException("encoder and decoder are of different SBE messages");
        }
    }

    /**
     * @param id      the serializer id, unique in the actor system (see {@link Serializer#id()}).
     * @param type    the type serialized.
     * @param encoder makes an encoder flyweight (one per thread).
     * @param decoder makes a decoder flyweight (one per thread).
     * @param writer  sets the encoder's fields from a message.
     * @param reader  makes a message from the decoder's fields.
     * @return the serializer.
     */
    public static <T, E extends MessageEncoderFlyweight, D extends MessageDecoderFlyweight> SbeSerializer<T, E, D> of(
        final int id,
        final Class<T> type,
        final Supplier<E> encoder,
        final Supplier<D> decoder,
        final BiConsumer<? super T, ? super E> writer,
        final Function<? super D, ? extends T> reader)
    {
        return new SbeSerializer<>(id, type, encoder, decoder, writer, reader);
    }

    @Override
    public int id()
    {
        return id;
    }

    @Override
    public Class<T> type()
    {
        return type;
    }

    @Override
    public int encode(final T message, final MutableDirectBuffer buffer, final int offset)
    {
        buffer.putShort(offset, (short)blockLength, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(offset + 2, (short)templateId, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(offset + 4, (short)schemaId, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(offset + 6, (short)version, ByteOrder.LITTLE_ENDIAN);
        final E encoder = encoders.get();
        encoder.wrap(buffer, offset + HEADER_LENGTH);
        writer.accept(message, encoder);
        return HEADER_LENGTH + encoder.encodedLength();
    }

    @Override
    public T decode(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < HEADER_LENGTH)
        {
            throw new SerializationException(type.getSimpleName() + ": " + length + " bytes is shorter than an SBE header");
        }
        final int actualBlockLength = buffer.getShort(offset, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int actualTemplateId = buffer.getShort(offset + 2, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int actualSchemaId = buffer.getShort(offset + 4, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final int actualVersion = buffer.getShort(offset + 6, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        if (actualSchemaId != schemaId || actualTemplateId != templateId)
        {
            throw new SerializationException(type.getSimpleName() + ": expected SBE schema " + schemaId + " template " +
                templateId + ", got schema " + actualSchemaId + " template " + actualTemplateId);
        }
        if (actualBlockLength < blockLength || HEADER_LENGTH + actualBlockLength > length)
        {
            throw new SerializationException(type.getSimpleName() + ": block length " + actualBlockLength +
                " does not fit " + length + " bytes (needs at least " + blockLength + ")");
        }
        // Reads go through a view bounded to the message: a lying var-data length fails instead of overreading.
        final UnsafeBuffer view = views.get();
        view.wrap(buffer, offset, length);
        final D decoder = decoders.get();
        try
        {
            decoder.wrap(view, HEADER_LENGTH, actualBlockLength, actualVersion);
            return reader.apply(decoder);
        }
        catch (final IndexOutOfBoundsException ex)
        {
            throw new SerializationException(type.getSimpleName() + ": malformed SBE message: " + ex.getMessage(), ex);
        }
        finally
        {
            view.wrap(EMPTY);
        }
    }

    @Override
    public String toString()
    {
        return "SbeSerializer{id=" + id + ", type=" + type.getName() + ", schema=" + schemaId + ", template=" +
            templateId + "}";
    }
}
