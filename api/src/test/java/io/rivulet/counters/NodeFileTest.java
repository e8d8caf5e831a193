package io.rivulet.counters;

import io.rivulet.counters.NodeCounters;
import io.rivulet.counters.ConnectionCounters;
import org.agrona.concurrent.status.AtomicCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The node file from both sides: what the engine writes, what a separate read-only mapping sees. */
class NodeFileTest
{
    @TempDir
    Path directory;

    @Test
    void aSeparateReadOnlyMappingSeesHeaderCountersTagsAndOwners() throws IOException
    {
        final Path file = NodeDirectory.fileFor(directory, "alpha");
        try (NodeCounters counters = new NodeCounters(NodeFileWriter.create(file, "alpha", 128, 8192, true)))
        {
            counters.framesSent.getAndAdd(7);
            final ConnectionCounters connection = counters.connectionCounters(42, "10.0.0.9:7070");
            connection.onFramesSent(3, 300, 2);
            connection.backPressure().increment();
            counters.heartbeat(123_456L);

            try (NodeFile node = NodeFile.open(file))
            {
                assertThat(node.nodeName()).isEqualTo("alpha");
                assertThat(node.pid()).isEqualTo(ProcessHandle.current().pid());
                assertThat(node.heartbeatMs()).isEqualTo(123_456L);
                assertThat(node.sum(CounterTypes.NODE_FRAMES_SENT)).isEqualTo(7);
                final List<CounterSnapshot> bytesOut = node.counters(CounterTypes.CONNECTION_BYTES_OUT);
                assertThat(bytesOut).singleElement().satisfies(counter ->
                {
                    assertThat(counter.value()).isEqualTo(300);
                    assertThat(counter.ownerId()).isEqualTo(42);
                    assertThat(counter.tag()).isEqualTo("10.0.0.9:7070");
                    assertThat(counter.label()).contains("conn 42").contains("bytes out");
                });
                assertThat(node.sum(CounterTypes.CONNECTION_MESSAGES_OUT)).isEqualTo(2);
                // A connection's back-pressure adds to its own counter and to the node's total.
                assertThat(node.sum(CounterTypes.CONNECTION_BACK_PRESSURE)).isEqualTo(1);
                assertThat(node.sum(CounterTypes.NODE_BACK_PRESSURE)).isEqualTo(1);

                connection.close();
                assertThat(node.counters(CounterTypes.CONNECTION_BYTES_OUT)).as("freed when the connection closes")
                    .isEmpty();
                assertThat(node.sum(CounterTypes.NODE_BACK_PRESSURE)).isEqualTo(1);
            }
        }
        assertThat(file).as("deleted on close").doesNotExist();
    }

