package io.rivulet.engine;

import io.rivulet.Acceptor;
import io.rivulet.Connection;
import io.rivulet.LimitExceededException;
import io.rivulet.Responder;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import io.rivulet.counters.ConnectionCounters;
import io.rivulet.counters.NodeCounters;
import io.rivulet.interceptor.Interceptors;
import io.rivulet.protocol.MemoryBudget;
import io.rivulet.protocol.Outbound;
import io.rivulet.protocol.ProtocolConnection;
import io.rivulet.protocol.ReplyWait;
import io.rivulet.protocol.ProtocolSettings;
import io.rivulet.protocol.ReassemblyPool;
import io.rivulet.protocol.RingPool;
import io.rivulet.security.Authenticator;
import io.rivulet.serde.Codecs;
import io.rivulet.spi.LinkConnector;
import io.rivulet.spi.LinkListener;
import io.rivulet.spi.NodeExtension;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.TransportDriver;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.agrona.DeadlineTimerWheel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The conductor agent: runs commands from application threads, listens and connects through the
 * transport driver, reads every link and drives each connection's protocol, and fires keepalive
 * timers. It owns all connection and stream state (single writer).
 *
 * <p>{@link #execute(Runnable)} is the only method for other threads.
 */
public final class Conductor implements Agent, Executor
{
    private static final int COMMANDS_PER_CYCLE = 256;
    /** How often the node file's heartbeat is refreshed; readers call a node dead after several missed beats. */
    private static final long HEARTBEAT_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final Logger LOG = LoggerFactory.getLogger(Conductor.class);

    private final ConductorCommands commands;
    private final TransportDriver driver;
    private final Sender sender;
    private final NanoClock clock;
    private final ProtocolSettings settings;
    private final int outboundRingLength;
    private final long connectTimeoutNs;
    private final NodeCounters counters;
    private final Consumer<Throwable> errorHandler;
    private final ConductorTimers timers;
    private final Long2ObjectHashMap<ProtocolConnection> keepaliveTimers = new Long2ObjectHashMap<>();
    private final DeadlineTimerWheel.TimerHandler timerHandler = this::onTimerExpiry;
    private final ArrayList<ProtocolConnection> connections = new ArrayList<>();
    private final ArrayList<BoundServer> servers = new ArrayList<>();
    private final ArrayList<PendingConnect> connects = new ArrayList<>();
    /** Finished connections whose ring a producer still held when they finished: freed when it lets go. */
    private final ArrayList<ProtocolConnection> releasing = new ArrayList<>();
    /** What all connections hold for their peers, bounded per connection and for the node. */
    private final MemoryBudget memory;
    /** Spare outbound rings, reused by the connections that come and go. */
    private final RingPool rings;
    private static final int SPARE_RINGS = 64;
    /** Spare buffers of fragmented messages, reused by the reassemblies of all connections. */
    private final ReassemblyPool reassemblies;
    private long nowNs;
    private long lastHeartbeatNs;
    private volatile boolean shutdownRequested;
    private volatile boolean quiescent;
    private long shutdownDeadlineNs;
    /** The node's protocol layers (topics, regions, datagrams, …), in order; each connection attaches to each. */
    private final List<NodeExtension> extensions;
    /** Who may connect to this node's servers (null: everyone) and the token its clients send in SETUP. */
    private final Authenticator authenticator;
    private final byte[] setupMetadata;
    /** The codecs routed requests encode with: the node's. Set before the conductor starts. */
    private ReplyWait replyWait = ReplyWait.PARK;
    private Codecs codecs = Codecs.defaults();
    /** Accepted links refused for the connection limit, waiting (bounded) for their peer to read the error. */
    private final ArrayList<ConnectionRefusal> refusals = new ArrayList<>();
    /** Accepted connections still waiting for SETUP, per address: one address cannot take every slot. */
    private final PendingSetups pendingSetups;
    private static final int MAX_REFUSALS = 64;
    /** Commands queued before an engine failure that the failure path still runs, so that they fail at once. */
    private static final int FAILED_COMMANDS_LIMIT = 4096;
    /** Log lines a peer can cause in bulk (abnormal ends), limited per cause. */
    private final RateLimitedLog log;
    /** Set once before the agents start; read by application threads in {@link #connect}. */
    private volatile Interceptors interceptors = Interceptors.NONE;
    /** Set once the engine failed: what queued commands fail with. */
    private RivuletException failed;

    /**
     * @param commands          the queue other threads hand commands through ({@link #execute}); made first so
     *                          that the extensions can be given it before the conductor exists.
     * @param driver            the transport: listens, connects, and is driven in this duty cycle.
     * @param sender            the agent that drains every connection's outbound ring.
     * @param clock             the engine's clock.
     * @param settings          protocol limits and timings.
     * @param outboundRingLength bytes of each connection's outbound ring.
     * @param connectTimeoutNs  how long a connect may take until the link is up.
     * @param counters          the node's counters.
     * @param authenticator     run on every SETUP this node's servers receive; null accepts everyone.
     * @param setupMetadata     what this node's clients send in SETUP (a token).
     * @param extensions        the node's protocol layers, in order.
     * @param errorHandler      receives errors with nowhere else to go.
     * @param log               limits the log lines of events a peer can cause in bulk; flushed on the heartbeat.
     */
    public Conductor(
        final ConductorCommands commands,
        final TransportDriver driver,
        final Sender sender,
        final NanoClock clock,
        final ProtocolSettings settings,
        final int outboundRingLength,
        final long connectTimeoutNs,
        final NodeCounters counters,
        final Authenticator authenticator,
        final byte[] setupMetadata,
        final List<NodeExtension> extensions,
        final Consumer<Throwable> errorHandler,
        final RateLimitedLog log)
    {
        ProtocolConnection.checkExtensions(extensions);
        this.log = log;
        this.pendingSetups = new PendingSetups(settings.maxPendingSetupsPerAddress(), counters.limitRejections, log);
        this.commands = commands;
        this.driver = driver;
        this.sender = sender;
        this.clock = clock;
        this.settings = settings;
        this.outboundRingLength = outboundRingLength;
        this.connectTimeoutNs = connectTimeoutNs;
        this.counters = counters;
        this.errorHandler = errorHandler;
        this.authenticator = authenticator;
        this.setupMetadata = setupMetadata.clone();
        this.extensions = List.copyOf(extensions);
        this.nowNs = clock.nanoTime();
        this.lastHeartbeatNs = nowNs;
        this.timers = new ConductorTimers();
        this.memory = new MemoryBudget(settings.maxNodeMemory(), settings.maxConnectionMemory());
        this.rings = new RingPool(outboundRingLength, SPARE_RINGS, clock);
        this.reassemblies = ReassemblyPool.forNode(settings.maxMessageLength(), settings.maxNodeMemory(), clock);
    }

    /**
     * Before the agents start: the interceptors that wrap every connection (the application's {@link Connection}
     * on connect, and each connection's {@link Responder} as it starts).
     */
    public void interceptors(final Interceptors interceptors)
    {
        this.interceptors = interceptors;
    }

    @Override
    public void execute(final Runnable command)
    {
        commands.execute(command);
    }

    @Override
    public String roleName()
    {
        return "rivulet-conductor";
    }

    @Override
    public int doWork()
    {
        final long now = clock.nanoTime();
        nowNs = now;
        if (now - lastHeartbeatNs >= HEARTBEAT_INTERVAL_NS)
        {
            lastHeartbeatNs = now;
            counters.heartbeat(System.currentTimeMillis());
            rings.trim(now);
            reassemblies.trim(now);
            log.flush(); // the held-back count of a burst that has ended
        }
        int work = runCommands();
        work += driver.doWork(now);
        work += acceptLinks(now);
        work += pollConnects(now);
        for (int i = connections.size() - 1; i >= 0; i--)
        {
            final ProtocolConnection connection = connections.get(i);
            work += connection.doWork(now);
            if (connection.isFinished())
            {
                retire(i, connection);
            }
            else if (connection.takeKeepaliveChanged())
            {
                rescheduleKeepalive(connection, now + connection.keepaliveIntervalNs());
            }
        }
        pendingSetups.release(); // after the connections' cycle, before the next accepts
        for (int i = 0; i < extensions.size(); i++)
        {
            work += extensions.get(i).doWork(now); // node-level parts: a shared endpoint, counters
        }
        for (int i = releasing.size() - 1; i >= 0; i--)
        {
            if (releasing.get(i).release())
            {
                releasing.remove(i);
            }
        }
        for (int i = refusals.size() - 1; i >= 0; i--)
        {
            if (refusals.get(i).progress(now))
            {
                refusals.remove(i);
                work++;
            }
        }
        work += timers.poll(now, timerHandler);
        if (shutdownRequested)
        {
            work += progressShutdown(now);
        }
        return work;
    }

    @Override
    public void onClose()
    {
        for (int i = 0; i < servers.size(); i++)
        {
            servers.get(i).closeNow();
        }
        for (int i = 0; i < connects.size(); i++)
        {
            connects.get(i).fail(new RivuletException("node closed while connecting"));
        }
        for (int i = 0; i < refusals.size(); i++)
        {
            refusals.get(i).close();
        }
        for (int i = 0; i < connections.size(); i++)
        {
            final ProtocolConnection connection = connections.get(i);
            connection.abort();
            connection.link().close();
            connection.counters().close();
        }
        for (int i = extensions.size() - 1; i >= 0; i--)
        {
            extensions.get(i).close(); // before the driver: an extension's endpoint may live on its device
        }
        driver.close();
        reassemblies.freeSpares(); // the spares; what a connection still held goes when its streams are released
        quiescent = true;
    }

    /**
     * The engine failed ({@link FailStop}): on the thread that owns this conductor's state, with the sender stopped.
     * Ends everything at once rather than in duty cycles that will not come: later commands are refused, listeners
     * close (nothing more is accepted), pending connects fail with the failure, and every connection ends as lost
     * with a reason naming the cause — its requests and streams fail now, its link closes (the peer sees the
     * connection end) and its {@code onClose()} completes. {@link #onClose()}, which the stopping agent runs next,
     * closes the extensions and the transport. Each step is tried on its own.
     *
     * @param failure "node failed: &lt;cause&gt;", what queued commands and connects fail with.
     */
    void failStop(final RivuletException failure)
    {
        failed = failure;
        commands.refuse(failure);
        for (int i = 0; i < servers.size(); i++)
        {
            try
            {
                servers.get(i).closeNow();
            }
            catch (final Throwable ignore)
            {
                // Closing the transport (onClose) closes it too.
            }
        }
        servers.clear();
        for (int i = 0; i < connects.size(); i++)
        {
            try
            {
                connects.get(i).fail(failure);
            }
            catch (final Throwable ignore)
            {
                // As above.
            }
        }
        connects.clear();
        for (int i = 0; i < refusals.size(); i++)
        {
            try
            {
                refusals.get(i).close();
            }
            catch (final Throwable ignore)
            {
                // As above.
            }
        }
        refusals.clear();
        final Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        for (int i = connections.size() - 1; i >= 0; i--)
        {
            final ProtocolConnection connection = connections.get(i);
            try
            {
                connection.fail(cause); // streams and extensions end now, with the failure as their cause
                connection.onSenderReleased(); // the sender has stopped: the link is the conductor's to close
                connection.doWork(nowNs); // finishes the close: link closed, onClose() completed
                if (connection.isFinished())
                {
                    retire(i, connection);
                }
            }
            catch (final Throwable ex)
            {
                closeLinkQuietly(connection);
            }
        }
        // Commands queued before the refusal: they see the failure, or closed connections, and fail at once.
        Runnable command;
        for (int i = 0; i < FAILED_COMMANDS_LIMIT && (command = commands.poll()) != null; i++)
        {
            try
            {
                command.run();
            }
            catch (final Throwable ignore)
            {
                // Best effort.
            }
        }
    }

    /** A connection finished: it leaves the node, giving back its timer, its ring, its memory and its counters. */
    private void retire(final int index, final ProtocolConnection connection)
    {
        connections.remove(index);
        cancelKeepalive(connection);
        if (!connection.release())
        {
            releasing.add(connection); // a producer is still inside its ring: freed when it lets go
        }
        connection.counters().close();
        LOG.debug("connection {} to {} finished", connection.connectionId(), connection.remoteAddress());
    }

    private static void closeLinkQuietly(final ProtocolConnection connection)
    {
        try
        {
            connection.link().close();
        }
        catch (final Throwable ignore)
        {
            // onClose tries again.
        }
    }

    /** Any thread: begins an orderly shutdown; {@link #isQuiescent()} tells when it is done. */
    public void requestShutdown()
    {
        execute(() ->
        {
            shutdownRequested = true;
            shutdownDeadlineNs = nowNs + TimeUnit.SECONDS.toNanos(2);
            for (int i = 0; i < servers.size(); i++)
            {
                servers.get(i).closeNow();
            }
            servers.clear();
            for (int i = 0; i < connects.size(); i++)
            {
                connects.get(i).fail(new RivuletException("node closed while connecting"));
            }
            connects.clear();
            for (int i = 0; i < connections.size(); i++)
            {
                connections.get(i).closeForShutdown();
            }
        });
    }

    /** @return true once every connection closed after {@link #requestShutdown()}. */
    public boolean isQuiescent()
    {
        return quiescent;
    }

    /** Before the conductor starts: the node's codecs, which its connections' routed requests encode with. */
    public void codecs(final Codecs codecs)
    {
        this.codecs = codecs;
    }

    /** Before the conductor starts: how callers blocking on its connections' replies wait. */
    public void replyWait(final ReplyWait replyWait)
    {
        this.replyWait = replyWait;
    }

    /**
     * Any thread: listens on an address.
     *
     * @return the server once bound.
     */
    public Mono<Server> bind(final String address, final Responder responder)
    {
        return bind(address, Acceptor.of(responder));
    }

    /**
     * Any thread: listens on an address; the acceptor chooses each accepted connection's responder from its SETUP.
     *
     * @return the server once bound.
     */
    public Mono<Server> bind(final String address, final Acceptor acceptor)
    {
        return Mono.defer(() ->
        {
            final Sinks.One<Server> result = Sinks.one();
            execute(() ->
            {
                if (failed != null || shutdownRequested)
                {
                    result.tryEmitError(failed != null ? failed : new RivuletException("node is closed"));
                    return;
                }
                try
                {
                    final BoundServer server = new BoundServer(driver.listen(address), acceptor);
                    servers.add(server);
                    LOG.debug("listening on {} ({})", server.localAddress, driver.getClass().getSimpleName());
                    result.tryEmitValue(server);
                }
                catch (final IOException | RuntimeException ex)
                {
                    result.tryEmitError(new RivuletException("cannot bind " + address + ": " + ex.getMessage(), ex));
                }
            });
            return result.asMono();
        });
    }

    /**
     * Any thread: connects to an address and sends SETUP.
     *
     * @return the connection once the link is up.
     */
    public Mono<Connection> connect(final String address, final Responder responder)
    {
        return connect(address, responder, setupMetadata, new byte[0]);
    }

    /**
     * Any thread: connects to an address and sends SETUP with this metadata and data.
     *
     * @return the connection once the server accepted SETUP.
     */
    public Mono<Connection> connect(
        final String address, final Responder responder, final byte[] setupMetadata, final byte[] setupData)
    {
        return Mono.defer(() ->
        {
            final Sinks.One<Connection> result = Sinks.one();
            execute(() ->
            {
                if (failed != null || shutdownRequested)
                {
                    result.tryEmitError(failed != null ? failed : new RivuletException("node is closed"));
                    return;
                }
                if (connections.size() + connects.size() >= settings.maxConnections())
                {
                    counters.limitRejections.increment();
                    result.tryEmitError(new LimitExceededException("cannot connect to " + address + ": this node holds " +
                        settings.maxConnections() + " connections already (rivulet.maxConnections)"));
                    return;
                }
                try
                {
                    connects.add(new PendingConnect(address, driver.connect(address), responder, setupMetadata,
                        setupData, result, nowNs + connectTimeoutNs));
                }
                catch (final IOException | RuntimeException ex)
                {
                    result.tryEmitError(new RivuletException("cannot connect to " + address + ": " + ex.getMessage(), ex));
                }
            });
            // Interceptors wrap the connection the application gets; none, no wrapper.
            return interceptors.isEmpty() ? result.asMono() : result.asMono().map(interceptors::requester);
        });
    }

    private int runCommands()
    {
        int work = 0;
        Runnable command;
        while (work < COMMANDS_PER_CYCLE && (command = commands.poll()) != null)
        {
            try
            {
                command.run();
            }
            catch (final Throwable ex)
            {
                errorHandler.accept(ex);
            }
            work++;
        }
        return work;
    }

    private int acceptLinks(final long now)
    {
        int work = 0;
        for (int i = servers.size() - 1; i >= 0; i--)
        {
            final BoundServer server = servers.get(i);
            if (server.closeRequested)
            {
                server.closeNow();
                servers.remove(i);
                continue;
            }
            try
            {
                ReliableLink link;
                while ((link = server.listener.accept()) != null)
                {
                    // Null: the link was closed at once, its address has too many connections waiting for SETUP.
                    final String address = pendingSetups.admit(link);
                    if (address != null && connections.size() >= settings.maxConnections())
                    {
                        refuse(link, now);
                    }
                    else if (address != null)
                    {
                        pendingSetups.hold(address, startConnection(link, false, server.acceptor, now)::awaitsSetup);
                    }
                    work++;
                }
                Throwable rejected;
                while ((rejected = server.listener.pollRejected()) != null)
                {
                    errorHandler.accept(rejected); // reported before counted: who sees the count finds the error
                    counters.linksRejected.increment();
                    work++;
                }
            }
            catch (final IOException ex)
            {
                LOG.warn("listener {} failed: {}", server.localAddress, ex.toString());
                errorHandler.accept(new RivuletException("listener " + server.localAddress + " failed", ex));
                server.closeNow();
                servers.remove(i);
            }
        }
        return work;
    }

    private int pollConnects(final long now)
    {
        int work = 0;
        for (int i = connects.size() - 1; i >= 0; i--)
        {
            final PendingConnect connect = connects.get(i);
            try
            {
                final ReliableLink link = connect.connector.poll();
                if (link != null)
                {
                    connects.remove(i);
                    final ProtocolConnection connection = startConnection(link, true, connect.responder, now);
                    connection.sendSetup(connect.setupMetadata, connect.setupData);
                    // The connect completes when the server accepts SETUP (its first frame), fails when it refuses.
                    connection.awaitAcceptance(connect.result);
                    work++;
                }
                else if (now - connect.deadlineNs > 0)
                {
                    connects.remove(i);
                    connect.fail(new RivuletException("cannot connect to " + connect.address + ": timed out after " +
                        TimeUnit.NANOSECONDS.toMillis(connectTimeoutNs) + " ms"));
                    work++;
                }
            }
            catch (final IOException | RuntimeException ex)
            {
                connects.remove(i);
                connect.fail(new RivuletException("cannot connect to " + connect.address + ": " + ex.getMessage(), ex));
                work++;
            }
        }
        return work;
    }

    private void refuse(final ReliableLink link, final long now)
    {
        counters.limitRejections.increment();
        if (refusals.size() >= MAX_REFUSALS)
        {
            link.close(); // a connection flood: no error for the excess, just no state either
            return;
        }
        refusals.add(new ConnectionRefusal(link, "connection refused: " + link.localAddress() + " holds " +
            settings.maxConnections() + " connections already (rivulet.maxConnections)", now + TimeUnit.SECONDS.toNanos(1)));
    }

    private ProtocolConnection startConnection(
        final ReliableLink link, final boolean client, final Acceptor acceptor, final long now)
    {
        return startConnection(link, client, Responder.none(), acceptor, now);
    }

    private ProtocolConnection startConnection(
        final ReliableLink link, final boolean client, final Responder responder, final long now)
    {
        return startConnection(link, client, responder, null, now);
    }

    /**
     * @param responder serves the peer from the start (a client's, or a server's without an acceptor).
     * @param acceptor  when not null, chooses the responder once SETUP is accepted (server).
     */
    private ProtocolConnection startConnection(
        final ReliableLink link,
        final boolean client,
        final Responder responder,
        final Acceptor acceptor,
        final long now)
    {
        final long connectionId = counters.nextConnectionId();
        final ConnectionCounters connectionCounters = counters.connectionCounters(connectionId, link.remoteAddress());
        // A server's connection gets its full ring only once SETUP is accepted: before, it is anyone's.
        final Outbound outbound = new Outbound(client ? outboundRingLength : Outbound.PRE_SETUP_RING_LENGTH,
            outboundRingLength, settings.maxFrameLength(), connectionCounters.backPressure(), memory, rings, commands);
        // A connection's responder is wrapped by the interceptors here, or when its acceptor chose it (below): until
        // then it serves nothing, since no request is read before SETUP is accepted.
        final Responder served = acceptor != null ? responder : interceptors.responder(responder, connectionId,
            link.localAddress(), link.remoteAddress(), client);
        final ProtocolConnection connection = new ProtocolConnection(link, outbound, settings, connectionCounters,
            client, served, client ? null : authenticator, extensions, memory, reassemblies, this, errorHandler, now);
        connection.codecs(codecs);
        connection.replyWait(replyWait);
        if (acceptor != null)
        {
            // The acceptor's choice is wrapped like any responder, and the connection it is handed (to call the
            // client back) like any requester's.
            connection.acceptor((setup, api) ->
            {
                final Responder chosen = acceptor.accept(setup, interceptors.requester(api));
                return chosen == null ? null : interceptors.responder(chosen, connectionId, link.localAddress(),
                    link.remoteAddress(), client);
            });
        }
        LOG.debug("connection {} opened {} {} ({} -> {})", connectionId, client ? "to" : "from", link.remoteAddress(),
            link.localAddress(), link.remoteAddress());
        // One line when a connection ends abnormally (lost, protocol violation, rejected), with its id; at most one
        // a second per cause, with the count of the others: a flood of refused connections must not flood the log.
        connection.api().onClose().subscribe(null, error -> log.log(RateLimitedLog.key("connection ended", error),
            LOG::info, () -> "connection " + connectionId + " " + (client ? "to" : "from") + " " +
            connection.remoteAddress() + " ended: " + error));
        connections.add(connection);
        sender.add(connection);
        rescheduleKeepalive(connection, now + settings.keepaliveIntervalNs());
        counters.connectionsOpened.incrementRelease();
        return connection;
    }

    private boolean onTimerExpiry(final TimeUnit timeUnit, final long now, final long timerId)
    {
        final ProtocolConnection connection = keepaliveTimers.remove(timerId);
        if (connection != null)
        {
            connection.keepaliveTimerId(-1);
            final long next = connection.onKeepaliveTimer(now);
            if (next > 0)
            {
                rescheduleKeepalive(connection, next);
            }
        }
        return true;
    }

    private void rescheduleKeepalive(final ProtocolConnection connection, final long deadlineNs)
    {
        cancelKeepalive(connection);
        final long timerId = timers.scheduleTimer(deadlineNs);
        keepaliveTimers.put(timerId, connection);
        connection.keepaliveTimerId(timerId);
    }

    private void cancelKeepalive(final ProtocolConnection connection)
    {
        final long timerId = connection.keepaliveTimerId();
        if (timerId != -1)
        {
            timers.cancelTimer(timerId);
            keepaliveTimers.remove(timerId);
            connection.keepaliveTimerId(-1);
        }
    }

    private int progressShutdown(final long now)
    {
        if (connections.isEmpty())
        {
            quiescent = true;
            return 0;
        }
        if (now - shutdownDeadlineNs > 0)
        {
            for (int i = 0; i < connections.size(); i++)
            {
                connections.get(i).abort();
            }
        }
        return 0;
    }

    /** A listener and what chooses the responder of each connection it accepts. */
    private final class BoundServer implements Server
    {
        final LinkListener listener;
        final Acceptor acceptor;
        final String localAddress;
        final Sinks.Empty<Void> closed = Sinks.empty();
        volatile boolean closeRequested;

        BoundServer(final LinkListener listener, final Acceptor acceptor)
        {
            this.listener = listener;
            this.acceptor = acceptor;
            this.localAddress = listener.localAddress();
        }

        @Override
        public String localAddress()
        {
            return localAddress;
        }

        @Override
        public Mono<Void> onClose()
        {
            return closed.asMono();
        }

        @Override
        public void close()
        {
            closeRequested = true;
        }

        void closeNow()
        {
            listener.close();
            closed.tryEmitEmpty();
        }

        @Override
        public String toString()
        {
            return "Server{" + localAddress + "}";
        }
    }

    /** An outbound connection attempt and who waits for it. */
    private static final class PendingConnect
    {
        final String address;
        final LinkConnector connector;
        final Responder responder;
        final byte[] setupMetadata;
        final byte[] setupData;
        final Sinks.One<Connection> result;
        final long deadlineNs;

        PendingConnect(
            final String address,
            final LinkConnector connector,
            final Responder responder,
            final byte[] setupMetadata,
            final byte[] setupData,
            final Sinks.One<Connection> result,
            final long deadlineNs)
        {
            this.address = address;
            this.connector = connector;
            this.responder = responder;
            this.setupMetadata = setupMetadata;
            this.setupData = setupData;
            this.result = result;
            this.deadlineNs = deadlineNs;
        }

        void fail(final RivuletException error)
        {
            connector.close();
            result.tryEmitError(error);
        }
    }
}
