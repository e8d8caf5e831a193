package io.rivulet.transport.rdma.cm;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConnectionSetupTest
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);
    private static final InetSocketAddress PEER = new InetSocketAddress("10.0.0.2", 7070);

    private final RecordingActions actions = new RecordingActions();
    private long nowNs = 1_000;

    @Test
    void shouldWalkTheActiveSideThroughResolutionToEstablished() throws IOException
    {
        final ConnectionSetup setup = ConnectionSetup.active(PEER, nowNs, TIMEOUT_NS, actions);
        assertThat(setup.poll(nowNs)).isFalse();
        assertThat(actions.calls).isEmpty();

        setup.onEvent(CmEventType.ADDR_RESOLVED);
        assertThat(actions.calls).containsExactly("resolveRoute");
        setup.onEvent(CmEventType.ROUTE_RESOLVED);
        assertThat(actions.calls).containsExactly("resolveRoute", "connect");
        assertThat(setup.poll(nowNs)).isFalse();
        assertThat(setup.needsDisconnect()).isTrue();

        setup.onEvent(CmEventType.ESTABLISHED);
        assertThat(setup.poll(nowNs)).isTrue();
        assertThat(actions.calls).containsExactly("resolveRoute", "connect", "established");
        assertThat(setup.poll(nowNs + 10 * TIMEOUT_NS)).as("no deadline once established").isTrue();
    }

    @Test
    void shouldIgnoreEventsOutOfOrder() throws IOException
    {
        final ConnectionSetup setup = ConnectionSetup.active(PEER, nowNs, TIMEOUT_NS, actions);
        setup.onEvent(CmEventType.ROUTE_RESOLVED);
        setup.onEvent(CmEventType.ESTABLISHED);
        setup.onEvent(CmEventType.TIMEWAIT_EXIT);

        assertThat(actions.calls).isEmpty();
        assertThat(setup.poll(nowNs)).isFalse();
        assertThat(setup.phase()).isEqualTo(ConnectionSetup.Phase.RESOLVING_ADDRESS);
    }

    @Test
    void shouldFailWithTheAddressOnEveryKindOfSetUpError()
    {
        assertFailure(CmEventType.REJECTED, "rejected (REJECTED)");
        assertFailure(CmEventType.UNREACHABLE, "unreachable (UNREACHABLE)");
        assertFailure(CmEventType.ADDR_ERROR, "address resolution of /10.0.0.2:7070 failed (ADDR_ERROR)");
        assertFailure(CmEventType.ROUTE_ERROR, "route resolution to /10.0.0.2:7070 failed (ROUTE_ERROR)");
        assertFailure(CmEventType.CONNECT_ERROR, "(CONNECT_ERROR)");
        assertFailure(CmEventType.DISCONNECTED, "disconnected before it was established");
        assertFailure(CmEventType.DEVICE_REMOVAL, "device removed");
    }

    @Test
    void shouldKeepFailingAfterAFailure() throws IOException
    {
        final ConnectionSetup setup = ConnectionSetup.active(PEER, nowNs, TIMEOUT_NS, actions);
        setup.onEvent(CmEventType.ADDR_RESOLVED);
        setup.onEvent(CmEventType.ROUTE_RESOLVED);
        setup.onEvent(CmEventType.REJECTED);
        setup.onEvent(CmEventType.ESTABLISHED);

        assertThatThrownBy(() -> setup.poll(nowNs)).hasMessageContaining("REJECTED");
        assertThatThrownBy(() -> setup.poll(nowNs)).hasMessageContaining("REJECTED");
        assertThat(actions.calls).containsExactly("resolveRoute", "connect", "lost");
        assertThat(setup.needsDisconnect()).as("a connect request went out").isTrue();
    }

    @Test
    void shouldTimeOutNamingThePeerAndWhatItWasWaitingFor() throws IOException
    {
        final ConnectionSetup setup = ConnectionSetup.active(PEER, nowNs, TIMEOUT_NS, actions);
        setup.onEvent(CmEventType.ADDR_RESOLVED);
        assertThat(setup.poll(nowNs + TIMEOUT_NS - 1)).isFalse();

        assertThatThrownBy(() -> setup.poll(nowNs + TIMEOUT_NS))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("/10.0.0.2:7070")
            .hasMessageContaining("timed out after 5000 ms")
            .hasMessageContaining("resolving the route");
        assertThat(actions.calls).containsExactly("resolveRoute", "lost");
        assertThat(setup.needsDisconnect()).isFalse();
    }

    @Test
    void shouldFailWhenACmCallThrows()
    {
        actions.failConnect = true;
        final ConnectionSetup setup = ConnectionSetup.active(PEER, nowNs, TIMEOUT_NS, actions);
        setup.onEvent(CmEventType.ADDR_RESOLVED);
        setup.onEvent(CmEventType.ROUTE_RESOLVED);

        assertThatThrownBy(() -> setup.poll(nowNs))
            .hasMessageContaining("RDMA connect to /10.0.0.2:7070 failed: j2c::connect: rdma_connect failed")
            .hasCauseInstanceOf(IOException.class);
    }

    @Test
    void shouldAcceptOnTheFirstPollOfThePassiveSide() throws IOException
    {
        final ConnectionSetup setup = ConnectionSetup.passive(PEER, nowNs, TIMEOUT_NS, actions);
        assertThat(actions.calls).as("receives can be posted before the accept goes out").isEmpty();
        assertThat(setup.needsDisconnect()).isFalse();

        assertThat(setup.poll(nowNs)).isFalse();
        assertThat(setup.poll(nowNs)).isFalse();
        assertThat(actions.calls).containsExactly("accept");

        setup.onEvent(CmEventType.ESTABLISHED);
        assertThat(setup.poll(nowNs)).isTrue();
        assertThat(setup.isDisconnected()).isFalse();
    }

    @Test
    void shouldReportADisconnectAfterEstablishment() throws IOException
    {
        final ConnectionSetup setup = ConnectionSetup.passive(PEER, nowNs, TIMEOUT_NS, actions);
        setup.poll(nowNs);
        setup.onEvent(CmEventType.ESTABLISHED);
        setup.onEvent(CmEventType.DISCONNECTED);

        assertThat(setup.isDisconnected()).isTrue();
        assertThat(setup.poll(nowNs)).as("the queue pair stays reachable for draining").isTrue();
        assertThat(setup.needsDisconnect()).isTrue();
        assertThat(actions.calls).containsExactly("accept", "established", "lost");
    }

    @Test
    void shouldTimeOutAPassiveSideWhoseEstablishedNeverCame()
    {
        final ConnectionSetup setup = ConnectionSetup.passive(PEER, nowNs, TIMEOUT_NS, actions);

        assertThatThrownBy(() ->
        {
            setup.poll(nowNs);
            setup.poll(nowNs + TIMEOUT_NS);
        }).hasMessageContaining("waiting for the peer to confirm");
    }

    private void assertFailure(final CmEventType event, final String expected)
    {
        final RecordingActions local = new RecordingActions();
        final ConnectionSetup setup = ConnectionSetup.active(PEER, nowNs, TIMEOUT_NS, local);
        setup.onEvent(CmEventType.ADDR_RESOLVED);
        setup.onEvent(event);

        assertThatThrownBy(() -> setup.poll(nowNs))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("10.0.0.2:7070")
            .hasMessageContaining(expected);
        assertThat(local.calls).endsWith("lost");
        assertThat(setup.isDisconnected()).isFalse();
    }

    private static final class RecordingActions implements ConnectionSetup.Actions
    {
        final List<String> calls = new ArrayList<>();
        boolean failConnect;

        @Override
        public void resolveRoute()
        {
            calls.add("resolveRoute");
        }

        @Override
        public void connect() throws IOException
        {
            calls.add("connect");
            if (failConnect)
            {
                throw new IOException("j2c::connect: rdma_connect failed: Invalid argument\n");
            }
        }

        @Override
        public void accept()
        {
            calls.add("accept");
        }

        @Override
        public void onEstablished()
        {
            calls.add("established");
        }

        @Override
        public void onLost()
        {
            calls.add("lost");
        }
    }
}
