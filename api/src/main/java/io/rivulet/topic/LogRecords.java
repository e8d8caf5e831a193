package io.rivulet.topic;

import io.rivulet.codec.FrameWriter;
import io.rivulet.spi.FrameOutlet;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The layout of a publication's log, which its writer and its readers (the keeper, the cursors) share: records
 * laid end to end, unaligned, each a TOPIC_DATA frame after its length ({@link FrameOutlet#RUN_PREFIX_LENGTH}
 * bytes, {@link FrameOutlet#RUN_PREFIX_ORDER}). That is the TCP link's wire format, so a cursor hands a run of
 * records to its link in one copy ({@link FrameOutlet#offerRun}).
 *
 * <p>Bytes that hold no frame are skipped: a negative length says how many (a record that did not fit before the
 * end of the ring, or an aborted claim), and fewer than {@link #HEADER_LENGTH} bytes left at the end of the ring
 * are skipped with no length at all, as there is no room for one.
 */
final class LogRecords
{
    /** Bytes of a record's header: the frame's length. */
    static final int HEADER_LENGTH = FrameOutlet.RUN_PREFIX_LENGTH;

    private LogRecords()
    {
    }

    /** @return the record length of a message of {@code dataLength} bytes. */
    static int recordLength(final int dataLength)
    {
        return HEADER_LENGTH + FrameWriter.TOPIC_DATA_HEADER_LENGTH + dataLength;
    }

    /**
     * Reads the record at {@code index}.
     *
     * @return the length of its frame (positive), or minus the bytes to skip there (no frame).
     */
    static int frameLengthAt(final DirectBuffer log, final int index, final int capacity)
    {
        final int toEnd = capacity - index;
        return toEnd < HEADER_LENGTH ? -toEnd : log.getInt(index, FrameOutlet.RUN_PREFIX_ORDER);
    }

    /** Writes the header of a record holding a frame of {@code frameLength} bytes. */
    static void putFrameLength(final MutableDirectBuffer log, final int index, final int frameLength)
    {
        log.putInt(index, frameLength, FrameOutlet.RUN_PREFIX_ORDER);
    }

    /** Marks {@code length} bytes from {@code index} as holding no frame (where they leave room for a header). */
    static void putSkip(final MutableDirectBuffer log, final int index, final int length)
    {
        if (length >= HEADER_LENGTH)
        {
            log.putInt(index, -length, FrameOutlet.RUN_PREFIX_ORDER);
        }
    }
}
