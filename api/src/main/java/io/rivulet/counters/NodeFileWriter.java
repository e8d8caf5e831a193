package io.rivulet.counters;

import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The writing side of a node file: lays out the header, counters and error log in a memory-mapped file
 * (or, when asked, in direct memory that only this process sees), allocates counters for the engine,
 * transports and topics, records errors, and deletes the file on close when configured to.
 *
 * <p>Thread-safe: allocation and freeing are serialised on the counters manager (never on the hot path);
 * incrementing the returned counters needs no lock.
 */
public final class NodeFileWriter implements CounterFactory, AutoCloseable
{
    /** Milliseconds before a freed counter slot is reused, so that a late increment hits no new counter. */
    private static final long FREE_TO_REUSE_MS = 1_000;
    /** Paths this process has open, to refuse two live nodes of the same name. */
    private static final Set<Path> OPEN_FILES = ConcurrentHashMap.newKeySet();

    private final Path file;
    private final boolean deleteOnClose;
    private final ByteBuffer mapped;
    private final UnsafeBuffer header;
    private final SerialCountersManager manager;
    /** Who follows allocations and frees ({@link #addListener}); empty costs a volatile read per allocation. */
    private final Listeners listeners = new Listeners();
    private final DistinctErrorLog errorLog;
    private final AtomicCounter heartbeat;
    private final UnsafeBuffer histograms;
    private final LatencyHistogram[] histogramWriters = new LatencyHistogram[NodeFileLayout.HISTOGRAM_COUNT];
    private final String nodeName;
    private boolean closed;
    private boolean dead;

    private NodeFileWriter(
        final Path file,
        final boolean deleteOnClose,
        final ByteBuffer buffer,
        final String nodeName,
        final int maxCounters,
        final int errorLogLength)
    {
        this.file = file;
        this.deleteOnClose = deleteOnClose;
        this.mapped = buffer;
        this.nodeName = nodeName;
        final int metadataLength = NodeFileLayout.metadataLength(maxCounters);
        final int valuesLength = NodeFileLayout.valuesLength(maxCounters);
        final int logLength = NodeFileLayout.errorLogLength(errorLogLength);
        final int metadataOffset = NodeFileLayout.HEADER_LENGTH;
        final int valuesOffset = metadataOffset + metadataLength;
        final int errorLogOffset = valuesOffset + valuesLength;
        final int histogramsOffset = errorLogOffset + logLength;
        final int histogramsLength = NodeFileLayout.histogramsLength();

        header = new UnsafeBuffer(buffer, 0, NodeFileLayout.HEADER_LENGTH);
        manager = new SerialCountersManager(
            new UnsafeBuffer(buffer, metadataOffset, metadataLength),
            new UnsafeBuffer(buffer, valuesOffset, valuesLength), listeners);
        errorLog = new DistinctErrorLog(new UnsafeBuffer(buffer, errorLogOffset, logLength), SystemEpochClock.INSTANCE,
            StandardCharsets.UTF_8);
        heartbeat = newCounter(CounterTypes.NODE_HEARTBEAT, CounterTypes.NO_OWNER, nodeName, "heartbeat (epoch ms)");
        heartbeat.setRelease(System.currentTimeMillis());
        histograms = new UnsafeBuffer(buffer, histogramsOffset, histogramsLength);
        histograms.putInt(NodeFileLayout.HISTOGRAM_COUNT_OFFSET, NodeFileLayout.HISTOGRAM_COUNT);
        histograms.putInt(NodeFileLayout.HISTOGRAM_BUCKETS_OFFSET, LatencyHistogram.BUCKET_COUNT);
        histograms.putInt(NodeFileLayout.HISTOGRAM_UNIT_SHIFT_OFFSET, LatencyHistogram.UNIT_SHIFT);
        histograms.putInt(NodeFileLayout.HISTOGRAM_SUB_BUCKET_BITS_OFFSET, LatencyHistogram.SUB_BUCKET_BITS);
        for (int id = 0; id < histogramWriters.length; id++)
        {
            histogramWriters[id] = new LatencyHistogram(histograms,
                NodeFileLayout.HISTOGRAM_SLOTS_OFFSET + id * LatencyHistogram.LENGTH);
        }

        final byte[] name = truncate(nodeName, NodeFileLayout.MAX_NODE_NAME_LENGTH);
        header.putInt(NodeFileLayout.VERSION_OFFSET, NodeFileLayout.VERSION);
        header.putLong(NodeFileLayout.PID_OFFSET, ProcessHandle.current().pid());
        header.putLong(NodeFileLayout.START_TIME_OFFSET, System.currentTimeMillis());
        header.putInt(NodeFileLayout.METADATA_OFFSET_OFFSET, metadataOffset);
        header.putInt(NodeFileLayout.METADATA_LENGTH_OFFSET, metadataLength);
        header.putInt(NodeFileLayout.VALUES_OFFSET_OFFSET, valuesOffset);
        header.putInt(NodeFileLayout.VALUES_LENGTH_OFFSET, valuesLength);
        header.putInt(NodeFileLayout.ERROR_LOG_OFFSET_OFFSET, errorLogOffset);
        header.putInt(NodeFileLayout.ERROR_LOG_LENGTH_OFFSET, logLength);
        header.putInt(NodeFileLayout.HEARTBEAT_COUNTER_ID_OFFSET, heartbeat.id());
        header.putInt(NodeFileLayout.NODE_NAME_LENGTH_OFFSET, name.length);
        header.putBytes(NodeFileLayout.NODE_NAME_OFFSET, name);
        header.putInt(NodeFileLayout.HISTOGRAMS_OFFSET_OFFSET, histogramsOffset);
        header.putInt(NodeFileLayout.HISTOGRAMS_LENGTH_OFFSET, histogramsLength);
        // Last, with release semantics: a reader that sees the magic sees everything above.
        header.putIntRelease(NodeFileLayout.MAGIC_OFFSET, NodeFileLayout.MAGIC);
    }

