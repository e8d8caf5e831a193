package io.rivulet.region;

import io.rivulet.RivuletException;

/**
 * A one-sided operation or region lookup failed; {@link #reason()} says why. Failing an operation never closes the
 * connection, and the bytes of the region are left as they were.
 */
public final class RegionAccessException extends RivuletException
{
    /** Why an access failed. The first seven travel on the wire as {@code REGION_ERROR} codes 1..7. */
    public enum Reason
    {
        /** The peer exposes no region of that name. */
        NOT_FOUND(1),
        /** The region does not allow this operation (a write to a read-only region...). */
        PERMISSION(2),
        /** The range is outside the region. */
        OUT_OF_BOUNDS(3),
        /** An atomic on an offset that is not a multiple of 8. */
        MISALIGNED(4),
        /** The region was revoked. */
        REVOKED(5),
        /** The remote key does not name the region. */
        BAD_KEY(6),
        /** The peer or this transport cannot do it. */
        UNSUPPORTED(7),
        /** The target's NIC refused the access (wrong key, a revoked region, out of bounds or not permitted). */
        REMOTE_ACCESS(0);

        private final int code;

        Reason(final int code)
        {
            this.code = code;
        }

        /** @return the {@code REGION_ERROR} code, 0 for reasons that never travel. */
        public int code()
        {
            return code;
        }

        /**
         * @param code a {@code REGION_ERROR} code (1..7, validated by the frame reader).
         * @return its reason.
         */
        public static Reason ofCode(final int code)
        {
            for (final Reason reason : values())
            {
                if (reason.code == code)
                {
                    return reason;
                }
            }
            return UNSUPPORTED;
        }
    }

    private final Reason reason;

    public RegionAccessException(final Reason reason, final String message)
    {
        super(message);
        this.reason = reason;
    }

    /** @return why the access failed. */
    public Reason reason()
    {
        return reason;
    }
}
