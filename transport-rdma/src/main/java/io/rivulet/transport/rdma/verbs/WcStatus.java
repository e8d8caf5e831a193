package io.rivulet.transport.rdma.verbs;

/** Completion status, with ibverbs' codes ({@code enum ibv_wc_status}). */
public enum WcStatus
{
    SUCCESS(0),
    LOCAL_LENGTH_ERROR(1),
    LOCAL_QP_OPERATION_ERROR(2),
    LOCAL_EEC_OPERATION_ERROR(3),
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
    LOCAL_RDD_VIOLATION_ERROR(14),
    REMOTE_INVALID_RD_REQUEST_ERROR(15),
    REMOTE_ABORT_ERROR(16),
    INVALID_EECN_ERROR(17),
    INVALID_EEC_STATE_ERROR(18),
    FATAL_ERROR(19),
    RESPONSE_TIMEOUT_ERROR(20),
    GENERAL_ERROR(21);

    /** Indexed by code, so that {@link #of} neither searches nor allocates (values() copies its array). */
    private static final WcStatus[] BY_CODE = new WcStatus[GENERAL_ERROR.code + 1];

    static
    {
        for (final WcStatus status : values())
        {
            BY_CODE[status.code] = status;
        }
    }

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
     * @return its constant, {@link #GENERAL_ERROR} for codes not listed (newer tag-matching codes, garbage).
     */
    public static WcStatus of(final int code)
    {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : GENERAL_ERROR;
    }
}
