package io.rivulet;

/**
 * A message's metadata is not valid composite metadata ({@link Metadata}): it came from a peer that does not speak
 * the format, or is hostile. A layer that reads metadata a peer sent treats this as the peer breaking the
 * protocol.
 */
public class MalformedMetadataException extends ProtocolViolationException
{
    /** @param message what is wrong, and at which byte. */
    public MalformedMetadataException(final String message)
    {
        super(message);
    }
}
