package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.cm.CmEventType;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The connection manager event {@link RdmaCm#getEvent} wrote last, in native memory this object owns and reuses.
 *
 * <p>Not thread-safe: one per event channel, read by the thread that drives it.
 */
public final class CmEvent
{
    private final UnsafeBuffer buffer =
        new UnsafeBuffer(ByteBuffer.allocateDirect(RdmaCm.E_SIZE).order(ByteOrder.nativeOrder()));

    /**
     * Takes the channel's next event, never blocking.
     *
     * @return true when an event was taken (and acknowledged), false when none is pending.
     * @throws VerbsException when the channel failed.
     */
    public boolean take(final long channel) throws VerbsException
    {
        return Verbs.check("rdma_get_cm_event", RdmaCm.getEvent(channel, buffer.addressOffset())) == 1;
    }

    /** @return the event, or null for a type librdmacm added after {@link CmEventType}. */
    public CmEventType type()
    {
        return CmEventType.of(typeValue());
    }

    /** @return the raw {@code rdma_cm_event_type}. */
    public int typeValue()
    {
        return buffer.getInt(RdmaCm.E_TYPE);
    }

    /** @return the event's status: 0, a negative errno, or for REJECTED the InfiniBand reject reason. */
    public int status()
    {
        return buffer.getInt(RdmaCm.E_STATUS);
    }

    /** @return the id it concerns; for CONNECT_REQUEST the new connection's id. */
    public long id()
    {
        return buffer.getLong(RdmaCm.E_ID);
    }

    /** @return the listening id of a CONNECT_REQUEST, else 0. */
    public long listenId()
    {
        return buffer.getLong(RdmaCm.E_LISTEN_ID);
    }

    /** @return the peer's responder resources (CONNECT_REQUEST), or the accepted ones (ESTABLISHED). */
    public int responderResources()
    {
        return buffer.getInt(RdmaCm.E_RESPONDER_RESOURCES);
    }

    /** @return the peer's initiator depth (CONNECT_REQUEST), or the accepted one (ESTABLISHED). */
    public int initiatorDepth()
    {
        return buffer.getInt(RdmaCm.E_INITIATOR_DEPTH);
    }

    /** @return private data bytes carried (at most {@link RdmaCm#PRIVATE_DATA_MAX}). */
    public int privateDataLength()
    {
        return buffer.getInt(RdmaCm.E_PRIVATE_DATA_LEN);
    }

    /** @return one private data byte. */
    public byte privateData(final int index)
    {
        return buffer.getByte(RdmaCm.E_PRIVATE_DATA + index);
    }

    /**
     * Copies a UD id's {@code param.ud} (MULTICAST_JOIN, MULTICAST_ERROR: the group's address attributes, QP number and
     * Q_Key) into attributes the caller keeps; zeros for any other event.
     */
    public void copyUdTo(final UdAttributes attributes)
    {
        attributes.copyFrom(buffer, RdmaCm.E_UD);
    }

    @Override
    public String toString()
    {
        final CmEventType type = type();
        return "CmEvent{" + (null == type ? "type " + typeValue() : type) + ", status=" + status() + "}";
    }
}
