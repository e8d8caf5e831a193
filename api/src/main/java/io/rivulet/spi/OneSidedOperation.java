package io.rivulet.spi;

import org.agrona.DirectBuffer;

/**
 * One READ, WRITE, COMPARE_AND_SWAP or FETCH_AND_ADD as a {@link OneSidedPath} sees it. The callbacks run on the
 * conductor, from {@link OneSidedPath#poll()}.
 */
public interface OneSidedOperation
{
    /** Operation codes, as on the wire ({@code REGION_OP.op}). */
    int READ = 1;
    int WRITE = 2;
    int COMPARE_AND_SWAP = 3;
    int FETCH_AND_ADD = 4;

    /** @return {@link #READ}, {@link #WRITE}, {@link #COMPARE_AND_SWAP} or {@link #FETCH_AND_ADD}. */
    int op();

    /** @return the target address (the region's address plus the offset). */
    long remoteAddress();

    /** @return the region's remote key. */
    int rkey();

    /** @return bytes to read or write; 8 for atomics. */
    int length();

    /** @return the compare value of a COMPARE_AND_SWAP or the delta of a FETCH_AND_ADD. */
    long compareAdd();

    /** @return the new value of a COMPARE_AND_SWAP. */
    long swap();

    /** @return the bytes of a WRITE ({@link #length()} of them from {@link #sourceOffset()}). */
    DirectBuffer source();

    int sourceOffset();

    /** A READ completed: its bytes, valid only during the call. */
    void onRead(DirectBuffer buffer, int offset, int length);

    /** An atomic completed: the value the word held before. */
    void onAtomic(long previous);

    /** A WRITE completed. */
    void onWritten();

    /**
     * The peer or the path refused the operation.
     *
     * @param remoteAccess true when the target's NIC refused access (key, bounds, permission).
     * @param reason       what happened, for the error message.
     */
    void onFailed(boolean remoteAccess, String reason);

    /** The operation was never executed (flushed after another failed): it may be posted again on a new path. */
    void onFlushed();
}
