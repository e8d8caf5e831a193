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
            assertThat(connections).allSatisfy(connection -> assertThat(connection.backPressure().get()).isOne());
            connections.forEach(ConnectionCounters::close);
        }
    }
}
