package io.rivulet.counters;

import org.agrona.concurrent.status.AtomicCounter;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Under connection churn a closed connection's counter slots go to the next connection at once, and the connections
 * the node file has no slots for share one overflow region made at start, which prints nothing.
 */
class NodeCountersRecyclingTest
{
    private static final int SLOTS = 256;

    @Test
    void shouldGiveAClosedConnectionsSlotsToTheNextConnectionAtOnce()
    {
        final NodeFileWriter nodeFile = NodeFileWriter.inMemory("recycle", SLOTS, 4096);
        try (NodeCounters counters = new NodeCounters(nodeFile))
        {
            final int start = nodeFile.availableCounters();
            final int fit = start / ConnectionCounters.COUNTERS;
            for (int round = 0; round < 5; round++)
            {
                final List<ConnectionCounters> open = new ArrayList<>();
                for (int i = 0; i < fit; i++)
                {
                    open.add(counters.connectionCounters(counters.nextConnectionId(), "127.0.0.1:" + (1000 + i)));
                }

                assertThat(labels(counters).stream().filter(label -> label.startsWith("conn ")))
                    .as("round %d: every connection counted in the node file, none sent to the overflow", round)
                    .hasSize(fit * ConnectionCounters.COUNTERS);
                open.forEach(ConnectionCounters::close);
                assertThat(nodeFile.availableCounters()).as("round %d: the slots free again at once", round)
                    .isEqualTo(start);
            }
        }
    }

    @Test
    void shouldShareOneOverflowRegionMadeAtStartAndPrintNothing()
    {
        new NodeCounters().close(); // the logging facade's own start-up lines, if any, before the capture
        final PrintStream stderr = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final List<ConnectionCounters> open = new ArrayList<>();
        try (PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8))
        {
            System.setErr(capture);
            try (NodeCounters counters = new NodeCounters(NodeFileWriter.inMemory("overflow", SLOTS, 4096)))
            {
                final NodeFileWriter overflow = counters.overflowRegion();
                while (counters.nodeFile().availableCounters() >= ConnectionCounters.COUNTERS)
                {
                    open.add(counters.connectionCounters());
                }
                // More than any per-connection overflow region ever held, open at once, then churned.
                for (int i = 0; i < 3_000; i++)
                {
                    final ConnectionCounters connection = counters.connectionCounters();
                    connection.onFrameReceived(10);
                    connection.backPressure().increment();
                    open.add(connection);
                }
                for (int i = 0; i < 3_000; i++)
                {
                    counters.connectionCounters().close();
                }

                assertThat(captured.toString(StandardCharsets.UTF_8)).as("stderr").isEmpty();
                assertThat(counters.overflowRegion()).as("the same region throughout").isSameAs(overflow);
                assertThat(counters.framesReceived.get()).as("the node total still counts").isEqualTo(3_000);
                assertThat(counters.backPressureEvents.get()).isEqualTo(3_000);
                assertThat(overflow.countersReader().maxCounterId() + 1)
                    .as("one set of a connection's counters, shared").isLessThanOrEqualTo(64);
                open.forEach(ConnectionCounters::close);
            }
        }
        finally
        {
            System.setErr(stderr);
        }
    }

    @Test
    void shouldNotLetALateIncrementOfAClosedConnectionReachTheConnectionThatTookItsSlots()
    {
        try (NodeCounters counters = new NodeCounters(NodeFileWriter.inMemory("late", SLOTS, 4096)))
        {
            final ConnectionCounters closed = counters.connectionCounters();
            final AtomicCounter lateStalls = closed.creditStalls();
            final AtomicCounter lateBackPressure = closed.backPressure();
            closed.close();
            final ConnectionCounters next = counters.connectionCounters();
            assertThat(next.creditStalls().id()).as("the freed slot reused at once").isEqualTo(lateStalls.id());

            lateStalls.increment(); // a producer thread still inside the closed connection's flow control
            lateBackPressure.incrementRelease();

            assertThat(next.creditStalls().get()).isZero();
            assertThat(next.backPressure().get()).isZero();
            assertThat(counters.creditStalls.get()).as("the node total still counts it").isOne();
            assertThat(counters.backPressureEvents.get()).isOne();
            next.close();
        }
    }

    /** A listener (the Micrometer binder) must hear of a free before another counter can take the slot. */
    @Test
    void shouldNotReuseAConnectionsSlotBeforeTheListenersHeardOfItsFree()
    {
        final NodeFileWriter nodeFile = NodeFileWriter.inMemory("listeners", SLOTS, 4096);
        try (NodeCounters counters = new NodeCounters(nodeFile))
        {
            final ConnectionCounters connection = counters.connectionCounters();
            final int whileOpen = nodeFile.availableCounters();
            final List<Integer> availableWhenTold = new ArrayList<>();
            nodeFile.addListener(new CountersListener()
            {
                @Override
                public void onAllocated(final int counterId)
                {
                }

                @Override
                public void onFreed(final int counterId)
                {
                    availableWhenTold.add(nodeFile.availableCounters());
                }
            });

            connection.close();

            assertThat(availableWhenTold).as("slots reusable as each free was told")
                .containsExactly(whileOpen, whileOpen + 1, whileOpen + 2, whileOpen + 3, whileOpen + 4,
                    whileOpen + 5, whileOpen + 6, whileOpen + 7);
            assertThat(nodeFile.availableCounters()).isEqualTo(whileOpen + ConnectionCounters.COUNTERS);
        }
    }

    @Test
    void shouldFreeWhatAConnectionTookWhenItsCountersDoNotAllFit()
    {
        final NodeFileWriter nodeFile = NodeFileWriter.inMemory("partial", 64, 4096);
        try (NodeCounters counters = new NodeCounters(nodeFile))
        {
            while (nodeFile.availableCounters() > ConnectionCounters.COUNTERS - 3)
            {
                nodeFile.newCounter(CounterTypes.ERRORS_BY_TYPE, CounterTypes.NO_OWNER, "", "filler");
            }
            final int free = nodeFile.availableCounters();

            // What another thread taking the room between the check and the allocation would leave.
            assertThatThrownBy(() -> new ConnectionCounters(1, "127.0.0.1:1", nodeFile, counters.framesReceived,
                counters.bytesReceived, counters.messagesReceived, counters.creditStalls, counters.backPressureEvents,
                counters.protocolErrors, counters.connectionsLost, counters.connectionsClosed, counters.setupsRejected,
                counters.setupTimeouts, counters.limitRejections, counters.requestLatency))
                .isInstanceOf(IllegalStateException.class);

            assertThat(nodeFile.availableCounters()).as("the slots it took are free again").isEqualTo(free);
        }
    }

    private static List<String> labels(final NodeCounters counters)
    {
        final List<String> labels = new ArrayList<>();
        counters.reader().forEach((value, id, label) -> labels.add(label));
        return labels;
    }
}
