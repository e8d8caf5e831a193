package io.rivulet.transport.rdma.cm;

/**
 * The RDMA connection manager's events ({@code enum rdma_cm_event_type}), in librdmacm's order, so that a
 * provider maps the native value by {@link #of(int)}.
 */
public enum CmEventType
{
    ADDR_RESOLVED,
    ADDR_ERROR,
    ROUTE_RESOLVED,
    ROUTE_ERROR,
    CONNECT_REQUEST,
    CONNECT_RESPONSE,
    CONNECT_ERROR,
    UNREACHABLE,
    REJECTED,
    ESTABLISHED,
    DISCONNECTED,
    DEVICE_REMOVAL,
    MULTICAST_JOIN,
    MULTICAST_ERROR,
    ADDR_CHANGE,
    TIMEWAIT_EXIT;

    private static final CmEventType[] VALUES = values();

    /**
     * @param value an {@code rdma_cm_event_type} value.
     * @return its constant, or null for a value librdmacm added after this list.
     */
    public static CmEventType of(final int value)
    {
        return value >= 0 && value < VALUES.length ? VALUES[value] : null;
    }
}
