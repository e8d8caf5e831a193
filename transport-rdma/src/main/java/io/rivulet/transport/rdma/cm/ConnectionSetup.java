package io.rivulet.transport.rdma.cm;


import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The set-up state machine of one RC connection, driven by RDMA CM events and a clock, with a
 * deadline around the whole set-up: DiSNI gives no status with its events, and a ROUTE_ERROR or an
 * event nobody handles can otherwise leave a connection waiting forever.
 *
 * <pre>
 * active:  RESOLVING_ADDRESS -ADDR_RESOLVED-&gt; RESOLVING_ROUTE -ROUTE_RESOLVED-&gt; CONNECTING
 *          -ESTABLISHED-&gt; ESTABLISHED -DISCONNECTED-&gt; DISCONNECTED
 * passive: ACCEPT_PENDING -first poll-&gt; ACCEPTING -ESTABLISHED-&gt; ESTABLISHED -DISCONNECTED-&gt; DISCONNECTED
 * any state before ESTABLISHED: error event or deadline -&gt; FAILED
 * </pre>
 *
 * <p>A passive connection accepts on its first {@link #poll}, not in {@code CmRequest.accept}, so that
 * receives posted between the two are in place before the peer can send.
 *
 * <p>Failures are sticky: every later {@link #poll} throws again. Not thread-safe.
 */
public final class ConnectionSetup
{
    public enum Phase
    {
        RESOLVING_ADDRESS("resolving the address (no ADDR_RESOLVED)"),
        RESOLVING_ROUTE("resolving the route (no ROUTE_RESOLVED)"),
        CONNECTING("waiting for the peer to accept (no ESTABLISHED)"),
        ACCEPT_PENDING("accept not yet issued"),
        ACCEPTING("waiting for the peer to confirm (no ESTABLISHED)"),
        ESTABLISHED("established"),
        DISCONNECTED("disconnected"),
        FAILED("failed");

        private final String description;

        Phase(final String description)
        {
            this.description = description;
        }
    }

    /** The CM calls the machine asks for; each may throw, which fails the set-up. */
    public interface Actions
    {
        void resolveRoute() throws IOException;

        void connect() throws IOException;

        void accept() throws IOException;

        /** The queue pair reached RTS. */
        void onEstablished();

        /** The connection is gone (disconnected, device removed, or set-up failed). */
        void onLost();
    }

    private final InetSocketAddress remote;
    private final long timeoutNs;
    private final long deadlineNs;
    private final Actions actions;
    private Phase phase;
    private Phase failedIn;
    private String failure;
    private IOException failureCause;

    private ConnectionSetup(
        final Phase initial,
        final InetSocketAddress remote,
        final long startNs,
        final long timeoutNs,
        final Actions actions)
    {
        this.phase = initial;
        this.remote = remote;
        this.timeoutNs = timeoutNs;
        this.deadlineNs = startNs + timeoutNs;
        this.actions = actions;
    }

    /** For {@code rdma_resolve_addr} just issued. */
    public static ConnectionSetup active(
        final InetSocketAddress remote, final long startNs, final long timeoutNs, final Actions actions)
    {
        return new ConnectionSetup(Phase.RESOLVING_ADDRESS, remote, startNs, timeoutNs, actions);
    }

    /** For a connection request whose queue pair exists; accepts on the first poll. */
    public static ConnectionSetup passive(
        final InetSocketAddress remote, final long startNs, final long timeoutNs, final Actions actions)
    {
        return new ConnectionSetup(Phase.ACCEPT_PENDING, remote, startNs, timeoutNs, actions);
    }

    public Phase phase()
    {
        return phase;
    }

    /** @return true once the peer (or the device) ended an established connection. */
    public boolean isDisconnected()
    {
        return phase == Phase.DISCONNECTED;
    }

    /** @return true when {@code rdma_disconnect} is due at close: a connect or accept was issued. */
    public boolean needsDisconnect()
    {
        final Phase p = phase == Phase.FAILED ? failedIn : phase;
        return p == Phase.CONNECTING || p == Phase.ACCEPTING || p == Phase.ESTABLISHED || p == Phase.DISCONNECTED;
    }

    public void onEvent(final CmEventType type)
    {
        switch (type)
        {
            case ADDR_RESOLVED:
                if (phase == Phase.RESOLVING_ADDRESS)
                {
                    phase = Phase.RESOLVING_ROUTE;
                    try
                    {
                        actions.resolveRoute();
                    }
                    catch (final IOException ex)
                    {
                        fail("RDMA route resolution to " + remote + " could not start: " + message(ex), ex);
                    }
                }
                break;

            case ROUTE_RESOLVED:
                if (phase == Phase.RESOLVING_ROUTE)
                {
                    phase = Phase.CONNECTING;
                    try
                    {
                        actions.connect();
                    }
                    catch (final IOException ex)
                    {
                        fail("RDMA connect to " + remote + " failed: " + message(ex), ex);
                    }
                }
                break;

            case ESTABLISHED:
                if (phase == Phase.CONNECTING || phase == Phase.ACCEPTING)
                {
                    phase = Phase.ESTABLISHED;
                    actions.onEstablished();
                }
                break;

            case ADDR_ERROR:
                failBeforeEstablished("RDMA address resolution of " + remote + " failed (ADDR_ERROR): no local " +
                    "RDMA device has a route to it");
                break;

            case ROUTE_ERROR:
                failBeforeEstablished("RDMA route resolution to " + remote + " failed (ROUTE_ERROR)");
                break;

            case UNREACHABLE:
                failBeforeEstablished("RDMA peer " + remote + " unreachable (UNREACHABLE): no reply to the " +
                    "connection handshake");
                break;

            case REJECTED:
                failBeforeEstablished("RDMA connection to " + remote + " rejected (REJECTED): no listener on that " +
                    "port, or the listener rejected it");
                break;

            case CONNECT_ERROR:
                failBeforeEstablished("RDMA connection with " + remote + " failed (CONNECT_ERROR)");
                break;

            case DISCONNECTED:
                failBeforeEstablished("RDMA connection with " + remote + " disconnected before it was established");
                break;

            case DEVICE_REMOVAL:
                failBeforeEstablished("RDMA device removed while connecting to " + remote);
                break;

            default:
                // CONNECT_RESPONSE (only without a QP), ADDR_CHANGE, TIMEWAIT_EXIT, MULTICAST_*: nothing to do.
                break;
        }
    }

    /**
     * Issues the pending accept, checks the deadline, reports the outcome.
     *
     * @param nowNs the clock.
     * @return true once established (also after a later disconnect), false while setting up.
     * @throws IOException when the set-up failed or timed out; again on every later call.
     */
    public boolean poll(final long nowNs) throws IOException
    {
        if (phase == Phase.ACCEPT_PENDING)
        {
            phase = Phase.ACCEPTING;
            try
            {
                actions.accept();
            }
            catch (final IOException ex)
            {
                fail("RDMA accept of " + remote + " failed: " + message(ex), ex);
            }
        }
        if (phase == Phase.ESTABLISHED || phase == Phase.DISCONNECTED)
        {
            return true;
        }
        if (phase != Phase.FAILED && nowNs - deadlineNs >= 0)
        {
            fail("RDMA connection set-up with " + remote + " timed out after " +
                TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms while " + phase.description, null);
        }
        if (phase == Phase.FAILED)
        {
            throw new IOException(failure, failureCause);
        }
        return false;
    }

    private void failBeforeEstablished(final String message)
    {
        if (phase == Phase.ESTABLISHED)
        {
            phase = Phase.DISCONNECTED;
            actions.onLost();
        }
        else if (phase != Phase.FAILED && phase != Phase.DISCONNECTED)
        {
            fail(message, null);
        }
    }

    private void fail(final String message, final IOException cause)
    {
        if (phase != Phase.FAILED)
        {
            failedIn = phase;
            phase = Phase.FAILED;
            failure = message;
            failureCause = cause;
            actions.onLost();
        }
    }

    private static String message(final IOException ex)
    {
        final String text = ex.getMessage();
        return null == text ? ex.getClass().getSimpleName() : text.strip();
    }
}
