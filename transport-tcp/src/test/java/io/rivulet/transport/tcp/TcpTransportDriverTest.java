package io.rivulet.transport.tcp;

import io.rivulet.spi.LinkClosedException;
import io.rivulet.spi.Transport;
import io.rivulet.transport.tcp.TcpTestSupport.FrameCollector;
import io.rivulet.transport.tcp.TcpTestSupport.LinkPair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

import static io.rivulet.transport.tcp.TcpTestSupport.SETTINGS;
import static io.rivulet.transport.tcp.TcpTestSupport.await;
import static io.rivulet.transport.tcp.TcpTestSupport.awaitPollFailure;
import static io.rivulet.transport.tcp.TcpTestSupport.connectPair;
import static io.rivulet.transport.tcp.TcpTestSupport.frame;
import static io.rivulet.transport.tcp.TcpTestSupport.receive;
import static io.rivulet.transport.tcp.TcpTestSupport.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class TcpTransportDriverTest
{
    private TcpTransportDriver serverDriver;
    private TcpTransportDriver clientDriver;

    @BeforeEach
    void setUp() throws IOException
    {
        serverDriver = new TcpTransport().open(SETTINGS);
        clientDriver = new TcpTransport().open(SETTINGS);
    }

    @AfterEach
    void tearDown()
    {
        clientDriver.close();
        serverDriver.close();
    }

    @Test
    void shouldBeFoundByServiceLoaderAsTcp() throws IOException
    {
        Transport found = null;
        for (final Transport transport : ServiceLoader.load(Transport.class))
        {
            if ("tcp".equals(transport.name()))
            {
                found = transport;
            }
        }

        assertThat(found).isInstanceOf(TcpTransport.class);
        try (var driver = found.open(SETTINGS))
        {
            assertThat(driver).isInstanceOf(TcpTransportDriver.class);
        }
    }

    @Test
    void shouldEndAWaitForWorkAtOnceWhenAWakeUpCameFirst()
    {
        assertThat(serverDriver.canAwaitWork()).isTrue();
        serverDriver.wakeUp();
        final long startNs = System.nanoTime();

        assertThat(serverDriver.awaitWork(60_000)).isZero();

        assertThat(System.nanoTime() - startNs).as("not the 60 s timeout").isLessThan(30_000_000_000L);
    }

    @Test
    void shouldEndAWaitForWorkWhenWokenFromAnotherThread() throws Exception
    {
        final Thread waiter = new Thread(() -> serverDriver.awaitWork(60_000), "awaiting-work");
        waiter.start();
        // Until it waits inside the selector (a wake-up before that would end the wait as well, untested here).
        await("the waiter in the selector", () -> inSelector(waiter));

        serverDriver.wakeUp();

        waiter.join(30_000);
        assertThat(waiter.isAlive()).as("woken, not waiting out its 60 s").isFalse();
    }

    private static boolean inSelector(final Thread thread)
    {
        for (final StackTraceElement frame : thread.getStackTrace())
        {
            if (frame.getClassName().startsWith("sun.nio.ch.") && frame.getMethodName().equals("doSelect"))
            {
                return true;
            }
        }
        return false;
    }

    @Test
    void shouldEndAWaitForWorkWhenALinkHasDataAndFlagTheLinkReady() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        send(pair.clientLink(), frame(8, 7), clientDriver);

        int ready = 0;
        for (int i = 0; i < 100 && ready == 0; i++)
        {
            ready = serverDriver.awaitWork(60_000); // returns with the data, not after 60 s
        }

        assertThat(ready).isPositive();
        final FrameCollector collector = new FrameCollector();
        receive(pair.serverLink(), collector, 1, serverDriver);
        assertThat(collector.frames).hasSize(1);
    }

    @Test
    void shouldEndAWaitForWorkWhenAWatchedDatagramSocketIsReadable() throws Exception
    {
        try (DatagramChannel watched = DatagramChannel.open(); DatagramChannel peer = DatagramChannel.open())
        {
            watched.configureBlocking(false);
            watched.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            serverDriver.readinessWatch().watch(watched);
            final Thread waiter = new Thread(() -> serverDriver.awaitWork(60_000), "awaiting-work");
            waiter.start();
            await("the waiter in the selector", () -> inSelector(waiter));

            peer.send(ByteBuffer.wrap(new byte[]{1, 2, 3}), watched.getLocalAddress());

            waiter.join(30_000);
            assertThat(waiter.isAlive()).as("woken by the datagram, not waiting out its 60 s").isFalse();
            // The watch only wakes: the datagram is still there for the endpoint's own read.
            assertThat(watched.receive(ByteBuffer.allocate(16))).isNotNull();
        }
    }

    @Test
    void shouldLeaveAWatchedSocketToItsOwnerAndForgetItOnceClosed() throws IOException
    {
        final DatagramChannel watched = DatagramChannel.open();
        watched.configureBlocking(false);
        watched.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        serverDriver.readinessWatch().watch(watched);
        try (TcpTransportDriver other = (TcpTransportDriver)new TcpTransport().open(SETTINGS))
        {
            other.readinessWatch().watch(watched);
        }

        // The driver that closed left the socket open: the endpoint owns it.
        assertThat(watched.isOpen()).isTrue();

        watched.close();
        // Closed, it leaves the selector: a short wait for work ends at its timeout, with nothing ready.
        assertThat(serverDriver.awaitWork(1)).isZero();
        assertThat(serverDriver.awaitWork(1)).isZero();
        assertThatThrownBy(() -> serverDriver.readinessWatch().watch(watched))
            .isInstanceOf(java.io.UncheckedIOException.class);
    }

    @Test
    void shouldReadALonelyLinkDirectlyWithItsSocketOutOfTheSelector() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final TcpLink server = pair.serverLink();
        assertThat(serverDriver.readsLinksDirectly()).isTrue();
        assertThat(server.readsDirectly()).as("not before its first bytes: it holds no buffer yet").isFalse();
        assertThat(serverDriver.allocatedBufferBytes()).isZero();

        final FrameCollector collector = new FrameCollector();
        send(pair.clientLink(), frame(8, 6), clientDriver);
        receive(server, collector, 1, serverDriver);
        assertThat(server.readsDirectly()).isTrue();
        assertThat(server.selectionKeyInterest()).as("in no epoll set").isZero();

        send(pair.clientLink(), frame(8, 7), clientDriver);
        await("the frame, read without the selector", () ->
        {
            assertThat(serverDriver.doWork(System.nanoTime())).as("the selector reports nothing").isZero();
            server.poll(collector, Integer.MAX_VALUE);
            return collector.frames.size() == 2;
        });
        assertThat(collector.frames).containsExactly(frame(8, 6), frame(8, 7));
    }

    @Test
    void shouldPollTheSelectorOnlyEverySoManyCyclesWhileALonelyLinkIsReadDirectlyAndStillAccept() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final FrameCollector collector = new FrameCollector();
        send(pair.clientLink(), frame(8, 4), clientDriver);
        receive(pair.serverLink(), collector, 1, serverDriver);
        assertThat(serverDriver.readsLinksDirectly()).isTrue();

        // On one clock reading, only the count of cycles paces the selector.
        final long nowNs = System.nanoTime();
        for (int i = 0; i < TcpTransportDriver.DIRECT_READ_SELECT_CYCLES; i++)
        {
            serverDriver.doWork(nowNs); // polls the selector once at least, and last at this clock reading
        }
        final long selects = serverDriver.selects();
        for (int i = 0; i < 3 * TcpTransportDriver.DIRECT_READ_SELECT_CYCLES; i++)
        {
            serverDriver.doWork(nowNs);
        }
        assertThat(serverDriver.selects() - selects).isEqualTo(3);
        // And a slow cycle polls it once the interval has passed, however few cycles ran.
        serverDriver.doWork(nowNs + TcpTransportDriver.DIRECT_READ_SELECT_INTERVAL_NS);
        assertThat(serverDriver.selects() - selects).isEqualTo(4);

        // The listener is still in the selector: a second connection is accepted, and its first bytes too (it is in
        // the selector until they come).
        final TcpLinkConnector connector = clientDriver.connect(pair.listener().localAddress());
        final TcpLink[] second = new TcpLink[2];
        await("a second connection", () ->
        {
            second[0] = second[0] == null ? pair.listener().accept() : second[0];
            second[1] = second[1] == null ? connector.poll() : second[1];
            return second[0] != null && second[1] != null;
        }, serverDriver, clientDriver);
        assertThat(serverDriver.readsLinksDirectly()).as("two links of at most " +
            TcpTransportDriver.DIRECT_READ_LINKS).isTrue();
        send(second[1], frame(8, 5), clientDriver);
        receive(second[0], collector, 2, serverDriver);
        assertThat(collector.frames).containsExactly(frame(8, 4), frame(8, 5));
        assertThat(second[0].readsDirectly()).isTrue();
    }

    @Test
    void shouldReadAFewLinksDirectlyEachOutOfTheSelector() throws IOException
    {
        final List<LinkPair> pairs = new ArrayList<>();
        for (int i = 0; i < TcpTransportDriver.DIRECT_READ_LINKS; i++)
        {
            pairs.add(connectPair(serverDriver, clientDriver, "127.0.0.1"));
        }
        assertThat(serverDriver.readsLinksDirectly()).isTrue();
        final FrameCollector collector = new FrameCollector();
        for (int i = 0; i < pairs.size(); i++)
        {
            send(pairs.get(i).clientLink(), frame(8, i), clientDriver);
            receive(pairs.get(i).serverLink(), collector, i + 1, serverDriver);
            assertThat(pairs.get(i).serverLink().readsDirectly()).isTrue();
            assertThat(pairs.get(i).serverLink().selectionKeyInterest()).as("in no epoll set").isZero();
        }

        // Data on each, read without the selector reporting any of them.
        for (int i = 0; i < pairs.size(); i++)
        {
            send(pairs.get(i).clientLink(), frame(8, 10 + i), clientDriver);
        }
        await("a frame on every link, read without the selector", () ->
        {
            assertThat(serverDriver.doWork(System.nanoTime())).as("the selector reports nothing").isZero();
            for (final LinkPair pair : pairs)
            {
                pair.serverLink().poll(collector, Integer.MAX_VALUE);
            }
            return collector.frames.size() == 2 * pairs.size();
        });
        for (int i = 0; i < pairs.size(); i++)
        {
            assertThat(collector.frames).contains(frame(8, 10 + i));
        }
    }

    @Test
    void shouldPutEveryLinkBackInTheSelectorWhileThereAreMoreThanItReadsDirectlyAndReadDirectlyAgainWhenFewerAreLeft()
        throws IOException
    {
        final LinkPair first = connectPair(serverDriver, clientDriver, "127.0.0.1");
        send(first.clientLink(), frame(8, 0), clientDriver);
        final FrameCollector collector = new FrameCollector();
        receive(first.serverLink(), collector, 1, serverDriver);
        assertThat(first.serverLink().readsDirectly()).isTrue();
        final List<LinkPair> others = new ArrayList<>();
        for (int i = 0; i < TcpTransportDriver.DIRECT_READ_LINKS; i++)
        {
            others.add(connectPair(serverDriver, clientDriver, "127.0.0.1"));
        }
        final LinkPair second = others.get(others.size() - 1);
        assertThat(serverDriver.readsLinksDirectly()).isFalse();
        assertThat(first.serverLink().readsDirectly()).isFalse();
        assertThat(second.serverLink().readsDirectly()).isFalse();
        assertThat(first.serverLink().selectionKeyInterest()).isEqualTo(SelectionKey.OP_READ);
        final long before = serverDriver.selects();
        final long nowNs = System.nanoTime();
        serverDriver.doWork(nowNs);
        serverDriver.doWork(nowNs);
        assertThat(serverDriver.selects() - before).as("every cycle, with the links in the selector").isEqualTo(2);

        // In the selector's interest again, the first link's data is what the selector reports.
        send(first.clientLink(), frame(8, 1), clientDriver);
        receive(first.serverLink(), collector, 2, serverDriver);
        assertThat(collector.frames).containsExactly(frame(8, 0), frame(8, 1));

        second.serverLink().close();
        assertThat(serverDriver.readsLinksDirectly()).isTrue();
        assertThat(first.serverLink().readsDirectly()).isTrue();
        send(first.clientLink(), frame(8, 2), clientDriver);
        receive(first.serverLink(), collector, 3, serverDriver);
        assertThat(collector.frames).containsExactly(frame(8, 0), frame(8, 1), frame(8, 2));
    }

    @Test
    void shouldKeepEveryLinkInTheSelectorOnceTheEngineWaitedInIt() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final FrameCollector collector = new FrameCollector();
        send(pair.clientLink(), frame(8, 2), clientDriver);
        receive(pair.serverLink(), collector, 1, serverDriver);
        assertThat(pair.serverLink().readsDirectly()).isTrue();
        send(pair.clientLink(), frame(8, 3), clientDriver);

        // The frame was sent while the socket was in no epoll set; the wait must see it anyway.
        int ready = 0;
        for (int i = 0; i < 3 && ready == 0; i++)
        {
            ready = serverDriver.awaitWork(10_000); // returns with the data, not after 10 s
        }
        assertThat(ready).isPositive();
        assertThat(pair.serverLink().readsDirectly()).isFalse();
        assertThat(serverDriver.readsLinksDirectly()).isFalse();

        final LinkPair later = connectPair(serverDriver, clientDriver, "127.0.0.1");
        later.serverLink().close();
        assertThat(pair.serverLink().readsDirectly()).as("a lonely link again, but the engine sleeps").isFalse();
        receive(pair.serverLink(), collector, 2, serverDriver);
        assertThat(collector.frames).containsExactly(frame(8, 2), frame(8, 3));
    }

    @Test
    void shouldBindEphemeralPortAndReportIt() throws IOException
    {
        final TcpLinkListener listener = serverDriver.listen("127.0.0.1:0");
        final String address = listener.localAddress();
        final int port = Integer.parseInt(address.substring("127.0.0.1:".length()));

        assertThat(address).startsWith("127.0.0.1:");
        assertThat(port).isBetween(1, 65535);
        assertThat(listener.accept()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", "127.0.0.1", "127.0.0.1:", ":7070", "127.0.0.1:99999", "127.0.0.1:-1", "127.0.0.1:port",
        "::1:7070", "[::1]", "[::1]7070", "[localhost]:7070", "bad host:7070", "127.0.0.1:7070 " })
    void shouldRejectMalformedAddressNamingIt(final String address)
    {
        assertThatThrownBy(() -> serverDriver.listen(address))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'" + address + "'");
        assertThatThrownBy(() -> clientDriver.connect(address))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'" + address + "'");
    }

    @Test
    void shouldNameAddressWhenConnectIsRefused() throws IOException
    {
        final TcpLinkListener listener = serverDriver.listen("127.0.0.1:0");
        final String address = listener.localAddress();
        listener.close();
        listener.close();

        final TcpLinkConnector connector = clientDriver.connect(address);
        final IOException[] failure = new IOException[1];
        await("refusal", () ->
        {
            try
            {
                assertThat(connector.poll()).isNull();
                return false;
            }
            catch (final IOException ex)
            {
                failure[0] = ex;
                return true;
            }
        }, clientDriver);

        assertThat(failure[0]).isInstanceOf(ConnectException.class).hasMessage("connection refused: " + address);
        assertThatThrownBy(connector::poll).isSameAs(failure[0]);
        connector.close();
    }

    @Test
    void shouldNameAddressWhenListenFails() throws IOException
    {
        try (ServerSocket taken = new ServerSocket())
        {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            final String address = "127.0.0.1:" + taken.getLocalPort();

            assertThatThrownBy(() -> serverDriver.listen(address))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(address);
        }
    }

    @Test
    void shouldExchangeFramesOnManyConnectionsOfOneListener() throws IOException
    {
        final int connections = 50;
        final TcpLinkListener listener = serverDriver.listen("127.0.0.1:0");
        final List<TcpLinkConnector> connectors = new ArrayList<>();
        for (int i = 0; i < connections; i++)
        {
            connectors.add(clientDriver.connect(listener.localAddress()));
        }

        final List<TcpLink> serverLinks = new ArrayList<>();
        final TcpLink[] clientLinks = new TcpLink[connections];
        await("all connections", () ->
        {
            TcpLink accepted;
            while (null != (accepted = listener.accept()))
            {
                serverLinks.add(accepted);
            }
            boolean allConnected = true;
            for (int i = 0; i < connections; i++)
            {
                if (null == clientLinks[i])
                {
                    clientLinks[i] = connectors.get(i).poll();
                }
                allConnected &= null != clientLinks[i];
            }
            return allConnected && serverLinks.size() == connections;
        }, serverDriver, clientDriver);

        for (int i = 0; i < connections; i++)
        {
            assertThat(clientLinks[i].offer(new UnsafeBuffer(frame(64, i)), 0, 64)).isTrue();
            clientLinks[i].flush();
        }

        // The server echoes each frame back on the link it came from.
        final int[] echoed = { 0 };
        await("echoes", () ->
        {
            for (final TcpLink link : serverLinks)
            {
                echoed[0] += link.poll((buffer, offset, length) -> link.offer(buffer, offset, length), 10);
                link.flush();
            }
            return echoed[0] == connections;
        }, serverDriver, clientDriver);

        final FrameCollector[] replies = new FrameCollector[connections];
        for (int i = 0; i < connections; i++)
        {
            replies[i] = new FrameCollector();
            receive(clientLinks[i], replies[i], 1, serverDriver, clientDriver);
            assertThat(replies[i].frames).containsExactly(frame(64, i));
        }
    }

    @Test
    void shouldExchangeFramesOverIpv6Loopback() throws IOException
    {
        assumeTrue(hasIpv6Loopback(), "no IPv6 loopback on this machine");

        final LinkPair pair = connectPair(serverDriver, clientDriver, "[::1]");

        assertThat(pair.listener().localAddress()).startsWith("[").contains("]:");
        assertThat(pair.clientLink().remoteAddress()).isEqualTo(pair.listener().localAddress());
        send(pair.clientLink(), frame(300, 6), serverDriver, clientDriver);
        final FrameCollector received = new FrameCollector();
        receive(pair.serverLink(), received, 1, serverDriver, clientDriver);
        assertThat(received.frames).containsExactly(frame(300, 6));
    }

    @Test
    void shouldCloseEveryLinkWhenDriverCloses() throws IOException
    {
        final LinkPair pair = connectPair(serverDriver, clientDriver, "127.0.0.1");
        final TcpLinkConnector pending = clientDriver.connect(pair.listener().localAddress());

        clientDriver.close();
        clientDriver.close();

        assertThat(clientDriver.isOpen()).isFalse();
        assertThat(clientDriver.doWork(System.nanoTime())).isZero();
        assertThat(pair.clientLink().isClosed()).isTrue();
        assertThatThrownBy(pending::poll).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> clientDriver.connect("127.0.0.1:1")).isInstanceOf(IllegalStateException.class);
        assertThat(awaitPollFailure(pair.serverLink(), new FrameCollector(), serverDriver))
            .isInstanceOf(LinkClosedException.class);
    }

    @Test
    void shouldReportNoWorkWhenIdle() throws IOException
    {
        connectPair(serverDriver, clientDriver, "127.0.0.1");
        serverDriver.doWork(System.nanoTime());
        clientDriver.doWork(System.nanoTime());

        assertThat(serverDriver.doWork(System.nanoTime())).isZero();
    }

    private static boolean hasIpv6Loopback()
    {
        try (ServerSocket probe = new ServerSocket())
        {
            probe.bind(new InetSocketAddress(InetAddress.getByName("::1"), 0));
            return true;
        }
        catch (final IOException | RuntimeException ex)
        {
            return false;
        }
    }
}
