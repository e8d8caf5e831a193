package io.rivulet.transport.rdma;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.counters.CounterSnapshot;
import io.rivulet.counters.CounterTypes;
import io.rivulet.counters.NodeFile;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The RDMA transport's registered memory shows in each node's counters, and matches its memory pool. */
class RdmaRegistrationCountersTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

    @Test
    void registeredRegionsAndBytesAreCountedPerNode() throws IOException
    {
        final RdmaTransport transport = new RdmaTransport(RdmaTestSupport.provider());
        try (Rivulet serverNode = Rivulet.launch(context(transport, "rdma-server"));
             Rivulet clientNode = Rivulet.launch(context(transport, "rdma-client")))
        {
            final Server server = serverNode.bind("127.0.0.1:0", Responder.builder().requestResponse(Mono::just).build())
                .block(TIMEOUT);
            final Connection connection = clientNode.connect(server.localAddress()).block(TIMEOUT);
            assertThat(connection.requestResponse(Message.of("hello")).block(TIMEOUT).dataUtf8()).isEqualTo("hello");

            assertThat(transport.drivers()).hasSize(2);
            long regions = 0;
            long bytes = 0;
            for (final RdmaTransportDriver driver : transport.drivers())
            {
                regions += driver.memoryPool().liveRegistrations();
                bytes += driver.memoryPool().registeredBytes();
            }
            long countedRegions = 0;
            long countedBytes = 0;
            for (final Rivulet node : new Rivulet[]{serverNode, clientNode})
            {
                try (NodeFile file = NodeFile.wrap(node.counters().nodeFile().buffer()))
                {
                    final CounterSnapshot nodeRegions = file.counters(CounterTypes.RDMA_REGISTRATIONS).get(0);
                    assertThat(nodeRegions.tag()).isEqualTo("soft");
                    assertThat(nodeRegions.value()).isPositive();
                    countedRegions += nodeRegions.value();
                    countedBytes += file.sum(CounterTypes.RDMA_REGISTERED_BYTES);
                }
            }
            assertThat(countedRegions).isEqualTo(regions);
            assertThat(countedBytes).isEqualTo(bytes).isPositive();
        }
    }

    private static Rivulet.Context context(final RdmaTransport transport, final String name)
    {
        return new Rivulet.Context().transport(transport).nodeName(name).countersFile(false);
    }
}
