package io.rivulet.transport.tcp;

import io.rivulet.spi.FrameHandler;
import io.rivulet.transport.tcp.TcpTestSupport.LinkPair;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;

import static io.rivulet.transport.tcp.TcpTestSupport.SETTINGS;
import static io.rivulet.transport.tcp.TcpTestSupport.TIMEOUT_NS;
import static io.rivulet.transport.tcp.TcpTestSupport.connectPair;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class TcpLinkAllocationTest
{
    private static final int FRAMES = 200_000;
    private static final int FRAME_LENGTH = 64;
    private static final long ALLOCATION_BOUND_BYTES = 64 * 1024;

    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[FRAME_LENGTH]);
    private final CountingHandler handler = new CountingHandler();

    @Test
    void shouldNotAllocateOnSteadyStateSendAndReceive() throws IOException
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counting unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);

        try (TcpTransportDriver driver = new TcpTransport().open(SETTINGS))
        {
            final LinkPair pair = connectPair(driver, driver, "127.0.0.1");

            exchange(driver, pair.clientLink(), pair.serverLink(), FRAMES);
            threads.getCurrentThreadAllocatedBytes();

            final long before = threads.getCurrentThreadAllocatedBytes();
            final long sent = exchange(driver, pair.clientLink(), pair.serverLink(), FRAMES);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

            assertThat(sent).isEqualTo(FRAMES);
            assertThat(handler.outOfOrder).isZero();
            assertThat(allocated).as("bytes allocated for %d frames", FRAMES).isLessThan(ALLOCATION_BOUND_BYTES);
        }
    }

    private long exchange(final TcpTransportDriver driver, final TcpLink sender, final TcpLink receiver, final int frames)
        throws IOException
    {
        final long start = handler.received;
        long sent = 0;
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        for (int i = 0; i < 100_000_000 && handler.received - start < frames; i++)
        {
            while (sent < frames)
            {
                frame.putLong(0, handler.expected + (sent - (handler.received - start)));
                if (!sender.offer(frame, 0, FRAME_LENGTH))
                {
                    break;
                }
                sent++;
            }
            sender.flush();
            driver.doWork(System.nanoTime());
            receiver.poll(handler, 256);

            if (System.nanoTime() - deadlineNs > 0)
            {
                break;
            }
        }
        assertThat(handler.received - start).isEqualTo(frames);

        return sent;
    }

    /** Checks sequence numbers; fields only, so it allocates nothing. */
    private static final class CountingHandler implements FrameHandler
    {
        long received;
        long expected;
        long outOfOrder;

        @Override
        public void onFrame(final DirectBuffer buffer, final int offset, final int length)
        {
            if (buffer.getLong(offset) != expected || length != FRAME_LENGTH)
            {
                outOfOrder++;
            }
            expected++;
            received++;
        }
    }
}