    @Test
    void errorLogKeepsDistinctErrorsWithCountsAndCountsByType() throws IOException
    {
        final Path file = NodeDirectory.fileFor(directory, "errors");
        try (NodeCounters counters = new NodeCounters(NodeFileWriter.create(file, "errors", 128, 256 * 1024, true)))
        {
            for (int i = 0; i < 3; i++)
            {
                counters.onError(failure("same place"));
            }
            counters.onError(new IllegalArgumentException("elsewhere"));

            try (NodeFile node = NodeFile.open(file))
            {
                final List<ErrorRecord> errors = node.errors();
                assertThat(errors).hasSize(2);
                assertThat(errors).filteredOn(error -> error.summary().contains("same place"))
                    .singleElement().extracting(ErrorRecord::count).isEqualTo(3);
                assertThat(errors).filteredOn(error -> error.summary().contains("elsewhere"))
                    .singleElement().extracting(ErrorRecord::count).isEqualTo(1);
                assertThat(node.sum(CounterTypes.NODE_ERRORS)).isEqualTo(4);
                assertThat(node.counters(CounterTypes.ERRORS_BY_TYPE))
                    .extracting(CounterSnapshot::tag, CounterSnapshot::value)
                    .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("IllegalStateException", 3L),
                        org.assertj.core.groups.Tuple.tuple("IllegalArgumentException", 1L));
            }
        }
    }

    @Test
    void cleanCloseStopsTheHeartbeatAndCanKeepTheFile() throws IOException
    {
        final Path file = NodeDirectory.fileFor(directory, "kept");
        final NodeFileWriter writer = NodeFileWriter.create(file, "kept", 64, 4096, false);
        writer.heartbeat(System.currentTimeMillis());
        try (NodeFile node = NodeFile.open(file))
        {
            assertThat(node.isAlive(System.currentTimeMillis(), 10_000)).isTrue();
            writer.close();
            assertThat(node.heartbeatMs()).isZero();
            assertThat(node.isAlive(System.currentTimeMillis(), 10_000)).isFalse();
        }
        assertThat(file).exists();
        assertThat(NodeDirectory.list(directory)).containsExactly(file);
    }

    @Test
    void oneProcessCannotRunTwoLiveNodesOfTheSameName() throws IOException
    {
        final Path file = NodeDirectory.fileFor(directory, "twin");
        try (NodeFileWriter first = NodeFileWriter.create(file, "twin", 64, 4096, true))
        {
            assertThatThrownBy(() -> NodeFileWriter.create(file, "twin", 64, 4096, true))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("twin");
            assertThat(first.file()).exists();
        }
        try (NodeFileWriter again = NodeFileWriter.create(file, "twin", 64, 4096, true))
        {
            assertThat(again.file()).as("the name is free again after close").exists();
        }
    }

    @Test
    void aFullRegionFailsAllocationClearlyAndFreedSlotsAreCountedOut() throws IOException
    {
        try (NodeFileWriter writer = NodeFileWriter.inMemory("small", 64, 4096))
        {
            // The heartbeat takes one slot.
            for (int i = 0; i < 63; i++)
            {
                writer.newCounter(CounterTypes.TOPIC_PUBLISHED, CounterTypes.NO_OWNER, "t" + i, "topic " + i);
            }
            assertThatThrownBy(() -> writer.newCounter(CounterTypes.TOPIC_DROPS, -1, "x", "one too many"))
                .isInstanceOf(IllegalStateException.class);
            try (NodeFile node = NodeFile.wrap(writer.buffer()))
            {
                assertThat(node.counters(CounterTypes.TOPIC_PUBLISHED)).hasSize(63);
            }
        }
    }

    @Test
    void hostileFilesAreRefusedWithAReason() throws IOException
    {
        final Path tooShort = directory.resolve("short" + NodeFileLayout.FILE_SUFFIX);
        Files.write(tooShort, new byte[100]);
        assertThatThrownBy(() -> NodeFile.open(tooShort)).isInstanceOf(IOException.class).hasMessageContaining("too short");

        final Path notReady = directory.resolve("zero" + NodeFileLayout.FILE_SUFFIX);
        Files.write(notReady, new byte[NodeFileLayout.HEADER_LENGTH * 2]);
        assertThatThrownBy(() -> NodeFile.open(notReady)).isInstanceOf(IOException.class).hasMessageContaining("not ready");

        final Path file = NodeDirectory.fileFor(directory, "hostile");
        try (NodeFileWriter writer = NodeFileWriter.create(file, "hostile", 64, 4096, false))
        {
            writer.heartbeat(1);
        }
        try (RandomAccessFile raw = new RandomAccessFile(file.toFile(), "rw"))
        {
            raw.seek(NodeFileLayout.VALUES_LENGTH_OFFSET);
            raw.writeInt(Integer.MAX_VALUE); // far past the end of the file
        }
        assertThatThrownBy(() -> NodeFile.open(file)).isInstanceOf(IOException.class)
            .hasMessageContaining("values region out of bounds");
        assertThatThrownBy(() -> NodeFile.open(directory.resolve("absent" + NodeFileLayout.FILE_SUFFIX)))
            .isInstanceOf(IOException.class).hasMessageContaining("no such node file");
    }

    @Test
    void staleFilesOfDeadProcessesAreDeletedAndLiveOnesKept() throws Exception
    {
        final Path live = NodeDirectory.fileFor(directory, "live");
        try (NodeFileWriter writer = NodeFileWriter.create(live, "live", 64, 4096, true))
        {
            final Path dead = directory.resolve("dead-1" + NodeFileLayout.FILE_SUFFIX);
            Files.copy(live, dead);
            final long deadPid = exitedProcessId();
            try (RandomAccessFile raw = new RandomAccessFile(dead.toFile(), "rw"))
            {
                raw.seek(NodeFileLayout.PID_OFFSET);
                raw.writeLong(Long.reverseBytes(deadPid)); // the file is little-endian
            }
            try (NodeFile node = NodeFile.open(dead))
            {
                assertThat(node.pid()).isEqualTo(deadPid);
            }
            assertThat(NodeDirectory.deleteStale(directory)).isEqualTo(1);
            assertThat(dead).doesNotExist();
            assertThat(writer.file()).exists();
        }
    }

    @Test
    void detachedCountersCountWithoutANodeFile()
    {
        final AtomicCounter counter = CounterFactory.detached().newCounter(CounterTypes.RDMA_REGISTRATIONS, -1, "", "x");
        counter.increment();
        counter.increment();
        assertThat(counter.get()).isEqualTo(2);
    }

    private static long exitedProcessId() throws Exception
    {
        final Process process = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-version")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        process.waitFor();
        return process.pid();
    }

    private static IllegalStateException failure(final String message)
    {
        return new IllegalStateException(message);
    }
}