    /**
     * Creates and maps a node file; an existing file of the same name left by a dead process is replaced.
     *
     * @param file           where, usually {@link NodeDirectory#fileFor(Path, String)}.
     * @param nodeName       the node's name, shown by tools.
     * @param maxCounters    slots for counters.
     * @param errorLogLength bytes for the distinct error log (rounded up to a page).
     * @param deleteOnClose  whether {@link #close()} deletes the file.
     * @return the writer.
     * @throws IllegalStateException when this process already has a live node file at that path.
     * @throws IOException           when the file cannot be created or mapped.
     */
    public static NodeFileWriter create(
        final Path file,
        final String nodeName,
        final int maxCounters,
        final int errorLogLength,
        final boolean deleteOnClose) throws IOException
    {
        final Path path = file.toAbsolutePath().normalize();
        if (!OPEN_FILES.add(path))
        {
            throw new IllegalStateException("a node of this process already uses " + path +
                "; give each node its own name (rivulet.nodeName)");
        }
        try
        {
            Files.createDirectories(path.getParent());
            Files.deleteIfExists(path);
            final MappedByteBuffer buffer = IoUtil.mapNewFile(path.toFile(),
                NodeFileLayout.fileLength(maxCounters, errorLogLength), false);
            return new NodeFileWriter(path, deleteOnClose, buffer, nodeName, maxCounters, errorLogLength);
        }
        catch (final IOException | RuntimeException ex)
        {
            OPEN_FILES.remove(path);
            throw ex instanceof IOException ? (IOException)ex : new IOException(ex.getMessage(), ex);
        }
    }

