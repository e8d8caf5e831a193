package io.rivulet.actors;

import io.rivulet.Message;

/**
 * A mailbox entry that is more than a plain local tell: a message with a way back to its asker, or one still
 * in its wire form (decoded on the actor's thread, not the engine's). Local tells enter the mailbox as the
 * bare message object.
 *
 * <p>Immutable; handed from the enqueuing thread to the actor's thread through the mailbox.
 */
abstract class Envelope
{
    final AbstractReplier replier;

    Envelope(final AbstractReplier replier)
    {
        this.replier = replier;
    }

    /**
     * @return the message object.
     * @throws SerializationException when the wire form cannot be decoded.
     */
    abstract Object message(CodecRegistry serializers);

    /** A local ask. */
    static final class Local extends Envelope
    {
        private final Object message;

        Local(final Object message, final AbstractReplier replier)
        {
            super(replier);
            this.message = message;
        }

        @Override
        Object message(final CodecRegistry serializers)
        {
            return message;
        }
    }

    /** A tell or ask from another node: the payload inside the batch it arrived in. */
    static final class Remote extends Envelope
    {
        private final Message batch;
        private final int offset;
        private final int length;
        private final int serializerId;

        Remote(final Message batch, final int offset, final int length, final int serializerId,
            final AbstractReplier replier)
        {
            super(replier);
            this.batch = batch;
            this.offset = offset;
            this.length = length;
            this.serializerId = serializerId;
        }

        @Override
        Object message(final CodecRegistry serializers)
        {
            final CodecBinding<?> serializer = serializers.forId(serializerId);
            try
            {
                final Object message = serializer.decode(batch.data(), offset, length);
                if (message == null)
                {
                    throw new SerializationException("serializer " + serializerId + " decoded null");
                }
                return message;
            }
            catch (final SerializationException ex)
            {
                throw ex;
            }
            catch (final RuntimeException ex)
            {
                throw new SerializationException("serializer " + serializerId + " failed to decode " + length +
                    " bytes: " + ex, ex);
            }
        }
    }
}
