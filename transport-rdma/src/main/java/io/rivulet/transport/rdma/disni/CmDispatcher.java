package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.RdmaCmEvent;

import java.util.IdentityHashMap;

/**
 * Routes the events of a context's one RDMA CM event channel to the listener or connection whose id
 * they concern. A CONNECT_REQUEST goes to the listening id's handler (with the new id); every other
 * event to the handler of the id it names. DiSNI hands back the same Java object for a native id on
 * every event, so ids are matched by identity. Events for ids nobody registered (a closed connection's
 * late TIMEWAIT_EXIT) are dropped.
 *
 * <p>Not thread-safe: owned by the context's thread.
 */
final class CmDispatcher
{
    private static final RdmaCmEvent.EventType[] TYPES = RdmaCmEvent.EventType.values();

    /** Receives the events of one id. */
    @FunctionalInterface
    interface Handler
    {
        /**
         * @param type the event.
         * @param id   the id it concerns: for CONNECT_REQUEST the new id of the incoming connection.
         */
        void onCmEvent(RdmaCmEvent.EventType type, Object id);
    }

    private final IdentityHashMap<Object, Handler> handlers = new IdentityHashMap<>();

    void register(final Object id, final Handler handler)
    {
        handlers.put(id, handler);
    }

    void unregister(final Object id)
    {
        handlers.remove(id);
    }

    int size()
    {
        return handlers.size();
    }

    /**
     * @param type     {@code rdma_cm_event_type} value, as DiSNI's {@code getEvent()} returns it.
     * @param listenId the listening id (CONNECT_REQUEST), or null.
     * @param id       the id the event concerns.
     * @return the event's type, or null when it was dropped (unknown type, no handler).
     */
    RdmaCmEvent.EventType dispatch(final int type, final Object listenId, final Object id)
    {
        if (type < 0 || type >= TYPES.length)
        {
            return null;
        }
        final RdmaCmEvent.EventType eventType = TYPES[type];
        final Handler handler = eventType == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST ?
            (null == listenId ? null : handlers.get(listenId)) :
            (null == id ? null : handlers.get(id));
        if (null == handler)
        {
            return null;
        }
        handler.onCmEvent(eventType, id);
        return eventType;
    }
}
