package io.rivulet.counters;

import org.agrona.BitUtil;
import org.agrona.concurrent.status.CountersReader;

/**
 * Layout of a node file, version {@value #VERSION}: a header page, then the counters' metadata, their values,
 * and a distinct error log. In the spirit of Aeron's CnC file ({@code aeron-client/.../CncFileDescriptor.java}):
 * the magic is written last, with release semantics, so that a reader that sees it sees a complete header.
 *
 * <pre>
 *  0  int   magic ("RIVN"), 0 until the file is ready
 *  4  int   layout version
 *  8  long  process id of the node
 * 16  long  start time, epoch ms
 * 24  int   metadata offset      28 int metadata length
 * 32  int   values offset        36 int values length
 * 40  int   error log offset     44 int error log length
 * 48  int   id of the heartbeat counter
 * 52  int   node name length     56 ... node name, UTF-8 (at most 200 bytes)
 * 256 int   status: 0 running, 1 closed cleanly, 2 dead (the engine failed); written last, with release semantics
 * 260 int   failure cause length (bytes, at most 1024)
 * 264 long  failure time, epoch ms
 * 272 ...   failure cause, UTF-8: the error's class and message
 * 1296 int  histogram region offset     1300 int histogram region length      (version 2)
 * 4096      counters metadata (512 bytes per counter), values (128 per counter), error log, histograms
 * </pre>
 *
 * <p>The histogram region (version 2), page-aligned after the error log:
 *
 * <pre>
 *  0  int   histograms in the region      4 int buckets per histogram ({@link LatencyHistogram#BUCKET_COUNT})
 *  8  int   unit shift (ns to units)     12 int sub-bucket bits
 * 64  ...   one slot of {@link LatencyHistogram#LENGTH} bytes per histogram, by id
 *           ({@link #HISTOGRAM_REQUEST_RESPONSE} is 0)
 * </pre>
 *
 * <p>The status fields came after version 1's first files, in header space that was zero before; a file of an
 * earlier writer reads as running, and the heartbeat tells whether it is (old readers ignore the fields). Version 2
 * added the histogram region: a version 2 reader reads a version 1 file without histograms, a version 1 reader
 * refuses a version 2 file.
 */
public final class NodeFileLayout
{
    /** "RIVN" in little-endian ASCII. */
    public static final int MAGIC = 0x4E564952;
    /** Bumped on any change of layout; readers refuse versions they do not know. */
    public static final int VERSION = 2;
    /** The oldest version this reader reads (version 1 had no histograms). */
    public static final int MIN_READABLE_VERSION = 1;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int PID_OFFSET = 8;
    public static final int START_TIME_OFFSET = 16;
    public static final int METADATA_OFFSET_OFFSET = 24;
    public static final int METADATA_LENGTH_OFFSET = 28;
    public static final int VALUES_OFFSET_OFFSET = 32;
    public static final int VALUES_LENGTH_OFFSET = 36;
    public static final int ERROR_LOG_OFFSET_OFFSET = 40;
    public static final int ERROR_LOG_LENGTH_OFFSET = 44;
    public static final int HEARTBEAT_COUNTER_ID_OFFSET = 48;
    public static final int NODE_NAME_LENGTH_OFFSET = 52;
    public static final int NODE_NAME_OFFSET = 56;
    public static final int MAX_NODE_NAME_LENGTH = 200;
    public static final int STATUS_OFFSET = 256;
    public static final int FAILURE_CAUSE_LENGTH_OFFSET = 260;
    public static final int FAILURE_TIME_OFFSET = 264;
    public static final int FAILURE_CAUSE_OFFSET = 272;
    public static final int MAX_FAILURE_CAUSE_LENGTH = 1024;
    public static final int HISTOGRAMS_OFFSET_OFFSET = 1296;
    public static final int HISTOGRAMS_LENGTH_OFFSET = 1300;
    /** In the histogram region: how many histograms, buckets each, unit shift, sub-bucket bits. */
    public static final int HISTOGRAM_COUNT_OFFSET = 0;
    public static final int HISTOGRAM_BUCKETS_OFFSET = 4;
    public static final int HISTOGRAM_UNIT_SHIFT_OFFSET = 8;
    public static final int HISTOGRAM_SUB_BUCKET_BITS_OFFSET = 12;
    /** In the histogram region: where the first histogram's slot starts. */
    public static final int HISTOGRAM_SLOTS_OFFSET = 64;
    /**
     * Histogram id: requester-side request-response round trip, from the conductor writing the request into the
     * outbound ring to the conductor handing the reply (or empty completion) over; failed requests are not recorded.
     */
    public static final int HISTOGRAM_REQUEST_RESPONSE = 0;
    /** Histograms a node file holds. */
    public static final int HISTOGRAM_COUNT = 1;
    /** Status: running (or written by a writer that had no status field). */
    public static final int STATUS_RUNNING = 0;
    /** Status: closed cleanly. */
    public static final int STATUS_CLOSED = 1;
    /** Status: dead, its engine failed; the cause is in the header. */
    public static final int STATUS_DEAD = 2;
    /** One page, so that the regions after it are page-aligned. */
    public static final int HEADER_LENGTH = 4096;

    /** File name suffix of node files in a directory. */
    public static final String FILE_SUFFIX = ".rivulet";

    private NodeFileLayout()
    {
    }

    /** @return bytes of counter metadata for this many counters. */
    public static int metadataLength(final int maxCounters)
    {
        return maxCounters * CountersReader.METADATA_LENGTH;
    }

    /** @return bytes of counter values for this many counters. */
    public static int valuesLength(final int maxCounters)
    {
        return maxCounters * CountersReader.COUNTER_LENGTH;
    }

    /** @return the error log length rounded up to a page. */
    public static int errorLogLength(final int requested)
    {
        return BitUtil.align(Math.max(requested, 4096), 4096);
    }

    /** @return bytes of the histogram region, a whole number of pages. */
    public static int histogramsLength()
    {
        return BitUtil.align(HISTOGRAM_SLOTS_OFFSET + HISTOGRAM_COUNT * LatencyHistogram.LENGTH, 4096);
    }

    /** @return the whole file's length. */
    public static long fileLength(final int maxCounters, final int errorLogLength)
    {
        return (long)HEADER_LENGTH + metadataLength(maxCounters) + valuesLength(maxCounters) +
            errorLogLength(errorLogLength) + histogramsLength();
    }
}
