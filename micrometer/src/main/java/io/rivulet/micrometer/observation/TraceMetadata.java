package io.rivulet.micrometer.observation;

import io.rivulet.MalformedMetadataException;
import io.rivulet.Message;
import io.rivulet.Metadata;
import org.agrona.DirectBuffer;

/**
 * Reads and writes the composite metadata a request carries its trace context in. A request whose metadata is
 * the application's own raw bytes (not composite metadata) is left exactly as it is: its trace context does not
 * cross the wire, and a DEBUG line says so.
 */
final class TraceMetadata
{
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TraceMetadata.class);

    private TraceMetadata()
    {
    }

    /**
     * @return the message's composite metadata, {@link Metadata#empty()} when it has none, null when its metadata
     *         is raw (or malformed composite metadata, which is the application's to send as it is).
     */
    static Metadata composite(final Message message)
    {
        return message.hasMetadata() ? composite(message.metadata(), message.metadataLength()) : Metadata.empty();
    }

    /** @return as {@link #composite(Message)}, for a view's metadata. */
    static Metadata composite(final DirectBuffer metadata, final int length)
    {
        if (length == 0)
        {
            return Metadata.empty();
        }
        if (!Metadata.isComposite(metadata, 0, length))
        {
            return null;
        }
        try
        {
            return Metadata.decode(metadata, 0, length);
        }
        catch (final MalformedMetadataException ex)
        {
            return null;
        }
    }

    /**
     * @param message  the request as the application made it.
     * @param existing its composite metadata, null when raw.
     * @param carrier  what the tracing handler wrote.
     * @return the request with the carrier's entries added to its composite metadata (created when it had none);
     *         the request itself when there is nothing to add or its metadata is raw.
     */
    static Message inject(final Message message, final Metadata existing, final MetadataCarrier carrier)
    {
        final Metadata entries = carrier.entries();
        if (entries.isEmpty())
        {
            return message;
        }
        if (existing == null)
        {
            LOG.debug("request with raw (non-composite) metadata: trace context not sent");
            return message;
        }
        Metadata merged = existing;
        for (final String key : entries.keys())
        {
            merged = merged.with(key, entries.bytes(key));
        }
        return message.metadata(merged.encode());
    }
}