    /**
     * The same layout in direct memory: counters and errors work but only this process can read them.
     *
     * @return the writer; {@link #file()} is null.
     */
    public static NodeFileWriter inMemory(final String nodeName, final int maxCounters, final int errorLogLength)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(
            Math.toIntExact(NodeFileLayout.fileLength(maxCounters, errorLogLength)));
        return new NodeFileWriter(null, false, buffer, nodeName, maxCounters, errorLogLength);
    }

    @Override
    public AtomicCounter newCounter(final int typeId, final long ownerId, final String tag, final String label)
    {
        return newCounter(typeId, ownerId, tag, label, false);
    }

    /**
     * A counter whose slot is free for reuse as soon as it is closed, not after the usual second: for counters no
     * thread writes once they are closed (or whose late writes {@link RollUpCounter} drops), such as a connection's,
     * which churn would otherwise keep out of the node file.
     */
    AtomicCounter newCounterReusedOnClose(final int typeId, final long ownerId, final String tag, final String label)
    {
        return newCounter(typeId, ownerId, tag, label, true);
    }

    private AtomicCounter newCounter(
        final int typeId, final long ownerId, final String tag, final String label, final boolean reusedOnClose)
    {
        final byte[] tagBytes = truncate(tag == null ? "" : tag, MAX_TAG_LENGTH);
        final AtomicCounter counter;
        synchronized (manager)
        {
            final int id = manager.allocate(label, typeId, key ->
            {
                key.putInt(0, tagBytes.length);
                key.putBytes(Integer.BYTES, tagBytes);
            });
            manager.setCounterOwnerId(id, ownerId);
            manager.reusedOnClose(id, reusedOnClose);
            counter = new AtomicCounter(manager.valuesBuffer(), id, manager);
        }
        listeners.allocated(counter.id());
        return counter;
    }

    /**
     * @return counters that can be allocated now: slots never used and freed ones past their reuse delay (a slot
     *         freed less than a second ago is not yet, unless it was {@link #newCounterReusedOnClose reused on close}).
     */
    public int availableCounters()
    {
        synchronized (manager)
        {
            return manager.available();
        }
    }

    /**
     * Tells a listener of every counter allocated and freed from now on (not of those already allocated: read
     * them through {@link #countersReader()} after adding it).
     *
     * @param listener called on the allocating or freeing thread.
     */
    public void addListener(final CountersListener listener)
    {
        listeners.add(listener);
    }

    /** @param listener no longer told; a call under way may still reach it. */
    public void removeListener(final CountersListener listener)
    {
        listeners.remove(listener);
    }

    /**
     * @param id a histogram id of {@link NodeFileLayout}, e.g. {@link NodeFileLayout#HISTOGRAM_REQUEST_RESPONSE}.
     * @return the histogram's writer (one per id: it has a single writer).
     */
    public LatencyHistogram histogram(final int id)
    {
        return histogramWriters[id];
    }

    /** Records an error in the distinct error log (any thread; a repeat only bumps its count and time). */
    public void recordError(final Throwable error)
    {
        errorLog.record(error);
    }

    /** Conductor: marks the node alive at this epoch time. */
    public void heartbeat(final long epochMs)
    {
        heartbeat.setRelease(epochMs);
    }

    /**
     * Marks the node dead, its engine failed, with the cause's class and message (at most
     * {@link NodeFileLayout#MAX_FAILURE_CAUSE_LENGTH} bytes of UTF-8) and the time. The first cause stays; a later
     * {@link #close()} keeps the file and the status so that tools still tell why the node died.
     *
     * <p>Allocates nothing (it may run after an {@link OutOfMemoryError}): the text is encoded by hand into the
     * mapped header.
     *
     * @param cause what stopped the engine.
     */
    public synchronized void markDead(final Throwable cause)
    {
        if (dead)
        {
            return;
        }
        dead = true;
        int length = putUtf8(cause.getClass().getName(), 0);
        String message = null;
        try
        {
            message = cause.getMessage(); // Throwable's returns a field; an override might allocate
        }
        catch (final Throwable ignore)
        {
            // The class name alone, then.
        }
        if (message != null)
        {
            length = putUtf8(": ", length);
            length = putUtf8(message, length);
        }
        header.putLong(NodeFileLayout.FAILURE_TIME_OFFSET, System.currentTimeMillis());
        header.putInt(NodeFileLayout.FAILURE_CAUSE_LENGTH_OFFSET, length);
        header.putIntRelease(NodeFileLayout.STATUS_OFFSET, NodeFileLayout.STATUS_DEAD);
    }

    /** @return true once {@link #markDead} ran. */
    public synchronized boolean isDead()
    {
        return dead;
    }

    /** @return a reader over the counters (in this process). */
    public CountersReader countersReader()
    {
        return manager;
    }

    /** @return the error log region, for in-process readers. */
    public AtomicBuffer errorLogBuffer()
    {
        return errorLog.buffer();
    }

    /** @return the whole node file buffer (header and regions), for an in-process {@link NodeFile}. */
    public ByteBuffer buffer()
    {
        return mapped;
    }

    /** @return the node's name. */
    public String nodeName()
    {
        return nodeName;
    }

    /** @return the mapped file, or null when the counters live only in memory. */
    public Path file()
    {
        return file;
    }

    /**
     * Stops the heartbeat (set to 0 and the status CLOSED: the node closed cleanly) and deletes the file when
     * configured; the file of a node {@link #markDead marked dead} is kept as it is, heartbeat and cause, for tools to
     * read (the next node of the same name replaces it, and a starting node deletes those of dead processes).
     * Idempotent.
     *
     * <p>The mapping is left to the garbage collector rather than unmapped here: an application thread may
     * still bump a counter (a late offer on a closed publication), and a write to unmapped memory would crash
     * the JVM. On Linux the deleted file's pages go when the last mapping does.
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (!dead)
        {
            heartbeat.setRelease(0);
            header.putIntRelease(NodeFileLayout.STATUS_OFFSET, NodeFileLayout.STATUS_CLOSED);
        }
        if (file != null)
        {
            OPEN_FILES.remove(file);
            if (deleteOnClose && !dead)
            {
                IoUtil.deleteIfExists(file.toFile());
            }
        }
    }

    /**
     * Encodes text as UTF-8 into the failure cause field from a byte offset, without allocating; stops before a
     * character that does not fit. Unpaired and paired surrogates become '?': this is a diagnostic, not a transcript.
     *
     * @return the offset after the last byte written.
     */
    private int putUtf8(final String text, final int from)
    {
        int at = from;
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            final int bytes = c < 0x80 || Character.isSurrogate(c) ? 1 : c < 0x800 ? 2 : 3;
            if (at + bytes > NodeFileLayout.MAX_FAILURE_CAUSE_LENGTH)
            {
                break;
            }
            final int index = NodeFileLayout.FAILURE_CAUSE_OFFSET + at;
            if (Character.isSurrogate(c))
            {
                header.putByte(index, (byte)'?');
            }
            else if (bytes == 1)
            {
                header.putByte(index, (byte)c);
            }
            else if (bytes == 2)
            {
                header.putByte(index, (byte)(0xC0 | (c >> 6)));
                header.putByte(index + 1, (byte)(0x80 | (c & 0x3F)));
            }
            else
            {
                header.putByte(index, (byte)(0xE0 | (c >> 12)));
                header.putByte(index + 1, (byte)(0x80 | ((c >> 6) & 0x3F)));
                header.putByte(index + 2, (byte)(0x80 | (c & 0x3F)));
            }
            at += bytes;
        }
        return at;
    }

    private static byte[] truncate(final String text, final int maxBytes)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxBytes)
        {
            return bytes;
        }
        int length = maxBytes;
        while (length > 0 && (bytes[length] & 0xC0) == 0x80)
        {
            length--; // do not cut a UTF-8 sequence in half
        }
        return java.util.Arrays.copyOf(bytes, length);
    }

    /**
     * A counters manager whose allocation and freeing are serialised, since several threads allocate; the slots marked
     * {@link #reusedOnClose} skip Agrona's reuse delay when freed.
     */
    private static final class SerialCountersManager extends CountersManager
    {
        private final Listeners listeners;
        private final java.util.BitSet reusedOnClose = new java.util.BitSet();

        SerialCountersManager(final AtomicBuffer metadata, final AtomicBuffer values, final Listeners listeners)
        {
            super(metadata, values, StandardCharsets.UTF_8, SystemEpochClock.INSTANCE, FREE_TO_REUSE_MS);
            this.listeners = listeners;
        }

        @Override
        public synchronized int allocate(final String label, final int typeId,
            final java.util.function.Consumer<MutableDirectBuffer> keyFunc)
        {
            return super.allocate(label, typeId, keyFunc);
        }

        @Override
        public synchronized int allocate(final int typeId, final DirectBuffer keyBuffer, final int keyOffset,
            final int keyLength, final DirectBuffer labelBuffer, final int labelOffset, final int labelLength)
        {
            return super.allocate(typeId, keyBuffer, keyOffset, keyLength, labelBuffer, labelOffset, labelLength);
        }

        synchronized void reusedOnClose(final int counterId, final boolean reused)
        {
            reusedOnClose.set(counterId, reused);
        }

        @Override
        public void free(final int counterId)
        {
            final boolean reusedAtOnce;
            synchronized (this)
            {
                super.free(counterId);
                reusedAtOnce = reusedOnClose.get(counterId);
                reusedOnClose.clear(counterId);
            }
            listeners.freed(counterId); // outside the lock: a listener may read the counters
            if (reusedAtOnce)
            {
                // Reusable now, not in a second (the deadline Agrona just set, which kept churned slots out of use),
                // and only after the listeners heard of the free: one of them must not hear of a new counter in the
                // slot first.
                synchronized (this)
                {
                    metaDataBuffer.putLong(metaDataOffset(counterId) + FREE_FOR_REUSE_DEADLINE_OFFSET, 0L);
                }
            }
        }

        @Override
        public synchronized void setCounterOwnerId(final int counterId, final long ownerId)
        {
            super.setCounterOwnerId(counterId, ownerId);
        }
    }

    /** The listeners of one region; a failing one is logged and does not stop the others or the engine. */
    private static final class Listeners
    {
        private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(NodeFileWriter.class);
        private final java.util.concurrent.CopyOnWriteArrayList<CountersListener> list =
            new java.util.concurrent.CopyOnWriteArrayList<>();

        void add(final CountersListener listener)
        {
            list.add(java.util.Objects.requireNonNull(listener, "listener"));
        }

        void remove(final CountersListener listener)
        {
            list.remove(listener);
        }

        void allocated(final int counterId)
        {
            for (final CountersListener listener : list)
            {
                try
                {
                    listener.onAllocated(counterId);
                }
                catch (final RuntimeException ex)
                {
                    LOG.warn("counters listener {} failed on counter {} allocated: {}", listener, counterId,
                        ex.toString());
                }
            }
        }

        void freed(final int counterId)
        {
            for (final CountersListener listener : list)
            {
                try
                {
                    listener.onFreed(counterId);
                }
                catch (final RuntimeException ex)
                {
                    LOG.warn("counters listener {} failed on counter {} freed: {}", listener, counterId, ex.toString());
                }
            }
        }
    }
}
