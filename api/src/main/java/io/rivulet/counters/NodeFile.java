package io.rivulet.counters;

import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A read-only view of a node file: the header (name, pid, start time, heartbeat, status and failure cause), every
 * counter with its type, owner and tag, and the distinct error log. Another process opens it with {@link #open(Path)} while the node
 * runs; nothing it does can disturb the node.
 *
 * <p>The file's contents are treated as untrusted: every offset and length in the header is checked against
 * the file's size before use, and a bad one fails with {@link IOException} naming it.
 *
 * <p>Not thread-safe; open one per reading thread. Values are read with acquire semantics.
 */
public final class NodeFile implements AutoCloseable
{
    private final Path file;
    private final ByteBuffer mapping;
    private final boolean ownsMapping;
    private final UnsafeBuffer header;
    private final CountersReader counters;
    private final UnsafeBuffer errorLog;
    /** Null for a version 1 file, which has no histograms. */
    private final UnsafeBuffer histograms;
    private final int histogramCount;
    private final int version;
    private final int heartbeatCounterId;
    private final String nodeName;

    private NodeFile(final Path file, final ByteBuffer mapping, final boolean ownsMapping) throws IOException
    {
        this.file = file;
        this.mapping = mapping;
        this.ownsMapping = ownsMapping;
        final int capacity = mapping.capacity();
        if (capacity < NodeFileLayout.HEADER_LENGTH)
        {
            throw new IOException(where() + "too short for a node file (" + capacity + " bytes)");
        }
        header = new UnsafeBuffer(mapping, 0, NodeFileLayout.HEADER_LENGTH);
        final int magic = header.getIntAcquire(NodeFileLayout.MAGIC_OFFSET);
        if (magic != NodeFileLayout.MAGIC)
        {
            throw new IOException(where() + (magic == 0 ? "not ready yet (the node is starting)" : "not a node file"));
        }
        version = header.getInt(NodeFileLayout.VERSION_OFFSET);
        if (version < NodeFileLayout.MIN_READABLE_VERSION || version > NodeFileLayout.VERSION)
        {
            throw new IOException(where() + "layout version " + version + ", this reader knows versions " +
                NodeFileLayout.MIN_READABLE_VERSION + " to " + NodeFileLayout.VERSION +
                (version > NodeFileLayout.VERSION ? " (written by a newer Rivulet: use its tools)" : ""));
        }
        counters = new CountersReader(
            region(NodeFileLayout.METADATA_OFFSET_OFFSET, NodeFileLayout.METADATA_LENGTH_OFFSET, "metadata"),
            region(NodeFileLayout.VALUES_OFFSET_OFFSET, NodeFileLayout.VALUES_LENGTH_OFFSET, "values"),
            StandardCharsets.UTF_8);
        errorLog = region(NodeFileLayout.ERROR_LOG_OFFSET_OFFSET, NodeFileLayout.ERROR_LOG_LENGTH_OFFSET, "error log");
        if (version >= 2)
        {
            histograms = region(NodeFileLayout.HISTOGRAMS_OFFSET_OFFSET, NodeFileLayout.HISTOGRAMS_LENGTH_OFFSET,
                "histogram");
            histogramCount = checkHistograms(histograms);
        }
        else
        {
            histograms = null;
            histogramCount = 0;
        }
        if (counters.metaDataBuffer().capacity() < NodeFileLayout.metadataLength(counters.maxCounterId() + 1))
        {
            throw new IOException(where() + "metadata region too small for its values region");
        }
        heartbeatCounterId = header.getInt(NodeFileLayout.HEARTBEAT_COUNTER_ID_OFFSET);
        if (heartbeatCounterId < 0 || heartbeatCounterId > counters.maxCounterId())
        {
            throw new IOException(where() + "heartbeat counter id out of range: " + heartbeatCounterId);
        }
        final int nameLength = header.getInt(NodeFileLayout.NODE_NAME_LENGTH_OFFSET);
        if (nameLength < 0 || nameLength > NodeFileLayout.MAX_NODE_NAME_LENGTH)
        {
            throw new IOException(where() + "node name length out of range: " + nameLength);
        }
        nodeName = header.getStringWithoutLengthUtf8(NodeFileLayout.NODE_NAME_OFFSET, nameLength);
    }

    /**
     * Maps a node file read-only.
     *
     * @param file a node file, e.g. one of {@link NodeDirectory#list(Path)}.
     * @return the view; close it to unmap.
     * @throws IOException when the file is missing, not ready, of another version or malformed.
     */
    public static NodeFile open(final Path file) throws IOException
    {
        if (!Files.isRegularFile(file))
        {
            throw new IOException(file + ": no such node file");
        }
        final MappedByteBuffer mapping;
        try
        {
            mapping = IoUtil.mapExistingFile(file.toFile(), FileChannel.MapMode.READ_ONLY, "rivulet node file");
        }
        catch (final RuntimeException ex)
        {
            throw new IOException(file + ": cannot map: " + ex.getMessage(), ex);
        }
        try
        {
            return new NodeFile(file, mapping, true);
        }
        catch (final IOException | RuntimeException ex)
        {
            IoUtil.unmap(mapping);
            throw ex instanceof IOException ? (IOException)ex : new IOException(file + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * A view of a node's buffer in this process, e.g. {@link NodeFileWriter#buffer()} of a node whose counters
     * live only in memory.
     */
    public static NodeFile wrap(final ByteBuffer buffer) throws IOException
    {
        return new NodeFile(null, buffer, false);
    }

    /** @return the file, or null for a wrapped in-memory buffer. */
    public Path file()
    {
        return file;
    }

    /**
     * @return the layout version the node wrote, {@link NodeFileLayout#MIN_READABLE_VERSION} to
     * {@link NodeFileLayout#VERSION}.
     */
    public int version()
    {
        return version;
    }

    /**
     * @param id a histogram id of {@link NodeFileLayout}, e.g. {@link NodeFileLayout#HISTOGRAM_REQUEST_RESPONSE}.
     * @return the histogram's counts now, or null when the file has none of that id (a version 1 file has none).
     */
    public HistogramSnapshot histogram(final int id)
    {
        if (histograms == null || id < 0 || id >= histogramCount)
        {
            return null;
        }
        return HistogramSnapshot.read(histograms, NodeFileLayout.HISTOGRAM_SLOTS_OFFSET + id * LatencyHistogram.LENGTH);
    }

    /** @return the node's name. */
    public String nodeName()
    {
        return nodeName;
    }

    /** @return the process id of the node. */
    public long pid()
    {
        return header.getLong(NodeFileLayout.PID_OFFSET);
    }

    /** @return the epoch ms the node started. */
    public long startTimeMs()
    {
        return header.getLong(NodeFileLayout.START_TIME_OFFSET);
    }

    /** @return the epoch ms of the conductor's last heartbeat; 0 once the node closed cleanly. */
    public long heartbeatMs()
    {
        return counters.getCounterValue(heartbeatCounterId);
    }

    /**
     * @param nowMs     epoch ms now.
     * @param timeoutMs the heartbeat age beyond which the node counts as dead.
     * @return true when the status is {@link NodeStatus#RUNNING}, the heartbeat is fresh and the process exists.
     */
    public boolean isAlive(final long nowMs, final long timeoutMs)
    {
        final long heartbeat = heartbeatMs();
        return status() == NodeStatus.RUNNING && heartbeat != 0 && nowMs - heartbeat <= timeoutMs &&
            ProcessHandle.of(pid()).map(ProcessHandle::isAlive).orElse(false);
    }

    /**
     * @return what the node wrote in its status field: {@link NodeStatus#DEAD} once its engine failed (then
     * {@link #failureCause()} says why), {@link NodeStatus#CLOSED} after a clean close, else
     * {@link NodeStatus#RUNNING} (also for a value this reader does not know).
     */
    public NodeStatus status()
    {
        switch (header.getIntAcquire(NodeFileLayout.STATUS_OFFSET))
        {
            case NodeFileLayout.STATUS_DEAD:
                return NodeStatus.DEAD;
            case NodeFileLayout.STATUS_CLOSED:
                return NodeStatus.CLOSED;
            default:
                return NodeStatus.RUNNING;
        }
    }

    /**
     * @return the class and message of the error that stopped the engine of a {@link NodeStatus#DEAD} node; "" for
     * a node that did not fail, or when the recorded length is out of range.
     */
    public String failureCause()
    {
        if (status() != NodeStatus.DEAD)
        {
            return "";
        }
        final int length = header.getInt(NodeFileLayout.FAILURE_CAUSE_LENGTH_OFFSET);
        if (length <= 0 || length > NodeFileLayout.MAX_FAILURE_CAUSE_LENGTH)
        {
            return "";
        }
        return header.getStringWithoutLengthUtf8(NodeFileLayout.FAILURE_CAUSE_OFFSET, length);
    }

    /** @return the epoch ms the engine of a {@link NodeStatus#DEAD} node failed; 0 otherwise. */
    public long failureTimeMs()
    {
        return status() == NodeStatus.DEAD ? header.getLong(NodeFileLayout.FAILURE_TIME_OFFSET) : 0;
    }

    /** @return Agrona's reader over the counters, for callers that poll values by id. */
    public CountersReader countersReader()
    {
        return counters;
    }

    /** @return every allocated counter, in slot order. */
    public List<CounterSnapshot> counters()
    {
        final List<CounterSnapshot> result = new ArrayList<>();
        counters.forEach((id, typeId, key, label) -> result.add(new CounterSnapshot(id, typeId,
            counters.getCounterOwnerId(id), tag(key), label, counters.getCounterValue(id))));
        return result;
    }

    /** @return the allocated counters of one type, in slot order. */
    public List<CounterSnapshot> counters(final int typeId)
    {
        final List<CounterSnapshot> result = new ArrayList<>();
        for (final CounterSnapshot counter : counters())
        {
            if (counter.typeId() == typeId)
            {
                result.add(counter);
            }
        }
        return result;
    }

    /** @return the sum of the values of every counter of a type (0 when there is none). */
    public long sum(final int typeId)
    {
        long sum = 0;
        for (final CounterSnapshot counter : counters(typeId))
        {
            sum += counter.value();
        }
        return sum;
    }

    /** @return the distinct errors recorded so far, oldest first. */
    public List<ErrorRecord> errors()
    {
        final List<ErrorRecord> result = new ArrayList<>();
        ErrorLogReader.read(errorLog, (count, first, last, text) -> result.add(new ErrorRecord(count, first, last, text)));
        return result;
    }

    /** Unmaps the file (when this view mapped it). */
    @Override
    public void close()
    {
        if (ownsMapping)
        {
            IoUtil.unmap(mapping);
        }
    }

    /**
     * @param key a counter's key region.
     * @return the tag stored there by {@link NodeFileWriter}, "" when absent or malformed.
     */
    static String tag(final DirectBuffer key)
    {
        final int length = key.getInt(0);
        if (length <= 0 || length > CounterFactory.MAX_TAG_LENGTH || Integer.BYTES + length > key.capacity())
        {
            return "";
        }
        return key.getStringWithoutLengthUtf8(Integer.BYTES, length);
    }

    private UnsafeBuffer region(final int offsetField, final int lengthField, final String name) throws IOException
    {
        final int offset = header.getInt(offsetField);
        final int length = header.getInt(lengthField);
        if (offset < NodeFileLayout.HEADER_LENGTH || length <= 0 || (long)offset + length > mapping.capacity())
        {
            throw new IOException(where() + name + " region out of bounds (offset " + offset + ", length " + length +
                ", file " + mapping.capacity() + " bytes)");
        }
        return new UnsafeBuffer(mapping, offset, length);
    }

    /** @return the histograms the region holds, after checking that its buckets are the ones this reader knows. */
    private int checkHistograms(final UnsafeBuffer region) throws IOException
    {
        final int buckets = region.getInt(NodeFileLayout.HISTOGRAM_BUCKETS_OFFSET);
        final int unitShift = region.getInt(NodeFileLayout.HISTOGRAM_UNIT_SHIFT_OFFSET);
        final int subBucketBits = region.getInt(NodeFileLayout.HISTOGRAM_SUB_BUCKET_BITS_OFFSET);
        if (buckets != LatencyHistogram.BUCKET_COUNT || unitShift != LatencyHistogram.UNIT_SHIFT ||
            subBucketBits != LatencyHistogram.SUB_BUCKET_BITS)
        {
            throw new IOException(where() + "histograms of " + buckets + " buckets (unit shift " + unitShift +
                ", sub-bucket bits " + subBucketBits + "), this reader knows " + LatencyHistogram.BUCKET_COUNT + " (" +
                LatencyHistogram.UNIT_SHIFT + ", " + LatencyHistogram.SUB_BUCKET_BITS + ")");
        }
        final int count = region.getInt(NodeFileLayout.HISTOGRAM_COUNT_OFFSET);
        if (count < 0 || (long)NodeFileLayout.HISTOGRAM_SLOTS_OFFSET + (long)count * LatencyHistogram.LENGTH >
            region.capacity())
        {
            throw new IOException(where() + "histogram count out of range: " + count);
        }
        return count;
    }

    private String where()
    {
        return (file == null ? "node buffer" : file.toString()) + ": ";
    }
}
