package io.rivulet.transport.tcp;

import io.rivulet.ConfigurationException;
import io.rivulet.Connection;
import io.rivulet.ProtocolViolationException;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.ThreadingMode;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.spi.ConnectionExtension;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.NodeExtension;
import io.rivulet.spi.Violation;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An application adds a protocol layer through {@code Context.extension} alone: the node attaches it to every
 * connection, hands it the frames of the type it claimed, drives it, reports its violations and closes it with the
 * connection and the node. The layer here claims DATAGRAM_OFFER, which a TCP node without topic datagrams leaves
 * free: each end sends one after SETUP with a session id of its choice, and a layer refuses id 13.
 */
class ConnectionExtensionTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();

    @AfterEach
    void closeNodes()
    {
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldDriveAnExtensionAddedThroughTheContextOnEveryConnection()
    {
        final Hello serverLayer = new Hello(7);
        final Hello clientLayer = new Hello(42);
        final Rivulet serverNode = launch(new Rivulet.Context().extension(executor -> serverLayer));
        final Rivulet clientNode = launch(new Rivulet.Context().extension(executor -> clientLayer));
        final String address = serverNode.bind("127.0.0.1:0", Responder.none()).block(TIMEOUT).localAddress();

        final Connection connection = clientNode.connect(address).block(TIMEOUT);
        Await.until(TIMEOUT, () -> serverLayer.received.size() == 1, () -> "the server's layer got " +
            serverLayer.received);
        assertThat(serverLayer.received).containsExactly(42);
        assertThat(serverLayer.attached.get()).isEqualTo(1);
        assertThat(clientLayer.attached.get()).isEqualTo(1);
        Await.until(TIMEOUT, () -> serverLayer.nodeCycles.get() > 0 && serverLayer.connectionCycles.get() > 0,
            () -> "the server node never ran its layer");

        connection.close();
        Await.until(TIMEOUT, () -> serverLayer.closedWith.size() == 1, () -> "the server's layer was not closed");
        assertThat(clientLayer.closedWith).hasSize(1);
        serverNode.close();
        assertThat(serverLayer.nodeClosed.get()).isTrue();
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseTheConnectionWithTheReasonTheExtensionReports()
    {
        final Hello serverLayer = new Hello(7);
        final Rivulet serverNode = launch(new Rivulet.Context().extension(executor -> serverLayer));
        final Rivulet clientNode = launch(new Rivulet.Context().extension(executor -> new Hello(Hello.RESERVED)));
        final String address = serverNode.bind("127.0.0.1:0", Responder.none()).block(TIMEOUT).localAddress();

        final Connection connection = clientNode.connect(address).block(TIMEOUT);

        connection.onClose().block(TIMEOUT); // the server answered ERROR (CONNECTION_ERROR) and closed
        assertThat(connection.isOpen()).isFalse();
        Await.until(TIMEOUT, () -> !errors.isEmpty(), () -> "no error reported on the server");
        assertThat(errors).anySatisfy(error -> assertThat(error).isInstanceOfSatisfying(
            ProtocolViolationException.class, violation ->
            {
                assertThat(violation.reason()).isEqualTo(Violation.INVALID_VALUE);
                assertThat(violation).hasMessageContaining("session 13 is reserved");
            }));
        assertThat(serverLayer.closedWith).hasSize(1);
    }

    @Test
    void shouldRefuseToStartWhenTwoExtensionsClaimOneFrameType()
    {
        final Rivulet.Context context = new Rivulet.Context().transport(new TcpTransport())
            .threadingMode(ThreadingMode.SHARED)
            .extension(executor -> new Hello(1))
            .extension(executor -> new Hello(2));

        assertThatThrownBy(() -> launch(context)).isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("DATAGRAM_OFFER").hasMessageContaining("another extension claimed already");
    }

    private Rivulet launch(final Rivulet.Context context)
    {
        final Rivulet node = Rivulet.launch(context.transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED)
            .errorHandler(errors::add));
        nodes.add(node);
        return node;
    }

    /** A layer that says hello with a session id after SETUP and records what its peer said. */
    private static final class Hello implements NodeExtension
    {
        /** The one session id this layer refuses. */
        static final int RESERVED = 13;
        final int sessionId;
        final AtomicInteger attached = new AtomicInteger();
        final AtomicInteger nodeCycles = new AtomicInteger();
        final AtomicInteger connectionCycles = new AtomicInteger();
        final List<Integer> received = new CopyOnWriteArrayList<>();
        final List<RivuletException> closedWith = new CopyOnWriteArrayList<>();
        final java.util.concurrent.atomic.AtomicBoolean nodeClosed = new java.util.concurrent.atomic.AtomicBoolean();

        Hello(final int sessionId)
        {
            this.sessionId = sessionId;
        }

        @Override
        public int[] frameTypes()
        {
            return new int[]{FrameType.DATAGRAM_OFFER};
        }

        @Override
        public ConnectionExtension attach(final ConnectionServices connection)
        {
            attached.incrementAndGet();
            return new ConnectionExtension()
            {
                @Override
                public void onSetupComplete()
                {
                    final byte[] address = {1};
                    final UnsafeBuffer frame = new UnsafeBuffer(new byte[FrameWriter.datagramOfferLength(address.length)]);
                    final int length = new FrameWriter().writeDatagramOffer(frame, 0, sessionId, 0, 1024, 64, address);
                    assertThat(connection.sendControl(frame, 0, length)).isTrue();
                }

                @Override
                public void onFrame(final FrameReader frame, final long nowNs)
                {
                    if (frame.sessionId() == RESERVED)
                    {
                        connection.violation(Violation.INVALID_VALUE, "session " + RESERVED + " is reserved");
                        return;
                    }
                    received.add(frame.sessionId());
                }

                @Override
                public int doWork(final long nowNs)
                {
                    connectionCycles.incrementAndGet();
                    return 0;
                }

                @Override
                public void onClose(final RivuletException cause)
                {
                    closedWith.add(cause);
                }
            };
        }

        @Override
        public int doWork(final long nowNs)
        {
            nodeCycles.incrementAndGet();
            return 0;
        }

        @Override
        public void close()
        {
            nodeClosed.set(true);
        }

        @Override
        public String toString()
        {
            return "Hello(" + sessionId + ")";
        }
    }
}
