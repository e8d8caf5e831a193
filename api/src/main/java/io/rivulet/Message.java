package io.rivulet;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An immutable message: data and optional metadata. A message owns its bytes, so it stays valid
 * after delivery, on any thread, for as long as the application keeps it (the safe way to receive, at the cost
 * of a copy on receipt; the zero-copy path is {@link MessageHandler}).
 *
 * <p>Thread-safe: immutable. The byte arrays passed in are not copied; do not change them afterwards.
 */
public final class Message
{
    private static final byte[] EMPTY = new byte[0];
    private static final VarHandle METADATA_VIEW;
    private static final VarHandle DATA_VIEW;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            METADATA_VIEW = lookup.findVarHandle(Message.class, "metadataView", DirectBuffer.class);
            DATA_VIEW = lookup.findVarHandle(Message.class, "dataView", DirectBuffer.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final byte[] metadata;
    private final byte[] data;
    // Views are made on first use: most messages are only encoded or measured, and two views per message were a
    // fifth of the bytes a request-response allocated (issue 16). Installed once by CAS, so every call sees one view.
    private DirectBuffer metadataView;
    private DirectBuffer dataView;

    private Message(final byte[] metadata, final byte[] data)
    {
        this.metadata = metadata;
        this.data = data;
    }

    /**
     * @param data the message's bytes (not copied).
     * @return a message without metadata.
     */
    public static Message of(final byte[] data)
    {
        return new Message(EMPTY, data == null ? EMPTY : data);
    }

    /**
     * @param text encoded as UTF-8.
     * @return a message without metadata.
     */
    public static Message of(final String text)
    {
        return of(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Copies bytes out of a buffer, for example a view seen in a {@link MessageHandler}.
     *
     * @param buffer holding the bytes.
     * @param offset of the first byte.
     * @param length of the data.
     * @return a message that owns a copy of the bytes.
     */
    public static Message copyOf(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return of(bytes);
    }

    /**
     * @param metadata bytes (not copied).
     * @return a message with the same data and this metadata.
     */
    public Message metadata(final byte[] metadata)
    {
        return new Message(metadata == null ? EMPTY : metadata, data);
    }

    /**
     * @param metadata encoded as UTF-8.
     * @return a message with the same data and this metadata.
     */
    public Message metadata(final String metadata)
    {
        return metadata(metadata.getBytes(StandardCharsets.UTF_8));
    }

    /** @return a read-only view of the data; the same view on every call. */
    public DirectBuffer data()
    {
        final DirectBuffer view = (DirectBuffer)DATA_VIEW.getAcquire(this);
        return view != null ? view : install(DATA_VIEW, data);
    }

    /** @return a read-only view of the metadata, empty when there is none. */
    public DirectBuffer metadata()
    {
        final DirectBuffer view = (DirectBuffer)METADATA_VIEW.getAcquire(this);
        return view != null ? view : install(METADATA_VIEW, metadata);
    }

    /** The first call's view wins; one that lost the race returns the winner's. */
    private DirectBuffer install(final VarHandle field, final byte[] bytes)
    {
        final DirectBuffer created = new UnsafeBuffer(bytes);
        final DirectBuffer winner = (DirectBuffer)field.compareAndExchange(this, (DirectBuffer)null, created);
        return winner != null ? winner : created;
    }

    public int dataLength()
    {
        return data.length;
    }

    public int metadataLength()
    {
        return metadata.length;
    }

    public boolean hasMetadata()
    {
        return metadata.length > 0;
    }

    /** @return a copy of the data. */
    public byte[] dataBytes()
    {
        return data.clone();
    }

    /** @return a copy of the metadata. */
    public byte[] metadataBytes()
    {
        return metadata.clone();
    }

    /** @return the data decoded as UTF-8. */
    public String dataUtf8()
    {
        return new String(data, StandardCharsets.UTF_8);
    }

    /** @return the metadata decoded as UTF-8. */
    public String metadataUtf8()
    {
        return new String(metadata, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof Message m && Arrays.equals(data, m.data) && Arrays.equals(metadata, m.metadata);
    }

    @Override
    public int hashCode()
    {
        return 31 * Arrays.hashCode(data) + Arrays.hashCode(metadata);
    }

    @Override
    public String toString()
    {
        return "Message{metadata=" + metadata.length + " bytes, data=" + data.length + " bytes}";
    }
}
