package io.rivulet.transport.rdma;

import io.rivulet.Connection;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.counters.CounterTypes;
import io.rivulet.counters.NodeDirectory;
import io.rivulet.counters.NodeFile;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.rdma.soft.SoftFaults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Topics over UD between two processes: a child JVM ({@link UdTopicPublisherMain}) publishes, this JVM subscribes,
 * both with {@code topicDatagrams} on the soft provider over sockets (the connection over TCP, UD over UDP on
 * loopback), each side dropping 2 % of its UD datagrams. The addresses the two ends offer each other cross the
 * process boundary; every message must arrive once, in order, with its bytes.
 */
class RdmaUdTopicTwoProcessTest
{
    private static final int COUNT = 20_000;

    @TempDir
    Path counters;

    @Test
    @ScaledTimeout(120)
    void shouldDeliverEveryMessageFromAnotherProcessOverUd() throws Exception
    {
        final Process child = RdmaTwoProcessTest.startChild(UdTopicPublisherMain.class, "90000", Integer.toString(COUNT),
            Double.toString(TestTime.scale()));
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        try (Rivulet node = Rivulet.launch(new Rivulet.Context()
            .transport(new RdmaTransport(RdmaTestSupport.socketProvider()
                .withFaults(SoftFaults.seeded(7).drop(0.02).duplicate(0.01))))
            .threadingMode(ThreadingMode.SHARED)
            .topicDatagrams(true)
            .nodeName("ud-two-process")
            .countersDirectory(counters.toString())
            .errorHandler(errors::add)))
        {
            final String address = RdmaTwoProcessTest.awaitReady(child);
            final Connection connection = node.connect(address).block(TestTime.seconds(30));
            final RdmaUdTopicTest.Checker checker = new RdmaUdTopicTest.Checker();
            connection.subscribe("md.x").subscribe(checker);
            Await.until("every message from the other process",
                () -> checker.last == COUNT || !checker.problems.isEmpty());

            assertThat(checker.problems).isEmpty();
            assertThat(checker.last).isEqualTo(COUNT);
            try (NodeFile file = NodeFile.open(NodeDirectory.fileFor(counters, "ud-two-process")))
            {
                assertThat(file.counters(CounterTypes.UD_CWND)).as("the connection's UD path").hasSize(1);
                Await.until("the NAKs this side sent for the publisher's drops are counted",
                    () -> file.sum(CounterTypes.UD_NAKS_SENT) > 0);
            }
            assertThat(errors).isEmpty();
        }
        finally
        {
            child.destroyForcibly();
            child.waitFor(TestTime.millis(10, TimeUnit.SECONDS), TimeUnit.MILLISECONDS);
        }
    }
}
