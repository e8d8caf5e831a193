package io.rivulet.protocol;

import io.rivulet.Message;
import io.rivulet.MessageView;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class ReassemblyTest
{
    private static final int MAX_MESSAGE = 64 * 1024;
    private static final int FRAGMENT = 1024;

    private final MemoryBudget budget = new MemoryBudget(1L << 30, 1L << 30);
    private final List<String> closed = new ArrayList<>();
    private final ConnectionMemory memory = budget.open(() -> 0, closed::add);
    private final ReassemblyPool pool = new ReassemblyPool(MAX_MESSAGE, 1 << 20, System::nanoTime);

    private static byte[] bytes(final int length, final long seed)
    {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static Reassembly.Result append(final Reassembly reassembly, final byte[] metadata, final byte[] data)
    {
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[metadata.length + data.length]);
        frame.putBytes(0, metadata);
        frame.putBytes(metadata.length, data);
        return reassembly.append(frame, 0, metadata.length, metadata.length, data.length);
    }

    private static byte[] collected(final Reassembly reassembly)
    {
        final byte[] data = new byte[reassembly.dataLength()];
        reassembly.dataBuffer().getBytes(0, data);
        return data;
    }

    /** @return the bytes of the buffer from {@code offset} to its capacity. */
    private static byte[] bytesPast(final DirectBuffer buffer, final int offset)
    {
        final byte[] bytes = new byte[buffer.capacity() - offset];
        buffer.getBytes(offset, bytes);
        return bytes;
    }

    @Test
    void shouldKeepTheBytesAsItGrowsThroughTheSizeClasses()
    {
        final Reassembly reassembly = new Reassembly(MAX_MESSAGE, memory, pool);
        final byte[] metadata = bytes(300, 1);
        final byte[] data = bytes(20_000, 2);
        final int[] chunks = { 100, 150, 7, 1000, 3000, 743, 15_000 }; // small steps, then one over several classes
        int offset = 0;
        for (final int chunk : chunks)
        {
            final byte[] metadataChunk = offset == 0 ? metadata : new byte[0];
            assertThat(append(reassembly, metadataChunk, Arrays.copyOfRange(data, offset, offset + chunk)))
                .isEqualTo(Reassembly.Result.APPENDED);
            offset += chunk;
            assertThat(collected(reassembly)).isEqualTo(Arrays.copyOf(data, offset));
        }

        assertThat(offset).isEqualTo(data.length);
        assertThat(reassembly.dataBuffer().capacity()).as("a size class").isEqualTo(32 * 1024);
        assertThat(reassembly.metadataBuffer().capacity()).isEqualTo(512);
        assertThat(memory.held()).as("both buffers reserved").isEqualTo(32 * 1024 + 512);
        assertThat(reassembly.toMessage()).isEqualTo(Message.of(data).metadata(metadata));

        reassembly.release();
        assertThat(memory.held()).isZero();
    }

    @Test
    void shouldGiveBothBuffersAndEveryOutgrownOneBackToThePool()
    {
        final Reassembly first = new Reassembly(MAX_MESSAGE, memory, pool);
        assertThat(append(first, bytes(10, 3), bytes(200, 4))).isEqualTo(Reassembly.Result.APPENDED);
        final ByteBuffer smallData = first.dataBuffer().byteBuffer();
        assertThat(append(first, new byte[0], bytes(2000, 5))).isEqualTo(Reassembly.Result.APPENDED);
        assertThat(pool.idle()).as("256 B outgrown by 2200 B: the 256 B array is spare").isEqualTo(1);
        final ByteBuffer metadata = first.metadataBuffer().byteBuffer();
        final ByteBuffer data = first.dataBuffer().byteBuffer();
        assertThat(data.isDirect()).as("outside the heap").isTrue();

        first.release();
        first.release(); // a second release gives nothing twice

        assertThat(pool.idle()).isEqualTo(3);
        assertThat(pool.idleBytes()).isEqualTo(256 + 256 + 4096);
        assertThat(memory.held()).isZero();
        final Reassembly second = new Reassembly(MAX_MESSAGE, memory, pool);
        assertThat(append(second, bytes(10, 6), bytes(3000, 7))).isEqualTo(Reassembly.Result.APPENDED);
        assertThat(second.dataBuffer().byteBuffer()).isSameAs(data);
        assertThat(second.metadataBuffer().byteBuffer()).isIn(metadata, smallData);
        second.release();
    }

    @Test
    void shouldExposeNoByteOfAnEarlierMessage()
    {
        final byte[] secret = new byte[3000];
        Arrays.fill(secret, (byte)0x5A);
        final Reassembly first = new Reassembly(MAX_MESSAGE, memory, pool);
        assertThat(append(first, secret, secret)).isEqualTo(Reassembly.Result.APPENDED);
        final ByteBuffer firstData = first.dataBuffer().byteBuffer();
        first.release();

        final Reassembly second = new Reassembly(MAX_MESSAGE, memory, pool);
        final byte[] small = bytes(2100, 8);
        assertThat(append(second, new byte[] { 1 }, small)).isEqualTo(Reassembly.Result.APPENDED);
        assertThat(second.dataBuffer().byteBuffer()).as("the same buffer, reused").isSameAs(firstData);
        final MessageView view = new MessageView().wrap(second.metadataBuffer(), second.metadataLength(),
            second.dataBuffer(), second.dataLength());

        assertThat(view.dataLength()).isEqualTo(small.length);
        assertThat(view.metadataLength()).isEqualTo(1);
        assertThat(view.toMessage()).isEqualTo(Message.of(small).metadata(new byte[] { 1 }));
        // Even the buffers behind the view, read past its length, hold nothing of the first message.
        assertThat(bytesPast(second.dataBuffer(), small.length)).hasSize(firstData.capacity() - small.length)
            .containsOnly((byte)0);
        assertThat(bytesPast(second.metadataBuffer(), 1)).containsOnly((byte)0);
        assertThat(second.toMessage().dataBytes()).isEqualTo(small);
        second.release();
    }

    @Test
    void shouldRefuseGrowthOverTheConnectionsBudgetAndKeepWhatItHas()
    {
        final ConnectionMemory tight = new MemoryBudget(1 << 20, 4096).open(() -> 0, closed::add);
        final Reassembly reassembly = new Reassembly(MAX_MESSAGE, tight, pool);
        final byte[] data = bytes(3000, 9);
        assertThat(append(reassembly, new byte[0], data)).isEqualTo(Reassembly.Result.APPENDED);
        assertThat(tight.held()).isEqualTo(4096);

        assertThat(append(reassembly, new byte[0], bytes(2000, 10))).isEqualTo(Reassembly.Result.OVER_BUDGET);

        assertThat(reassembly.refusal()).contains("rivulet.maxConnectionMemory");
        assertThat(tight.held()).as("nothing reserved for the refused growth").isEqualTo(4096);
        assertThat(collected(reassembly)).isEqualTo(data);
        assertThat(pool.idle()).as("no array taken for it").isZero();
        reassembly.release();
        assertThat(tight.held()).isZero();
    }

    @Test
    void shouldRefuseAMessageOverTheMaximumLengthBeforeTakingMemory()
    {
        final Reassembly reassembly = new Reassembly(MAX_MESSAGE, memory, pool);
        assertThat(append(reassembly, bytes(100, 11), bytes(MAX_MESSAGE - 100, 12)))
            .isEqualTo(Reassembly.Result.APPENDED);
        final long held = memory.held();

        assertThat(append(reassembly, new byte[0], new byte[1])).isEqualTo(Reassembly.Result.MESSAGE_TOO_LONG);
        assertThat(memory.held()).isEqualTo(held);
        reassembly.release();

        final Reassembly oversized = new Reassembly(MAX_MESSAGE, memory, pool);
        assertThat(append(oversized, new byte[0], new byte[MAX_MESSAGE + 1]))
            .isEqualTo(Reassembly.Result.MESSAGE_TOO_LONG);
        assertThat(memory.held()).isZero();
        assertThat(oversized.dataBuffer().capacity()).isZero();
    }

    /**
     * The point of the pool: once warm, reassembling a message allocates its exact copy ({@link Reassembly#toMessage})
     * and the reassembly itself, not the buffers it grows through. Allocated bytes are read around a run of messages
     * and around a run of twice as many, so that what does not come with messages cancels out.
     */
    @Test
    void shouldAllocateLittleMoreThanTheMessageOnceWarm()
    {
        final int messages = 2_000;
        final UnsafeBuffer frame = new UnsafeBuffer(bytes(FRAGMENT, 13));
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long threadId = Thread.currentThread().getId();
        long checksum = reassemble(messages, frame); // warm: the pool's arrays and the JIT

        final long before = threads.getThreadAllocatedBytes(threadId);
        checksum += reassemble(messages, frame);
        final long middle = threads.getThreadAllocatedBytes(threadId);
        checksum += reassemble(2 * messages, frame);
        final long after = threads.getThreadAllocatedBytes(threadId);

        final long perMessage = ((after - middle) - (middle - before)) / messages;
        final long exactCopy = MAX_MESSAGE + 16; // toMessage's byte[] with its header
        System.out.println("reassembly of a 64 KiB message in 1 KiB fragments: " + perMessage + " bytes allocated, " +
            "of which the message's copy " + exactCopy);
        assertThat(checksum).isNotZero();
        assertThat(perMessage).as("bytes allocated per message besides its copy").isLessThan(exactCopy + 1024);
        assertThat(memory.held()).isZero();
    }

    /**
     * Why the buffers are direct: the bytes a peer keeps unfinished never reach the heap, even when the pool has no
     * spare to give (a flood's connections each grow their own), so the collector has nothing of them to copy.
     */
    @Test
    void shouldHoldTheCollectedBytesOutsideTheHeapEvenWithNoSpare()
    {
        final UnsafeBuffer frame = new UnsafeBuffer(bytes(FRAGMENT, 14));
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long threadId = Thread.currentThread().getId();
        reassemble(10, frame); // the JIT's first allocations, not the pool's: it gets a fresh pool below
        final ReassemblyPool empty = new ReassemblyPool(MAX_MESSAGE, 0, System::nanoTime);

        final long before = threads.getThreadAllocatedBytes(threadId);
        final Reassembly unfinished = new Reassembly(MAX_MESSAGE, memory, empty);
        for (int fragment = 0; fragment < MAX_MESSAGE / FRAGMENT - 1; fragment++)
        {
            assertThat(unfinished.append(frame, 0, 0, 0, FRAGMENT)).isEqualTo(Reassembly.Result.APPENDED);
        }
        final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

        System.out.println("a reassembly grown cold to " + unfinished.dataLength() + " bytes: " + allocated +
            " bytes of heap");
        assertThat(unfinished.dataBuffer().capacity()).isEqualTo(MAX_MESSAGE);
        assertThat(memory.held()).as("its capacity is still reserved").isEqualTo(MAX_MESSAGE);
        // Each growth's buffer object and cleaner, about 12 KB here; arrays would be 256 B + 512 B + ... + 64 KiB.
        assertThat(allocated).as("heap bytes for %d collected bytes (heap arrays: 127 KiB)", unfinished.dataLength())
            .isLessThan(MAX_MESSAGE / 4);
        unfinished.release();
        assertThat(memory.held()).isZero();
    }

    private long reassemble(final int messages, final UnsafeBuffer frame)
    {
        long checksum = 0;
        for (int i = 0; i < messages; i++)
        {
            final Reassembly reassembly = new Reassembly(MAX_MESSAGE, memory, pool);
            for (int fragment = 0; fragment < MAX_MESSAGE / FRAGMENT; fragment++)
            {
                reassembly.append(frame, 0, 0, 0, FRAGMENT);
            }
            final Message message = reassembly.toMessage();
            reassembly.release();
            checksum += message.dataLength() + message.data().getByte(i % FRAGMENT);
        }
        return checksum;
    }
}
