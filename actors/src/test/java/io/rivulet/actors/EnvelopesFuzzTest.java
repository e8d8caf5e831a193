package io.rivulet.actors;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.rivulet.Message;
import io.rivulet.ProtocolViolationException;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes the actor layer's decoders of network bytes: a batch of length-prefixed envelopes
 * ({@link Envelopes#countEntries}), each envelope ({@link Envelopes.Reader#wrap}) and, for the envelopes that carry
 * a message, the serializer its id names (strings, longs, bytes, a hand-written and two SBE serializers), through
 * {@link Envelope.Remote#message}, as a node decodes a remote tell or ask.
 *
 * <p>The property: hostile bytes fail only with {@link ProtocolViolationException} or {@link SerializationException},
 * with a message, never with an index, null-pointer or other runtime exception; an accepted envelope's var data lies
 * inside it. Seeds: {@code src/test/resources/io/rivulet/actors/EnvelopesFuzzTestInputs/decode/} (valid batches of
 * every envelope type, see {@link #main}).
 */
class EnvelopesFuzzTest
{
    private final CodecRegistry serializers = new CodecRegistry(List.of(CodecBinding.STRING,
        CodecBinding.LONGS, CodecBinding.BYTES, TestMessages.TICKS, TestMessages.QUOTE_REQUESTS, TestMessages.QUOTES));
    private final Envelopes.Reader reader = new Envelopes.Reader();

    @FuzzTest(maxDuration = "2m")
    void decode(final byte[] input)
    {
        final Message message = Message.of(input);
        final UnsafeBuffer batch = new UnsafeBuffer(message.data(), 0, message.dataLength());
        final int entries;
        try
        {
            entries = Envelopes.countEntries(batch, input.length);
        }
        catch (final ProtocolViolationException ex)
        {
            assertThat(ex.getMessage()).isNotBlank();
            return;
        }
        assertThat(entries).isBetween(0, input.length / Envelopes.ENTRY_PREFIX);
        int offset = 0;
        for (int i = 0; i < entries; i++)
        {
            final int length = batch.getInt(offset, java.nio.ByteOrder.LITTLE_ENDIAN);
            decodeEnvelope(message, batch, offset + Envelopes.ENTRY_PREFIX, length);
            offset += Envelopes.ENTRY_PREFIX + length;
        }
        assertThat(offset).isEqualTo(input.length);
    }

    private void decodeEnvelope(final Message message, final UnsafeBuffer buffer, final int offset, final int length)
    {
        try
        {
            final int template = reader.wrap(buffer, offset, length);
            assertThat(reader.varOffset()).isBetween(offset, offset + length);
            assertThat((long)reader.varOffset() + reader.varLength()).isLessThanOrEqualTo(offset + length);
            reader.correlationId();
            switch (template)
            {
                case Envelopes.ROUTE:
                    reader.routeKind();
                    reader.incarnation();
                    assertThat(reader.varText(Envelopes.MAX_NAME_LENGTH)).isNotNull();
                    break;
                case Envelopes.REPLY_ERROR:
                    reader.errorCode();
                    assertThat(reader.varText(Envelopes.MAX_DETAIL_LENGTH)).isNotNull();
                    break;
                case Envelopes.TERMINATED:
                    reader.terminationReason();
                    assertThat(reader.varText(Envelopes.MAX_DETAIL_LENGTH)).isNotNull();
                    break;
                case Envelopes.TELL:
                case Envelopes.ASK:
                case Envelopes.ASK_STREAM:
                case Envelopes.REPLY:
                    // As the node decodes a remote message: a serializer may throw anything, the envelope reports it
                    // as a SerializationException naming the serializer.
                    assertThat(new Envelope.Remote(message, reader.varOffset(), reader.varLength(), reader.serializerId(),
                        null).message(serializers)).isNotNull();
                    break;
                default:
                    break;
            }
        }
        catch (final ProtocolViolationException | SerializationException ex)
        {
            assertThat(ex.getMessage()).isNotBlank();
        }
    }

    /**
     * Writes the seed corpus: one batch per envelope type and a batch of all of them. Run with the test class path
     * and the argument {@code actors/src/test/resources} to regenerate.
     */
    public static void main(final String[] args) throws java.io.IOException
    {
        final CodecRegistry registry = new EnvelopesFuzzTest().serializers;
        final java.nio.file.Path directory = java.nio.file.Files.createDirectories(
            java.nio.file.Path.of(args[0], "io/rivulet/actors/EnvelopesFuzzTestInputs/decode"));
        final byte[][] envelopes = {
            Envelopes.route(io.rivulet.actors.wire.RouteKind.CHANNEL, 42, 7, "pricing"),
            Envelopes.tell(registry, new TestMessages.Tick(3, 99)),
            Envelopes.tell(registry, "hello"),
            Envelopes.ask(registry, 11, new TestMessages.Quote("GBPUSD", 5, 1_2700, 1_2702), true),
            Envelopes.ask(registry, 12, 1234L, false),
            Envelopes.reply(registry, 13, new byte[] { 1, 2, 3 }),
            Envelopes.replyError(14, io.rivulet.actors.wire.ActorErrorCode.REJECTED, "no"),
            Envelopes.streamReady(15),
            Envelopes.terminated(io.rivulet.actors.wire.TerminationReason.values()[0], "stopped"),
        };
        final java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < envelopes.length; i++)
        {
            final byte[] entry = entry(envelopes[i]);
            java.nio.file.Files.write(directory.resolve("envelope-" + i), entry);
            all.write(entry, 0, entry.length);
        }
        java.nio.file.Files.write(directory.resolve("batch-of-all"), all.toByteArray());
    }

    private static byte[] entry(final byte[] envelope)
    {
        final byte[] entry = new byte[Envelopes.ENTRY_PREFIX + envelope.length];
        new UnsafeBuffer(entry).putInt(0, envelope.length, java.nio.ByteOrder.LITTLE_ENDIAN);
        System.arraycopy(envelope, 0, entry, Envelopes.ENTRY_PREFIX, envelope.length);
        return entry;
    }
}
