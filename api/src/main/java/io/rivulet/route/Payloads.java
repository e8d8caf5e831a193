package io.rivulet.route;

import io.rivulet.Message;
import io.rivulet.Metadata;
import io.rivulet.serde.Codec;
import io.rivulet.serde.CodecException;
import org.agrona.ExpandableArrayBuffer;

/** Encodes values into messages and decodes them back, for both ends of a route. Stateless. */
final class Payloads
{
    private Payloads()
    {
    }

    /**
     * @return a message whose data is the value encoded and whose metadata is the entries plus the content type.
     * @throws CodecException naming the route, the type and the codec when encoding fails.
     */
    static Message encode(final String route, final Codec<Object> codec, final Object value, final Metadata metadata)
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(128);
        final int length;
        try
        {
            length = codec.encode(value, buffer, 0);
        }
        catch (final CodecException ex)
        {
            throw ex;
        }
        catch (final RuntimeException ex)
        {
            throw new CodecException("route '" + route + "': cannot encode " + value.getClass().getName() + " as " +
                codec.contentType() + ": " + ex.getMessage(), ex);
        }
        return Message.copyOf(buffer, 0, length)
            .metadata(metadata.with(Metadata.CONTENT_TYPE, codec.contentType()).encode());
    }

    /**
     * @return the message's data decoded.
     * @throws CodecException naming the route, the type and the codec when the data is not a valid encoding.
     */
    static <T> T decode(final String route, final Codec<Object> codec, final Message message, final Class<T> type)
    {
        try
        {
            return type.cast(codec.decode(message.data(), 0, message.dataLength(), type));
        }
        catch (final RuntimeException ex)
        {
            throw new CodecException("route '" + route + "': cannot decode " + message.dataLength() + " bytes of " +
                codec.contentType() + " as " + type.getName() + ": " + ex.getMessage(), ex);
        }
    }
}
