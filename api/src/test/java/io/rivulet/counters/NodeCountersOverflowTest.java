package io.rivulet.counters;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Connections beyond the node file's counter slots still count, in the node's one overflow region. */
class NodeCountersOverflowTest
{
    @Test
    void connectionsPastTheNodeFilesSlotsStillCountAndAddToTheNodeTotals()
    {
        final List<ConnectionCounters> connections = new ArrayList<>();
        try (NodeCounters counters = new NodeCounters(NodeFileWriter.inMemory("small", 64, 4096)))
        {
            for (int i = 0; i < 20; i++) // 8 slots each: the 64-slot node file holds fewer than half of them
            {
                final ConnectionCounters connection = counters.connectionCounters(counters.nextConnectionId(),
                    "127.0.0.1:" + (10_000 + i));
                connection.onFrameReceived(100);
                connections.add(connection);
            }

            assertThat(counters.framesReceived.get()).isEqualTo(20);
            assertThat(counters.bytesReceived.get()).isEqualTo(2_000);
            connections.forEach(connection -> connection.backPressure().increment());
            assertThat(counters.backPressureEvents.get()).isEqualTo(20);
            // Those past the slots share the overflow set: each reads what all of them counted.
            final long individual = connections.stream().filter(c -> c.backPressure().get() == 1).count();
            assertThat(individual).as("connections with counters of their own").isBetween(1L, 7L);
            assertThat(connections).filteredOn(connection -> connection.backPressure().get() != 1)
                .allSatisfy(connection -> assertThat(connection.backPressure().get()).isEqualTo(20 - individual));
            connections.forEach(ConnectionCounters::close);
        }
    }

    @Test
    void aConnectionTakesAsManySlotsAsItsCountersConstantSays()
    {
        try (NodeCounters counters = new NodeCounters(NodeFileWriter.inMemory("count", 64, 4096)))
        {
            final int before = counters.nodeFile().availableCounters();

            final ConnectionCounters connection = counters.connectionCounters();

            assertThat(before - counters.nodeFile().availableCounters()).isEqualTo(ConnectionCounters.COUNTERS);
            connection.close();
        }
    }

    /**
     * A node file with fewer free slots than a connection needs: the connection goes to the overflow region at once.
     * Had it tried the node file first, the counters manager would have handed out the last slots and then thrown,
     * leaving those slots taken by a connection that never got its counters.
     */
    @Test
    void aConnectionThatCannotFitGoesStraightToTheOverflowRegionAndTakesNoSlot()
    {
        final NodeFileWriter nodeFile = NodeFileWriter.inMemory("almost-full", 64, 4096);
        try (NodeCounters counters = new NodeCounters(nodeFile))
        {
            while (nodeFile.availableCounters() > ConnectionCounters.COUNTERS - 5)
            {
                nodeFile.newCounter(CounterTypes.ERRORS_BY_TYPE, CounterTypes.NO_OWNER, "", "filler");
            }
            final int free = nodeFile.availableCounters();

            final ConnectionCounters connection = counters.connectionCounters(counters.nextConnectionId(),
                "127.0.0.1:9");
            connection.onFrameReceived(10);
            connection.creditStalls().increment();

            assertThat(nodeFile.availableCounters()).as("the node file's last slots are left alone").isEqualTo(free);
            assertThat(counters.framesReceived.get()).as("the node total still counts").isOne();
            assertThat(counters.creditStalls.get()).as("its own counters roll up as before").isOne();
            assertThat(labels(counters)).noneMatch(label -> label.startsWith("conn " + connection.connectionId()));
            connection.close();
        }
    }

    /** Connections opened while the node file is full still count, in the overflow set they share. */
    @Test
    void aConnectionOpenedWhileTheNodeFileIsFullStillGetsWorkingCounters()
    {
        final List<ConnectionCounters> connections = new ArrayList<>();
        final NodeFileWriter nodeFile = NodeFileWriter.inMemory("churn", 64, 4096);
        try (NodeCounters counters = new NodeCounters(nodeFile))
        {
            while (nodeFile.availableCounters() >= ConnectionCounters.COUNTERS)
            {
                connections.add(counters.connectionCounters());
            }

            for (int i = 0; i < 50; i++)
            {
                final ConnectionCounters connection = counters.connectionCounters();
                connection.onMessageIn();
                connection.backPressure().increment();
                assertThat(connection.backPressure().get()).isEqualTo(i + 1);
                connection.close();
            }

            assertThat(counters.backPressureEvents.get()).isEqualTo(50);
            assertThat(nodeFile.availableCounters()).as("the overflow takes no slot of the node file")
                .isLessThan(ConnectionCounters.COUNTERS);
            connections.forEach(ConnectionCounters::close);
        }
    }

    private static List<String> labels(final NodeCounters counters)
    {
        final List<String> labels = new ArrayList<>();
        counters.reader().forEach((value, id, label) -> labels.add(label));
        return labels;
    }
}
