package io.rivulet.transport.rdma.verbs;

/** Completion status, with ibverbs' codes ({@code enum ibv_wc_status}). */
public enum WcStatus
{
    SUCCESS(0),
    LOCAL_LENGTH_ERROR(1),
    LOCAL_QP_OPERATION_ERROR(2),
    LOCAL_PROTECTION_ERROR(4),
    WR_FLUSH_ERROR(5),
    MEMORY_WINDOW_BIND_ERROR(6),
    BAD_RESPONSE_ERROR(7),
    LOCAL_ACCESS_ERROR(8),
    REMOTE_INVALID_REQUEST_ERROR(9),
    REMOTE_ACCESS_ERROR(10),
    REMOTE_OPERATION_ERROR(11),
    RETRY_EXCEEDED_ERROR(12),
    RNR_RETRY_EXCEEDED_ERROR(13),
    GENERAL_ERROR(21);

    private final int code;

    WcStatus(final int code)
    {
        this.code = code;
    }

    public int code()
    {
        return code;
    }

    /**
     * @param code an {@code ibv_wc_status} value.
     * @return its constant, {@link #GENERAL_ERROR} for codes not listed.
     */
    public static WcStatus of(final int code)
    {
        for (final WcStatus status : values())
        {
            if (status.code == code)
            {
                return status;
            }
        }
        return GENERAL_ERROR;
    }
}
