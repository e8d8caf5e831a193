package io.rivulet.counters;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node file's status field: RUNNING while the node runs, CLOSED after a clean close, DEAD with the cause once its
 * engine failed — told by the node rather than guessed from the heartbeat's age — and read defensively.
 */
class NodeFileStatusTest
{
    @TempDir
    Path directory;

    @Test
    void shouldSayRunningThenClosedAfterACleanClose() throws IOException
    {
        final Path file = NodeDirectory.fileFor(directory, "clean");
        final NodeFileWriter writer = NodeFileWriter.create(file, "clean", 64, 4096, false);
        try (NodeFile node = NodeFile.open(file))
        {
            assertThat(node.status()).isEqualTo(NodeStatus.RUNNING);
            assertThat(node.failureCause()).isEmpty();
            assertThat(node.isAlive(System.currentTimeMillis(), 60_000)).isTrue();

            writer.close();

            assertThat(node.status()).isEqualTo(NodeStatus.CLOSED);
            assertThat(node.heartbeatMs()).isZero();
            assertThat(node.isAlive(System.currentTimeMillis(), 60_000)).isFalse();
        }
    }

    @Test
    void shouldSayDeadWithTheCauseAndKeepTheFileOnClose() throws IOException
    {
        final Path file = NodeDirectory.fileFor(directory, "failed");
        final NodeFileWriter writer = NodeFileWriter.create(file, "failed", 64, 4096, true);
        final long before = System.currentTimeMillis();

        writer.markDead(new OutOfMemoryError("Java heap space"));
        writer.markDead(new IllegalStateException("a later error")); // the first cause stays
        writer.close();

        assertThat(file).as("kept: it says why the node died").exists();
        try (NodeFile node = NodeFile.open(file))
        {
            assertThat(node.status()).isEqualTo(NodeStatus.DEAD);
            assertThat(node.failureCause()).isEqualTo("java.lang.OutOfMemoryError: Java heap space");
            assertThat(node.failureTimeMs()).isBetween(before, System.currentTimeMillis());
            assertThat(node.heartbeatMs()).as("left as it was").isNotZero();
            assertThat(node.isAlive(System.currentTimeMillis(), 60_000)).isFalse();
        }
    }

    @Test
    void shouldWriteACauseWithoutAMessageAndOneTooLongForTheField() throws IOException
    {
        final Path bare = NodeDirectory.fileFor(directory, "bare");
        try (NodeFileWriter writer = NodeFileWriter.create(bare, "bare", 64, 4096, false))
        {
            writer.markDead(new StackOverflowError());
        }
        try (NodeFile node = NodeFile.open(bare))
        {
            assertThat(node.failureCause()).isEqualTo("java.lang.StackOverflowError");
        }

        final Path longer = NodeDirectory.fileFor(directory, "long");
        try (NodeFileWriter writer = NodeFileWriter.create(longer, "long", 64, 4096, false))
        {
            writer.markDead(new IllegalStateException("é".repeat(2_000) + "\uD83D\uDE00"));
        }
        try (NodeFile node = NodeFile.open(longer))
        {
            final String cause = node.failureCause();
            assertThat(cause).startsWith("java.lang.IllegalStateException: éé").doesNotContain("\uFFFD");
            assertThat(cause.getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(NodeFileLayout.MAX_FAILURE_CAUSE_LENGTH);
        }
    }

    @Test
    void shouldWriteTheCauseWithoutAllocating() throws IOException
    {
        final Path file = NodeDirectory.fileFor(directory, "quiet");
        try (NodeFileWriter writer = NodeFileWriter.create(file, "quiet", 64, 4096, false))
        {
            final OutOfMemoryError cause = new OutOfMemoryError("Java heap space");
            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
            final long threadId = Thread.currentThread().getId();
            writer.isDead(); // warm the monitor path
            final long before = threads.getThreadAllocatedBytes(threadId);
            writer.markDead(cause);
            final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

            assertThat(allocated).as("bytes allocated by markDead").isZero();
        }
    }

    @Test
    void shouldReadAnUnknownStatusAsRunningAndAnOutOfRangeCauseLengthAsNoCause() throws IOException
    {
        final Path file = NodeDirectory.fileFor(directory, "hostile");
        try (NodeFileWriter writer = NodeFileWriter.create(file, "hostile", 64, 4096, false))
        {
            writer.markDead(new IllegalStateException("x"));
        }
        try (RandomAccessFile raw = new RandomAccessFile(file.toFile(), "rw"))
        {
            raw.seek(NodeFileLayout.FAILURE_CAUSE_LENGTH_OFFSET);
            raw.writeInt(Integer.reverseBytes(1_000_000));
        }
        try (NodeFile node = NodeFile.open(file))
        {
            assertThat(node.status()).isEqualTo(NodeStatus.DEAD);
            assertThat(node.failureCause()).isEmpty();
        }
        try (RandomAccessFile raw = new RandomAccessFile(file.toFile(), "rw"))
        {
            raw.seek(NodeFileLayout.STATUS_OFFSET);
            raw.writeInt(Integer.reverseBytes(77));
        }
        try (NodeFile node = NodeFile.open(file))
        {
            assertThat(node.status()).isEqualTo(NodeStatus.RUNNING);
        }
    }
}
