package io.rivulet;

import io.rivulet.counters.NodeDirectory;
import io.rivulet.counters.NodeFileWriter;
import io.rivulet.engine.Conductor;
import io.rivulet.interceptor.Interceptor;
import io.rivulet.interceptor.Interceptors;
import io.rivulet.engine.ConductorCommands;
import io.rivulet.engine.EngineSleep;
import io.rivulet.engine.FailStop;
import io.rivulet.engine.RateLimitedLog;
import io.rivulet.counters.NodeCounters;
import io.rivulet.engine.Sender;
import io.rivulet.protocol.ProtocolSettings;
import io.rivulet.protocol.ReplyWait;
import io.rivulet.security.Authenticator;
import io.rivulet.security.Credentials;
import io.rivulet.security.ThrottledAuthenticator;
import io.rivulet.region.ExposedRegion;
import io.rivulet.region.RegionAccess;
import io.rivulet.region.RegionRegistry;
import io.rivulet.serde.Codec;
import io.rivulet.serde.Codecs;
import io.rivulet.spi.NodeExtension;
import io.rivulet.spi.OneSidedTransport;
import io.rivulet.spi.PropertyValues;
import io.rivulet.spi.ReadinessWatch;
import io.rivulet.protocol.datagram.DatagramChannels;
import io.rivulet.protocol.datagram.NodeDatagrams;
import io.rivulet.protocol.datagram.TopicDatagrams;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramProvider;
import io.rivulet.spi.DatagramTransport;
import io.rivulet.spi.Transport;
import io.rivulet.spi.TransportDriver;
import io.rivulet.spi.TransportSettings;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicOptions;
import io.rivulet.topic.TopicRegistry;
import io.rivulet.topic.TopicSender;
import io.rivulet.topic.TopicSettings;
import org.agrona.BitUtil;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.YieldingIdleStrategy;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.retry.Retry;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

import static io.rivulet.ContextProperties.engineFailureProperty;
import static io.rivulet.ContextProperties.flag;
import static io.rivulet.ContextProperties.threadingModeProperty;
import static io.rivulet.ContextProperties.size;
import static io.rivulet.ContextProperties.sizeLong;
import static io.rivulet.ContextProperties.tokensProperty;
import static io.rivulet.ContextProperties.duration;

/**
 * A Rivulet node: an engine (conductor and sender agents) over one transport, serving and
 * requesting over any number of connections.
 *
 * <pre>{@code
 * try (Rivulet node = Rivulet.launch(new Rivulet.Context()))
 * {
 *     node.bind("127.0.0.1:7070", Responder.builder()
 *         .requestResponse(request -> Mono.just(Message.of("pong"))).build()).block();
 *     Connection connection = node.connect("127.0.0.1:7070").block();
 *     Message reply = connection.requestResponse(Message.of("ping")).block();
 * }
 * }</pre>
 *
 * <p>Thread-safe. In {@link ThreadingMode#INVOKER} mode nothing moves until the application calls
 * {@link #invoke()}; {@code block()} on a request-response runs the duty cycle itself while it waits (not from inside
 * the cycle, where it throws), while other blocking calls need another thread invoking.
 */
public final class Rivulet implements AutoCloseable
{
    private final Context context;
    private final NodeCounters counters;
    private final Conductor conductor;
    private final Sender sender;
    private final TopicRegistry topics;
    private final RegionRegistry regions;
    private final AgentRunner[] runners;
    /** The runners' threads, kept here: a runner forgets its thread once it is closing. */
    private final Thread[] engineThreads;
    private final AgentInvoker invoker;
    /** Serialises INVOKER duty cycles between the application's {@link #invoke()} and threads blocking on replies. */
    private final java.util.concurrent.locks.ReentrantLock invokeLock = new java.util.concurrent.locks.ReentrantLock();
    private final FailStop failStop;
    /** The sleeping engine's loan of its duty cycle to blocked callers; null when it does not lend. */
    private final ReplyWait.Lender lender;
    private final Codecs codecs;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The thread that began {@link #close()}. */
    private volatile Thread closingThread;
    /** Counted down once the engine has stopped, whoever closed the node. */
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** {@link #onClose()}: empty once the node has stopped, or the engine's failure as soon as it failed. */
    private final Sinks.Empty<Void> closedSignal = Sinks.empty();
    /** {@link #onEnding()}: empty as soon as {@link #close()} begins, or the engine's failure as soon as it failed. */
    private final Sinks.Empty<Void> endingSignal = Sinks.empty();

    private Rivulet(final Context context)
    {
        this.context = context;
        // Servers back failed authentications off per address; its properties are checked before anything opens.
        final Authenticator authenticator = ThrottledAuthenticator.around(context.authenticator(), context.nanoClock());
        counters = new NodeCounters(openNodeFile(context));
        final TransportDriver driver;
        try
        {
            driver = context.transport().open(new TransportSettings(context.maxFrameLength(),
                context.linkBufferLength(), context.linkBufferLength(), 0, 0, counters.factory()));
        }
        catch (final IOException | RuntimeException ex)
        {
            counters.close();
            if (ex instanceof ConfigurationException bad)
            {
                throw bad; // a transport's own setting, named by it: the user's mistake, not the transport's
            }
            throw new RivuletException("cannot open the " + context.transport().name() + " transport: " +
                ex.getMessage(), ex);
        }
        final Consumer<Throwable> errorHandler = error ->
        {
            counters.onError(error);
            context.errorHandler().accept(error);
        };
        sender = new Sender(counters);
        final ConductorCommands commands = new ConductorCommands();
        // Fan-out topics: control on the conductor, data plane (TopicSender) on the sender's thread, ahead of the
        // Sender so that what it offers to links is flushed in the same duty cycle.
        final TopicSender topicSender = new TopicSender(context.nanoClock(), context.topicSettings(), counters.framesSent,
            counters.bytesSent);
        topics = new TopicRegistry(commands, commands, topicSender, context.topicSettings(), counters.factory());
        // One-sided remote memory: one-sided on transports that can (RDMA), emulated by the engine otherwise.
        regions = new RegionRegistry(commands, driver instanceof OneSidedTransport oneSided ? oneSided : null,
            counters.regionOpsEmulated, counters.regionOpsPosted);
        // The protocol layers every connection carries, in order: topics, regions, then what needs them.
        final List<NodeExtension> extensions = new ArrayList<>(List.of(topics, regions));
        final boolean multicast = !context.topicMulticast().isEmpty() || context.topicMulticastReceive();
        final NodeDatagrams datagrams = context.topicDatagrams() || multicast ?
            openDatagrams(context, driver, counters) : null;
        // Every endpoint the datagram layers receive on: the engine sleeps in the selector only if all can wake it.
        final List<DatagramEndpoint> datagramEndpoints = new ArrayList<>();
        if (datagrams != null)
        {
            datagrams.retain(); // the node's own hold while the layers that use it start
            if (context.topicDatagrams())
            {
                extensions.add(new TopicDatagrams(
                    openDatagramPlane(context, datagrams, driver, counters, datagramEndpoints), datagrams,
                    context.maxFrameLength()));
            }
            if (multicast)
            {
                openMulticast(context, datagrams, topics, datagramEndpoints);
            }
            datagrams.release();
        }
        for (final Function<Executor, NodeExtension> extension : context.extensions())
        {
            extensions.add(extension.apply(commands));
        }
        try
        {
            conductor = new Conductor(commands, driver, sender, context.nanoClock(), context.protocolSettings(),
                context.outboundRingLength(), context.connectTimeoutNs(), counters, authenticator,
                context.authTokenBytes(), extensions, errorHandler, context.log());
            conductor.interceptors(Interceptors.of(context.interceptors()));
        }
        catch (final IllegalArgumentException ex)
        {
            extensions.forEach(NodeExtension::close);
            driver.close();
            counters.close();
            throw new ConfigurationException("extensions cannot run together: " + ex.getMessage());
        }

        codecs = Codecs.of(context.codecs());
        conductor.codecs(codecs);

        final org.agrona.ErrorHandler agentErrors = errorHandler::accept;
        // Fail-stop: an error escaping an agent closes the node (FailStop); the guards wrap what each thread runs.
        failStop = new FailStop(conductor, context.threadingMode() == ThreadingMode.DEDICATED,
            cause -> onEngineFailure(cause, errorHandler));
        ReplyWait.Lender loan = null;
        switch (context.threadingMode())
        {
            case DEDICATED:
                runners = new AgentRunner[]{
                    new AgentRunner(context.idleStrategy(), agentErrors, null, failStop.owner(conductor)),
                    new AgentRunner(context.newIdleStrategy(), agentErrors, null,
                        failStop.sender(new CompositeAgent(topicSender, sender)))};
                invoker = null;
                break;
            case SHARED:
                final Agent engine = new CompositeAgent(conductor, topicSender, sender);
                if (context.defaultBackoff() && driver.canAwaitWork() && datagramsWake(driver, datagramEndpoints))
                {
                    // The default back-off sleeps in the transport's selector instead of parking (EngineSleep);
                    // datagram sockets beside the links are in that selector too (ReadinessWatch).
                    final EngineSleep sleep = new EngineSleep(engine, driver, counters);
                    commands.engineWake(sleep);
                    final Agent guarded = failStop.owner(sleep);
                    // ... and lends its cycle to threads blocked on replies meanwhile (EngineLoan).
                    loan = context.replyWaitRunsEngine() ? sleep.lender(guarded) : null;
                    runners = new AgentRunner[]{new AgentRunner(new NoOpIdleStrategy(), agentErrors, null,
                        sleep.engineThread(guarded))};
                }
                else
                {
                    runners = new AgentRunner[]{new AgentRunner(context.idleStrategy(), agentErrors, null,
                        failStop.owner(engine))};
                }
                invoker = null;
                break;
            default:
                runners = new AgentRunner[0];
                // The application thread produces between cycles: its output leaves first (Sender.leadingPass).
                invoker = new AgentInvoker(agentErrors, null,
                    failStop.owner(new CompositeAgent(sender.leadingPass(), conductor, topicSender, sender)));
                invoker.start();
        }
        lender = loan;
        conductor.replyWait(new ReplyWait(context.replyIdleStrategy(),
            context.threadingMode() == ThreadingMode.INVOKER ? this::invokeForWaiter : null, lender));
        engineThreads = new Thread[runners.length];
        for (int i = 0; i < runners.length; i++)
        {
            final int index = i;
            AgentRunner.startOnThread(runners[i], runnable ->
            {
                engineThreads[index] = context.threadFactory().newThread(runnable);
                return engineThreads[index];
            });
        }
    }

    /**
     * The engine failed, and its conductor closed the connections and listeners (FailStop): on the engine thread that
     * caught the error. Each step is tried on its own, as memory may be short: the node file first (it allocates
     * nothing), then the log line, the error handler (which counts the error and records its stack in the node file),
     * and the exit.
     */
    private void onEngineFailure(final Throwable cause, final Consumer<Throwable> errorHandler)
    {
        try
        {
            counters.markDead(cause);
        }
        catch (final Throwable ignore)
        {
            // Nothing allocates there; if it failed anyway, the steps below still run.
        }
        try
        {
            Context.LOG.error("rivulet node {}: the engine failed; its connections and listeners are closed and its " +
                "node file says DEAD ({}): {}", context.nodeName(), context.engineFailure() == EngineFailure.EXIT ?
                "rivulet.engineFailure=exit: halting the JVM" : "rivulet.engineFailure=close: the JVM keeps running",
                cause.toString());
        }
        catch (final Throwable ignore)
        {
            // The node file has the cause.
        }
        try
        {
            // Before the error handler, which may close the node: onClose() then reports the failure, not the close.
            endingSignal.tryEmitError(failStop.failure());
            closedSignal.tryEmitError(failStop.failure());
        }
        catch (final Throwable ignore)
        {
            // A subscriber of onClose() that throws changes nothing here.
        }
        try
        {
            errorHandler.accept(cause);
        }
        catch (final Throwable ignore)
        {
            // An application's handler that throws changes nothing here.
        }
        if (context.engineFailure() == EngineFailure.EXIT)
        {
            context.engineFailureExit().accept(FailStop.EXIT_STATUS);
        }
    }

    /**
     * Whether an engine sleeping in the driver's selector would wake for every datagram endpoint's datagrams: each puts
     * its sockets in the driver's {@link ReadinessWatch}, or none is asked (an RDMA endpoint cannot, and the engine
     * then parks).
     */
    private static boolean datagramsWake(final TransportDriver driver, final List<DatagramEndpoint> endpoints)
    {
        if (endpoints.isEmpty())
        {
            return true;
        }
        final ReadinessWatch watch = driver.readinessWatch();
        if (watch == null)
        {
            return false;
        }
        for (final DatagramEndpoint endpoint : endpoints)
        {
            if (!endpoint.wakeWhenReadable(watch))
            {
                return false; // one datagram network per node: its endpoints answer alike
            }
        }
        return true;
    }

    /**
     * Topic multicast: the publishing plane (an endpoint for the sender thread) when topics go to groups, the receiving
     * plane (an endpoint for the conductor) when the node takes them, each endpoint added to {@code endpoints}. Where
     * the network has no multicast, or an endpoint cannot be opened, the node says so once and serves its topics per
     * path.
     */
    private static void openMulticast(final Context context, final NodeDatagrams datagrams, final TopicRegistry topics,
        final List<DatagramEndpoint> endpoints)
    {
        final io.rivulet.spi.MulticastTransport transport = datagrams.multicast();
        if (transport == null)
        {
            Context.LOG.warn("rivulet node {}: the {} datagram network has no multicast; topics ({}) are served per " +
                "path and nothing is taken from groups", context.nodeName(), datagrams.name(), context.topicMulticast());
            return;
        }
        final io.rivulet.spi.MulticastSettings settings = context.multicastSettingsGiven() ? context.multicastSettings() :
            transport.defaultMulticastSettings(context.multicastSettings());
        io.rivulet.spi.MulticastEndpoint publishing = null;
        io.rivulet.spi.MulticastEndpoint receiving = null;
        try
        {
            if (!context.topicMulticast().isEmpty())
            {
                publishing = transport.openMulticastEndpoint(MULTICAST_MIN_DATAGRAM, 512, 1024);
            }
            if (context.topicMulticastReceive())
            {
                receiving = transport.openMulticastEndpoint(MULTICAST_MIN_DATAGRAM, 4096, 256);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            if (publishing != null)
            {
                publishing.close();
            }
            if (receiving != null)
            {
                receiving.close();
            }
            if (ex instanceof ConfigurationException configuration)
            {
                throw configuration;
            }
            Context.LOG.warn("rivulet node {}: cannot open a multicast endpoint on {}; topics are served per path: {}",
                context.nodeName(), datagrams.name(), ex.toString());
            return;
        }
        datagrams.retain();
        topics.multicast(context.topicMulticast(), publishing, receiving, settings, datagrams::release);
        if (publishing != null)
        {
            endpoints.add(publishing);
        }
        if (receiving != null)
        {
            endpoints.add(receiving);
        }
    }

    /** The shortest datagram a multicast endpoint must carry; endpoints carry their path's MTU, which is used. */
    private static final int MULTICAST_MIN_DATAGRAM = 512;

    /**
     * The datagram network the node's datagram layers use: the one {@code rivulet.datagrams} names, else the transport's
     * own; closes the driver and counters when there is none.
     */
    private static NodeDatagrams openDatagrams(
        final Context context, final TransportDriver driver, final NodeCounters counters)
    {
        final DatagramProvider provider = context.datagrams();
        if (provider == null)
        {
            if (driver instanceof DatagramTransport datagramTransport)
            {
                return new NodeDatagrams(datagramTransport, context.transport().name(), null);
            }
            driver.close();
            counters.close();
            final String setting = context.topicDatagrams() ? "rivulet.topicDatagrams" :
                !context.topicMulticast().isEmpty() ? "rivulet.topicMulticast" : "rivulet.topicMulticastReceive";
            throw new ConfigurationException(setting + " needs datagrams: a transport with its own (rdma), " +
                "or a datagram network beside it (rivulet.datagrams=udp); " + context.transport().name() + " has none");
        }
        try
        {
            final DatagramProvider.OpenDatagrams open = provider.open(new TransportSettings(context.maxFrameLength(),
                context.linkBufferLength(), context.linkBufferLength(), 0, 0, counters.factory()));
            return new NodeDatagrams(open, provider.name(), open);
        }
        catch (final IOException | RuntimeException ex)
        {
            driver.close();
            counters.close();
            if (ex instanceof ConfigurationException configuration)
            {
                throw configuration;
            }
            throw new RivuletException("cannot open the " + provider.name() + " datagram network: " + ex.getMessage(), ex);
        }
    }

    /** The node's datagram endpoint and the channels over it; closes the network, driver and counters when it cannot. */
    private static DatagramChannels openDatagramPlane(final Context context, final NodeDatagrams datagrams,
        final TransportDriver driver, final NodeCounters counters, final List<DatagramEndpoint> endpoints)
    {
        final DatagramTransport datagramTransport = datagrams.transport();
        // Defaults suit RDMA hardware; a transport whose round trips are slower (the soft provider) tunes them.
        final DatagramSettings settings = context.datagramSettingsGiven() ? context.datagramSettings() :
            datagramTransport.defaultDatagramSettings(context.datagramSettings());
        DatagramEndpoint endpoint = null;
        try
        {
            endpoint = datagramTransport.openDatagramEndpoint(settings.maxDatagramLength(), 2 * settings.window(),
                settings.window());
            final DatagramChannels channels =
                new DatagramChannels(settings, endpoint, counters.factory(), context.maxFrameLength());
            endpoints.add(endpoint);
            return channels;
        }
        catch (final IOException | RuntimeException ex)
        {
            if (endpoint != null)
            {
                endpoint.close();
            }
            datagrams.close();
            driver.close();
            counters.close();
            if (ex instanceof ConfigurationException configuration)
            {
                throw configuration;
            }
            throw new RivuletException("cannot open the datagram endpoint for rivulet.topicDatagrams on " +
                datagrams.name() + ": " + ex.getMessage(), ex);
        }
    }

    private static NodeFileWriter openNodeFile(final Context context)
    {
        final int maxCounters = context.maxCounters();
        final int errorLogLength = context.errorLogLength();
        if (!context.countersFile())
        {
            return NodeFileWriter.inMemory(context.nodeName(), maxCounters, errorLogLength);
        }
        final Path directory = Paths.get(context.countersDirectory());
        NodeDirectory.deleteStale(directory);
        try
        {
            return NodeFileWriter.create(NodeDirectory.fileFor(directory, context.nodeName()), context.nodeName(),
                maxCounters, errorLogLength, context.deleteCountersOnClose());
        }
        catch (final IllegalStateException ex)
        {
            throw new ConfigurationException("rivulet.nodeName: " + ex.getMessage());
        }
        catch (final IOException ex)
        {
            throw new ConfigurationException("rivulet.countersDir: cannot create the node file in " + directory + ": " +
                ex.getMessage() + " (set rivulet.countersFile=false to keep counters in memory)");
        }
    }

    /**
     * Starts a node with defaults from {@code rivulet.*} system properties.
     *
     * @return the running node.
     */
    public static Rivulet launch()
    {
        return launch(new Context());
    }

    /**
     * @param context the configuration; concluded (validated) here.
     * @return the running node.
     * @throws ConfigurationException naming a bad setting.
     */
    public static Rivulet launch(final Context context)
    {
        context.conclude();
        return new Rivulet(context);
    }

    /**
     * Listens for connections.
     *
     * @param address   {@code host:port}; port 0 picks a free port (see {@link Server#localAddress()}).
     * @param responder the handlers for requests from connecting peers.
     * @return the server once bound (cold: binds on subscription).
     */
    public Mono<Server> bind(final String address, final Responder responder)
    {
        return Mono.defer(() -> failStop.isFailed() ? Mono.error(failStop.failure()) :
            conductor.bind(address, responder));
    }

    /**
     * Listens for connections, and lets an acceptor choose each one's responder from its SETUP (or refuse it): see
     * {@link Acceptor}.
     *
     * @param address  {@code host:port}; port 0 picks a free port (see {@link Server#localAddress()}).
     * @param acceptor chooses the responder of each connection, on the conductor thread; must not block.
     * @return the server once bound (cold: binds on subscription).
     */
    public Mono<Server> bind(final String address, final Acceptor acceptor)
    {
        return Mono.defer(() -> failStop.isFailed() ? Mono.error(failStop.failure()) :
            conductor.bind(address, acceptor));
    }

    /** Connects as a pure requester. */
    public Mono<Connection> connect(final String address)
    {
        return connect(address, Responder.none());
    }

    /**
     * Connects to a server.
     *
     * @param address   {@code host:port}.
     * @param responder handlers for requests the server makes over this connection.
     * @return the connection once the link is up and SETUP is sent (cold: connects on subscription).
     */
    public Mono<Connection> connect(final String address, final Responder responder)
    {
        return Mono.defer(() -> failStop.isFailed() ? Mono.error(failStop.failure()) :
            conductor.connect(address, responder));
    }

    /**
     * Connects to a server with a SETUP of this connection's own, for the server's {@link Acceptor} to choose from.
     * Metadata given as composite {@link Metadata} ({@code Message.of(data).metadata(Metadata.empty().with("tenant",
     * "a").encode())}) carries the node's {@link Context#authToken token} as its
     * {@value io.rivulet.security.Credentials#AUTHORIZATION} entry; other metadata goes as it is, and then the node
     * must have no token.
     *
     * @param address   {@code host:port}.
     * @param responder handlers for requests the server makes over this connection.
     * @param setup     the SETUP's metadata and data.
     * @return the connection once the server accepted SETUP (cold: connects on subscription); a refused SETUP fails
     *         with {@link RejectedException} carrying the server's reason.
     */
    public Mono<Connection> connect(final String address, final Responder responder, final Message setup)
    {
        return Mono.defer(() -> failStop.isFailed() ? Mono.error(failStop.failure()) :
            conductor.connect(address, responder, setupMetadata(setup, context.authTokenBytes()), setup.dataBytes()));
    }

    /** @return the codecs this node encodes routed requests with (see {@link Codecs}), for {@code Router.builder}. */
    public Codecs codecs()
    {
        return codecs;
    }

    /** The SETUP metadata of a connect with the application's SETUP: its metadata, the node's token added. */
    static byte[] setupMetadata(final Message setup, final byte[] token)
    {
        final byte[] metadata = setup.metadataBytes();
        if (token.length == 0)
        {
            return metadata;
        }
        if (metadata.length == 0)
        {
            return Metadata.empty().with(Credentials.AUTHORIZATION, token).encode();
        }
        if (!Metadata.isComposite(setup.metadata(), 0, metadata.length))
        {
            throw new IllegalArgumentException("SETUP metadata that is not composite Metadata cannot carry this " +
                "node's auth token: give it as io.rivulet.Metadata");
        }
        return Metadata.decode(setup.metadata(), 0, metadata.length).with(Credentials.AUTHORIZATION, token).encode();
    }

    /**
     * Connects, and reconnects after the connection is lost: see {@link Reconnector}.
     *
     * @param address   {@code host:port}.
     * @param responder handlers for requests the server makes over the connection.
     * @param retry     the back-off between failed connection attempts, e.g.
     *                  {@code Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(100)).maxBackoff(Duration.ofSeconds(5))}.
     * @return the live connection for every subscriber while it is open; a new one after it closes; an error at
     *         once, retrying no more, when this node's engine failed or the node is closed.
     */
    public Mono<Connection> connect(final String address, final Responder responder, final Retry retry)
    {
        return new Reconnector(this, () -> connect(address, responder), retry).connection();
    }

    /**
     * Publishes a topic with {@link TopicOptions#block()}: see {@link #publication(String, TopicOptions)}.
     */
    public Publication publication(final String topic)
    {
        return publication(topic, TopicOptions.block());
    }

    /**
     * Starts publishing a topic: one publisher on this node, any number of subscribers on connections to
     * it ({@link Connection#subscribe(String)} on the other side, which may match by wildcard).
     *
     * <pre>{@code
     * Publication quotes = node.publication("md.quotes.EURUSD", TopicOptions.conflate(keyOf));
     * quotes.publish(prices).subscribe();            // or: long sequence = quotes.offer(buffer, 0, length);
     * }</pre>
     *
     * @param topic   a hierarchical name such as {@code md.quotes.EURUSD} (no wildcards).
     * @param options the slow-consumer policy, key extractor and memory bounds.
     * @return the publication; close it to end the session.
     * @throws IllegalArgumentException when the name is not valid.
     * @throws IllegalStateException    when this node already publishes the topic.
     * @throws ConfigurationException   when an option is out of range.
     */
    public Publication publication(final String topic, final TopicOptions options)
    {
        throwIfFailed();
        if (closed.get())
        {
            throw new IllegalStateException("node is closed");
        }
        return topics.publication(topic, options);
    }

    /**
     * Exposes a named region of this node's memory to peers, with exactly the access given. Peers find it with
     * {@link Connection#remoteRegion(String)} and read, write or update it without this node's application being
     * called: over RDMA with one-sided verbs (this CPU does nothing; the memory is registered with these remote
     * access flags only), over TCP through this node's engine, which applies each operation.
     *
     * <pre>{@code
     * ExposedRegion table = node.exposeRegion("kv.table", 1 << 20, RegionAccess.READ);
     * table.buffer().putLong(0, 42L);                  // the local application writes; peers read one-sided
     * }</pre>
     *
     * @param name   1..200 UTF-8 bytes, unique on this node.
     * @param length bytes, positive; zeroed.
     * @param access at least one of READ, WRITE, ATOMIC.
     * @return the region; {@link ExposedRegion#revoke()} withdraws it.
     * @throws IllegalArgumentException when the name, length or access is not valid.
     * @throws IllegalStateException    when a region of that name is exposed, or the node is closed.
     */
    public ExposedRegion exposeRegion(final String name, final int length, final RegionAccess... access)
    {
        throwIfFailed();
        if (closed.get())
        {
            throw new IllegalStateException("node is closed");
        }
        return regions.expose(name, length, access);
    }

    /**
     * Runs one duty cycle of the engine on the calling thread; only in {@link ThreadingMode#INVOKER}.
     *
     * @return work done, 0 when idle.
     * @throws RivuletException "node failed: ..." once the engine failed (see {@link EngineFailure}), from the call in
     *                          which it failed on.
     */
    public int invoke()
    {
        if (invoker == null)
        {
            throw new IllegalStateException("invoke() is for ThreadingMode.INVOKER; this node runs " +
                context.threadingMode());
        }
        if (invokeLock.isHeldByCurrentThread())
        {
            throw new IllegalStateException("invoke() called from inside the engine's duty cycle");
        }
        invokeLock.lock(); // a thread blocking on a reply may be running a cycle for its own wait
        try
        {
            throwIfFailed();
            final int work = invoker.invoke();
            throwIfFailed();
            return work;
        }
        finally
        {
            invokeLock.unlock();
        }
    }

    /**
     * Runs on the invoker under the lock that waiting callers take, so that a thread blocking on a reply never runs a
     * cycle beside it.
     */
    private void invokeLocked(final Runnable action)
    {
        invokeLock.lock();
        try
        {
            action.run();
        }
        finally
        {
            invokeLock.unlock();
        }
    }

    /** A thread blocking on a reply runs a duty cycle, unless another thread is running one. */
    private int invokeForWaiter()
    {
        if (invokeLock.isHeldByCurrentThread())
        {
            throw new IllegalStateException("block(), or offer/tryClaim with a timeout, inside the engine's duty " +
                "cycle would never return: the reply or the room waited for comes from this cycle; subscribe, or " +
                "offer without a timeout, instead");
        }
        if (!invokeLock.tryLock())
        {
            return 0;
        }
        try
        {
            throwIfFailed();
            return invoker.invoke();
        }
        finally
        {
            invokeLock.unlock();
        }
    }

    /**
     * @return the error that stopped the node's engine (see {@link EngineFailure}), or null while it runs.
     */
    public Throwable failureCause()
    {
        return failStop.cause();
    }

    private void throwIfFailed()
    {
        final RivuletException failure = failStop.failure();
        if (failure != null)
        {
            throw new RivuletException(failure.getMessage(), failure.getCause());
        }
    }

    /** @return the node's counters; their node file is {@code counters().nodeFile().file()}. */
    public NodeCounters counters()
    {
        return counters;
    }

    /** @return the concluded configuration. */
    public Context context()
    {
        return context;
    }

    /**
     * The node's end, as {@link Connection#onClose()} is a connection's: completes once the node has closed (its
     * connections and servers closed and its engine stopped, whoever called {@link #close()} and from wherever, a
     * duty cycle included), and fails with the {@link RivuletException} "node failed: &lt;cause&gt;" as soon as the
     * engine fails ({@link EngineFailure}; {@link #close()} then still releases what is left). Subscribed after the
     * end, it replays it. Its signal runs on the thread that ends the node: the one that called {@code close()}, the
     * node's closer thread, or the failed engine's.
     *
     * @return completes when the node has closed, or fails with the engine's failure.
     */
    public Mono<Void> onClose()
    {
        return closedSignal.asMono();
    }

    /**
     * The node's end as those that connect through it need it ({@link Reconnector}): earlier than {@link #onClose()},
     * it completes as soon as {@link #close()} begins, and fails with the engine's failure as soon as it failed.
     *
     * @return completes when the node begins to close, or fails with the engine's failure.
     */
    Mono<Void> onEnding()
    {
        return endingSignal.asMono();
    }

    /**
     * Closes every connection (in-flight streams end with {@link ConnectionClosedException}) and
     * server, then stops the engine. Waits at most a few seconds. Idempotent. After an engine failure (see
     * {@link EngineFailure}) it releases what is left at once and keeps the node file, which says DEAD and why.
     *
     * <p>Called from inside the engine's duty cycle (a responder's handler, a subscriber that runs on the engine, the
     * error handler, a thread blocked on a reply that runs the cycle, or {@link #invoke()} in INVOKER mode), it starts
     * the close and returns at once: the engine must run on to close the connections, so waiting there would wait for
     * itself. The close then ends on a thread of the node's {@link Context#threadFactory}, as it would here. A later
     * or concurrent {@code close()} from outside the cycle returns once the node has closed, whoever closes it, and
     * {@link #onClose()} completes then, for those that may not block.
     */
    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            // The closing thread itself comes back here from a subscriber of onEnding(): waiting would wait for itself.
            if (!isInsideDutyCycle() && closingThread != Thread.currentThread())
            {
                awaitStopped(); // another thread (perhaps a closer started from a cycle) is closing the node
            }
            return;
        }
        closingThread = Thread.currentThread();
        endingSignal.tryEmitEmpty(); // does nothing after the engine's failure
        try
        {
            topics.closeAll();
            conductor.requestShutdown();
        }
        catch (final RivuletException failed)
        {
            // The engine failed (its command queue refuses): it closed everything already.
        }
        if (isInsideDutyCycle())
        {
            final Thread closer = context.threadFactory().newThread(this::awaitShutdownAndStop);
            closer.setName("rivulet-close-" + context.nodeName());
            closer.start();
            return;
        }
        awaitShutdownAndStop();
    }

    /** @return true when the calling thread runs the engine's duty cycle now, or is one of the engine's threads. */
    private boolean isInsideDutyCycle()
    {
        if (invokeLock.isHeldByCurrentThread() || (lender != null && lender.isBorrowedByCurrentThread()))
        {
            return true;
        }
        for (final Thread engineThread : engineThreads)
        {
            if (engineThread == Thread.currentThread())
            {
                return true;
            }
        }
        return false;
    }

    /** After the shutdown was requested: waits (bounded) for the engine to close the connections, then stops it. */
    private void awaitShutdownAndStop()
    {
        try
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!failStop.isFailed() && !conductor.isQuiescent() && System.nanoTime() - deadlineNs < 0)
            {
                if (invoker != null)
                {
                    invokeLocked(invoker::invoke);
                }
                else
                {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            }
            if (invoker != null)
            {
                invokeLocked(invoker::close);
            }
            // The sender's thread first (DEDICATED): the conductor's onClose closes links and the transport, which
            // must not happen under a send.
            for (int i = runners.length - 1; i >= 0; i--)
            {
                runners[i].close();
            }
            counters.close();
        }
        finally
        {
            stopped.countDown();
            closedSignal.tryEmitEmpty(); // does nothing after the engine's failure
        }
    }

    private void awaitStopped()
    {
        boolean interrupted = false;
        while (true)
        {
            try
            {
                stopped.await();
                break;
            }
            catch (final InterruptedException ex)
            {
                interrupted = true; // the close is bounded; finish waiting, and keep the interrupt for the caller
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Configuration of a node. Fluent accessors; defaults come from {@code rivulet.*} system
     * properties; {@link #conclude()} checks the values and fails with a message naming the bad one.
     *
     * <p>Not thread-safe; configure before launch.
     */
    public static final class Context
    {
        private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Rivulet.class);
        /** The default reply wait's looks at the reply before it parks (issue 16). */
        private static final int REPLY_WAIT_SPINS = 200;
        /** Numbers default node names in this process. */
        private static final AtomicInteger NODE_NUMBERS = new AtomicInteger();

        private Transport transport;
        private ThreadingMode threadingMode = threadingModeProperty();
        private String idleStrategyName = System.getProperty("rivulet.idleStrategy", "backoff");
        /** The idle strategy was made from {@link #idleStrategyName} by {@link #conclude()}. */
        private boolean idleStrategyNamed;
        private IdleStrategy idleStrategy;
        private String replyIdleStrategyName = System.getProperty("rivulet.replyIdleStrategy", "park");
        private Supplier<IdleStrategy> replyIdleStrategies;
        private int maxFrameLength = size("rivulet.maxFrameLength", 16 * 1024);
        private int maxMessageLength = size("rivulet.maxMessageLength", 16 * 1024 * 1024);
        private int streamWindow = size("rivulet.streamWindow", 256);
        private int outboundRingLength = size("rivulet.outboundRingLength", 256 * 1024);
        private int linkBufferLength = size("rivulet.linkBufferLength", 256 * 1024);
        private long keepaliveIntervalNs = duration("rivulet.keepaliveInterval", TimeUnit.SECONDS.toNanos(1));
        private long keepaliveTimeoutNs = duration("rivulet.keepaliveTimeout", TimeUnit.SECONDS.toNanos(5));
        private long connectTimeoutNs = duration("rivulet.connectTimeout", TimeUnit.SECONDS.toNanos(5));
        private int frameLimit = size("rivulet.frameLimit", 64);
        private int topicWindow = size("rivulet.topicWindow", 2048);
        private long topicHeartbeatIntervalNs = duration("rivulet.topicHeartbeatInterval", TimeUnit.MILLISECONDS.toNanos(100));
        private long topicHeartbeatTimeoutNs = duration("rivulet.topicHeartbeatTimeout", TimeUnit.SECONDS.toNanos(5));
        // Security and limits (README "Security").
        private long setupTimeoutNs = duration("rivulet.setupTimeout", ProtocolSettings.DEFAULT_SETUP_TIMEOUT_NS);
        private int maxStreams = size("rivulet.maxStreams", ProtocolSettings.DEFAULT_MAX_STREAMS);
        private int maxPendingRequests = size("rivulet.maxPendingRequests", ProtocolSettings.DEFAULT_MAX_PENDING_REQUESTS);
        private long maxParkedBytes = sizeLong("rivulet.maxParkedBytes", ProtocolSettings.DEFAULT_MAX_PARKED_BYTES);
        private int maxConnections = size("rivulet.maxConnections", ProtocolSettings.DEFAULT_MAX_CONNECTIONS);
        private int maxPendingSetupsPerAddress = size("rivulet.maxPendingSetupsPerAddress",
            ProtocolSettings.DEFAULT_MAX_PENDING_SETUPS_PER_ADDRESS);
        private long maxConnectionMemory = sizeLong("rivulet.maxConnectionMemory",
            ProtocolSettings.DEFAULT_MAX_CONNECTION_MEMORY);
        private long maxNodeMemory = sizeLong("rivulet.maxNodeMemory", ProtocolSettings.defaultMaxNodeMemory());
        private long maxKeepaliveTimeoutNs = duration("rivulet.maxKeepaliveTimeout",
            ProtocolSettings.DEFAULT_MAX_KEEPALIVE_TIMEOUT_NS);
        private long idleTimeoutNs = duration("rivulet.idleTimeout", ProtocolSettings.DEFAULT_IDLE_TIMEOUT_NS);
        private String authToken = System.getProperty("rivulet.authToken");
        private Authenticator authenticator = tokensProperty();
        private DatagramSettings datagramSettings;
        /** Whether the application gave {@link #datagramSettings}; otherwise the transport may tune the defaults. */
        private boolean datagramSettingsGiven;
        private boolean topicDatagrams = flag("rivulet.topicDatagrams", false);
        private DatagramProvider datagrams;
        private io.rivulet.topic.TopicGroups topicMulticast;
        private boolean topicMulticastReceive = flag("rivulet.topicMulticastReceive", false);
        private io.rivulet.spi.MulticastSettings multicastSettings;
        private boolean multicastSettingsGiven;
        private boolean replyWaitRunsEngine = flag("rivulet.replyWaitRunsEngine", true);
        private String nodeName = System.getProperty("rivulet.nodeName");
        private String countersDirectory = System.getProperty("rivulet.countersDir",
            NodeDirectory.defaultDirectory().toString());
        private boolean countersFile = flag("rivulet.countersFile", true);
        private boolean deleteCountersOnClose =
            flag("rivulet.countersDeleteOnClose", true);
        /** 0 while neither the property nor {@link #maxCounters(int)} gave it: then sized from maxConnections. */
        private int maxCounters = size("rivulet.maxCounters", 0);
        private boolean maxCountersGiven = System.getProperty("rivulet.maxCounters") != null;
        private int errorLogLength = size("rivulet.errorLogLength", 1024 * 1024);
        private NanoClock nanoClock = SystemNanoClock.INSTANCE;
        private ThreadFactory threadFactory;
        private Consumer<Throwable> errorHandler;
        private EngineFailure engineFailure = engineFailureProperty();
        private IntConsumer engineFailureExit = status -> Runtime.getRuntime().halt(status);
        /** Limits the node's log lines of events a peer can cause in bulk; made by {@link #conclude()}. */
        private RateLimitedLog log;
        private final List<Function<Executor, NodeExtension>> extensions = new ArrayList<>();
        private final List<Interceptor> interceptors = new ArrayList<>();
        private final List<Codec<?>> codecs = new ArrayList<>();
        private boolean concluded;
        /** Settings the application set through a setter: messages about them name the setter, not a property. */
        private final Set<String> assigned = new HashSet<>();

        /** Picks a transport; by default the one named by {@code rivulet.transport} ("tcp"). */
        public Context transport(final Transport transport)
        {
            assigned.add("transport");
            this.transport = transport;
            return this;
        }

        public Transport transport()
        {
            return transport;
        }

        /** Where the agents run ({@code rivulet.threadingMode}, default SHARED). */
        public Context threadingMode(final ThreadingMode threadingMode)
        {
            assigned.add("threadingMode");
            this.threadingMode = threadingMode;
            return this;
        }

        public ThreadingMode threadingMode()
        {
            return threadingMode;
        }

        /**
         * How idle engine threads wait ({@code rivulet.idleStrategy}: backoff (default), busy, yield,
         * sleep, noop). A given instance is used by the conductor; DEDICATED mode gives the sender a
         * fresh one of the configured name.
         */
        public Context idleStrategy(final IdleStrategy idleStrategy)
        {
            assigned.add("idleStrategy");
            this.idleStrategy = idleStrategy;
            this.idleStrategyNamed = false;
            return this;
        }

        public Context idleStrategy(final String name)
        {
            assigned.add("idleStrategy");
            this.idleStrategyName = name;
            this.idleStrategy = null;
            return this;
        }

        public IdleStrategy idleStrategy()
        {
            return idleStrategy;
        }

        /**
         * @return whether the engine idles with the default back-off given by name (not an instance of the
         *         application's): a SHARED engine then sleeps in its transport when it can ({@code EngineSleep}).
         */
        boolean defaultBackoff()
        {
            return idleStrategyNamed && idleStrategy instanceof BackoffIdleStrategy;
        }

        /**
         * How an application thread waits in {@code block()} on a request-response's {@code Mono}
         * ({@code rivulet.replyIdleStrategy}): {@code park} (default: parks until the engine wakes it with the reply,
         * as Reactor's own {@code block()} does), {@code backoff} (looks 200 times, then parks so), {@code busy}
         * (spins: no park and no unpark, the lowest latency for a thread with a core of its own) or {@code yield}.
         * In {@code INVOKER} mode the waiting thread also runs the engine's duty cycle between looks, unless another
         * thread is running it.
         */
        public Context replyIdleStrategy(final String name)
        {
            assigned.add("replyIdleStrategy");
            this.replyIdleStrategyName = name;
            this.replyIdleStrategies = null;
            return this;
        }

        /**
         * How an application thread waits in {@code block()} on a request-response's {@code Mono}: each waiting
         * thread gets its own strategy from the supplier (strategies keep state). A strategy that may park is woken
         * by the engine when the reply arrives.
         */
        public Context replyIdleStrategy(final Supplier<IdleStrategy> idleStrategies)
        {
            assigned.add("replyIdleStrategy");
            this.replyIdleStrategies = java.util.Objects.requireNonNull(idleStrategies, "idleStrategies");
            return this;
        }

        /**
         * Whether a thread blocked in {@code block()} on a request-response runs the engine's duty cycle while the
         * engine would otherwise sleep ({@code rivulet.replyWaitRunsEngine}, true): it then sleeps in the transport
         * itself, and its reply wakes it directly instead of waking the engine, which would then wake it. Applies to
         * a SHARED node with the default back-off on TCP and a reply idle strategy that parks. Meanwhile that thread
         * runs what the cycle runs (other replies, responder handlers), as a waiting thread of an INVOKER node does;
         * after its {@code block()} returns, inbound data for the node's other connections may wait up to 1 ms
         * unless the thread blocks again or another hands the engine work. False keeps every cycle on the engine's
         * thread.
         */
        public Context replyWaitRunsEngine(final boolean replyWaitRunsEngine)
        {
            assigned.add("replyWaitRunsEngine");
            this.replyWaitRunsEngine = replyWaitRunsEngine;
            return this;
        }

        /** @return whether a blocked caller may run a sleeping SHARED engine's duty cycle. */
        public boolean replyWaitRunsEngine()
        {
            return replyWaitRunsEngine;
        }

        /** @return the supplier of the idle strategies waiting callers use (after {@link #conclude()}). */
        public Supplier<IdleStrategy> replyIdleStrategy()
        {
            return replyIdleStrategies;
        }

        /** Longest frame on the wire; larger messages are fragmented ({@code rivulet.maxFrameLength}, 16 KiB). */
        public Context maxFrameLength(final int maxFrameLength)
        {
            assigned.add("maxFrameLength");
            this.maxFrameLength = maxFrameLength;
            return this;
        }

        public int maxFrameLength()
        {
            return maxFrameLength;
        }

        /** Longest message sent or reassembled ({@code rivulet.maxMessageLength}, 16 MiB). */
        public Context maxMessageLength(final int maxMessageLength)
        {
            assigned.add("maxMessageLength");
            this.maxMessageLength = maxMessageLength;
            return this;
        }

        public int maxMessageLength()
        {
            return maxMessageLength;
        }

        /** Most credits a receiving stream keeps granted at once ({@code rivulet.streamWindow}, 256). */
        public Context streamWindow(final int streamWindow)
        {
            assigned.add("streamWindow");
            this.streamWindow = streamWindow;
            return this;
        }

        public int streamWindow()
        {
            return streamWindow;
        }

        /** Per-connection outbound ring, a power of two at least 8 frames ({@code rivulet.outboundRingLength}). */
        public Context outboundRingLength(final int outboundRingLength)
        {
            assigned.add("outboundRingLength");
            this.outboundRingLength = outboundRingLength;
            return this;
        }

        public int outboundRingLength()
        {
            return outboundRingLength;
        }

        /** Per-link user-space send and receive buffers ({@code rivulet.linkBufferLength}, 256 KiB). */
        public Context linkBufferLength(final int linkBufferLength)
        {
            assigned.add("linkBufferLength");
            this.linkBufferLength = linkBufferLength;
            return this;
        }

        public int linkBufferLength()
        {
            return linkBufferLength;
        }

        /** How often KEEPALIVE is sent ({@code rivulet.keepaliveInterval}, 1s). */
        public Context keepaliveInterval(final long duration, final TimeUnit unit)
        {
            assigned.add("keepaliveInterval");
            this.keepaliveIntervalNs = unit.toNanos(duration);
            return this;
        }

        public long keepaliveIntervalNs()
        {
            return keepaliveIntervalNs;
        }

        /** Silence after which a peer is lost ({@code rivulet.keepaliveTimeout}, 5s). */
        public Context keepaliveTimeout(final long duration, final TimeUnit unit)
        {
            assigned.add("keepaliveTimeout");
            this.keepaliveTimeoutNs = unit.toNanos(duration);
            return this;
        }

        public long keepaliveTimeoutNs()
        {
            return keepaliveTimeoutNs;
        }

        /** How long a connection attempt may take ({@code rivulet.connectTimeout}, 5s). */
        public Context connectTimeout(final long duration, final TimeUnit unit)
        {
            assigned.add("connectTimeout");
            this.connectTimeoutNs = unit.toNanos(duration);
            return this;
        }

        public long connectTimeoutNs()
        {
            return connectTimeoutNs;
        }

        /**
         * Credits a topic subscriber keeps granted per topic: messages a publisher may send ahead of the
         * subscriber's demand, and at most what waits in a subscription per topic ({@code rivulet.topicWindow}, 2048).
         */
        public Context topicWindow(final int topicWindow)
        {
            assigned.add("topicWindow");
            this.topicWindow = topicWindow;
            return this;
        }

        public int topicWindow()
        {
            return topicWindow;
        }

        /** How often an idle topic publisher sends a heartbeat, and a subscriber its status ({@code rivulet.topicHeartbeatInterval}, 100ms). */
        public Context topicHeartbeatInterval(final long duration, final TimeUnit unit)
        {
            assigned.add("topicHeartbeatInterval");
            this.topicHeartbeatIntervalNs = unit.toNanos(duration);
            return this;
        }

        public long topicHeartbeatIntervalNs()
        {
            return topicHeartbeatIntervalNs;
        }

        /**
         * Silence after which a topic subscriber presumes its publisher dead ({@code PublisherTimeoutException})
         * and a publisher its subscriber ({@code rivulet.topicHeartbeatTimeout}, 5s). Must exceed the peer's interval.
         */
        public Context topicHeartbeatTimeout(final long duration, final TimeUnit unit)
        {
            assigned.add("topicHeartbeatTimeout");
            this.topicHeartbeatTimeoutNs = unit.toNanos(duration);
            return this;
        }

        public long topicHeartbeatTimeoutNs()
        {
            return topicHeartbeatTimeoutNs;
        }

        /**
         * How long an accepted connection may take to send SETUP before it is closed and counted, and a
         * client waits for the server to accept its SETUP ({@code rivulet.setupTimeout}, 2s).
         */
        public Context setupTimeout(final long duration, final TimeUnit unit)
        {
            assigned.add("setupTimeout");
            this.setupTimeoutNs = unit.toNanos(duration);
            return this;
        }

        public long setupTimeoutNs()
        {
            return setupTimeoutNs;
        }

        /**
         * Streams a peer may have open at once on one connection; a request beyond it is refused with
         * ERROR (REJECTED) on its stream ({@code rivulet.maxStreams}, 4096).
         */
        public Context maxStreams(final int maxStreams)
        {
            assigned.add("maxStreams");
            this.maxStreams = maxStreams;
            return this;
        }

        public int maxStreams()
        {
            return maxStreams;
        }

        /**
         * Requests this node may have open at once on one connection; one beyond it fails at once with
         * {@link LimitExceededException} ({@code rivulet.maxPendingRequests}, 65536).
         */
        public Context maxPendingRequests(final int maxPendingRequests)
        {
            assigned.add("maxPendingRequests");
            this.maxPendingRequests = maxPendingRequests;
            return this;
        }

        public int maxPendingRequests()
        {
            return maxPendingRequests;
        }

        /**
         * Bytes of messages that may wait per connection for room in a full outbound ring; past it
         * {@code fireAndForget} fails with {@link LimitExceededException} ({@code rivulet.maxParkedBytes}, 64 MiB).
         */
        public Context maxParkedBytes(final long maxParkedBytes)
        {
            assigned.add("maxParkedBytes");
            this.maxParkedBytes = maxParkedBytes;
            return this;
        }

        public long maxParkedBytes()
        {
            return maxParkedBytes;
        }

        /**
         * Connections this node holds at once, accepted and connected; an extra accepted one gets ERROR
         * (REJECTED_SETUP) and is closed, an extra connect fails with {@link LimitExceededException}
         * ({@code rivulet.maxConnections}, 4096).
         */
        public Context maxConnections(final int maxConnections)
        {
            assigned.add("maxConnections");
            this.maxConnections = maxConnections;
            return this;
        }

        public int maxConnections()
        {
            return maxConnections;
        }

        /**
         * Accepted connections from one remote address (its host, not the port) that may wait for their SETUP at
         * once ({@code rivulet.maxPendingSetupsPerAddress}, 256). One more from that address is closed at once, before
         * the node makes anything for it, and counted in {@code limit rejections} (logged at most once a second, with
         * the count); other addresses are still accepted. A connection frees its slot when its SETUP is accepted or it
         * begins to close. So one address opening thousands of idle sockets holds at most this many of the
         * {@link #maxConnections} slots, each until {@link #setupTimeout}. Clients behind one NAT share the bound:
         * raise it for a crowd of them that connects at once.
         */
        public Context maxPendingSetupsPerAddress(final int maxPendingSetupsPerAddress)
        {
            assigned.add("maxPendingSetupsPerAddress");
            this.maxPendingSetupsPerAddress = maxPendingSetupsPerAddress;
            return this;
        }

        public int maxPendingSetupsPerAddress()
        {
            return maxPendingSetupsPerAddress;
        }

        /**
         * Bytes one connection may hold on behalf of its peer: fragments of messages not yet complete, requests
         * whose streams are open, frames parked behind its full outbound ring. A connection over it is closed with
         * {@link io.rivulet.ProtocolViolationException} (LIMIT_EXCEEDED); others are untouched
         * ({@code rivulet.maxConnectionMemory}, 128 MiB; at least {@code maxMessageLength}).
         */
        public Context maxConnectionMemory(final long maxConnectionMemory)
        {
            assigned.add("maxConnectionMemory");
            this.maxConnectionMemory = maxConnectionMemory;
            return this;
        }

        public long maxConnectionMemory()
        {
            return maxConnectionMemory;
        }

        /**
         * Bytes all connections of this node may hold together on behalf of their peers (see
         * {@link #maxConnectionMemory}). When a connection needs more than is left, the connection holding the most
         * is closed first ({@code rivulet.maxNodeMemory}, a quarter of the maximum heap; at least
         * {@code maxMessageLength}).
         */
        public Context maxNodeMemory(final long maxNodeMemory)
        {
            assigned.add("maxNodeMemory");
            this.maxNodeMemory = maxNodeMemory;
            return this;
        }

        public long maxNodeMemory()
        {
            return maxNodeMemory;
        }

        /**
         * The longest keepalive timeout this node's servers grant: a client asking for more in SETUP gets this
         * (and an interval below it), and learns it from the server's answer ({@code rivulet.maxKeepaliveTimeout},
         * 60 s).
         */
        public Context maxKeepaliveTimeout(final long duration, final TimeUnit unit)
        {
            assigned.add("maxKeepaliveTimeout");
            this.maxKeepaliveTimeoutNs = unit.toNanos(duration);
            return this;
        }

        public long maxKeepaliveTimeoutNs()
        {
            return maxKeepaliveTimeoutNs;
        }

        /**
         * How long a connection accepted by this node's servers may stay idle, with no stream open and no frame but
         * KEEPALIVE either way, before the server closes it; 0 keeps idle connections ({@code rivulet.idleTimeout},
         * 5 min). Connections this node opened are never closed for idleness.
         */
        public Context idleTimeout(final long duration, final TimeUnit unit)
        {
            assigned.add("idleTimeout");
            this.idleTimeoutNs = unit.toNanos(duration);
            return this;
        }

        public long idleTimeoutNs()
        {
            return idleTimeoutNs;
        }

        /**
         * Who may connect to this node's servers; run on each SETUP ({@code rivulet.authTokens}, a
         * comma-separated list, gives {@link Authenticator#tokens}; default: everyone).
         */
        public Context authenticator(final Authenticator authenticator)
        {
            assigned.add("authenticator");
            this.authenticator = authenticator;
            return this;
        }

        public Authenticator authenticator()
        {
            return authenticator;
        }

        /** The token this node's connections send in SETUP metadata ({@code rivulet.authToken}; default none). */
        public Context authToken(final String authToken)
        {
            assigned.add("authToken");
            this.authToken = authToken;
            return this;
        }

        public String authToken()
        {
            return authToken;
        }

        byte[] authTokenBytes()
        {
            return authToken == null ? new byte[0] : authToken.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }

        /**
         * Reliable-datagram (UD fan-out) protocol and Swift congestion control parameters; defaults from
         * {@code rivulet.ud.*} properties (see {@link DatagramSettings}).
         */
        public Context datagramSettings(final DatagramSettings datagramSettings)
        {
            assigned.add("datagramSettings");
            this.datagramSettings = datagramSettings;
            return this;
        }

        public DatagramSettings datagramSettings()
        {
            return datagramSettings;
        }

        /** @return true when the application set {@link #datagramSettings(DatagramSettings)} itself (after conclude). */
        public boolean datagramSettingsGiven()
        {
            return datagramSettingsGiven;
        }

        /**
         * Whether topic data (what publications send to subscriber connections) goes as reliable datagrams over
         * the transport's datagram endpoint, one per node (RDMA: one UD queue pair for every peer), instead of each
         * connection's reliable link ({@code rivulet.topicDatagrams}, false). Control frames stay on the link; a
         * peer that does not offer datagrams, or whose {@link #datagramSettings} differ, keeps its link. The
         * transport must support datagrams ({@code rdma}); starting a node on one that does not fails.
         */
        public Context topicDatagrams(final boolean topicDatagrams)
        {
            assigned.add("topicDatagrams");
            this.topicDatagrams = topicDatagrams;
            return this;
        }

        public boolean topicDatagrams()
        {
            return topicDatagrams;
        }

        /**
         * Where the node's datagram layers ({@link #topicDatagrams}, topic multicast) open their endpoints, when not on
         * the transport's own datagrams ({@code rivulet.datagrams}, e.g. {@code udp} from rivulet-transport-udp; by
         * default none: the transport's, where it has them, as RDMA's UD queue pairs). Connections stay on the
         * transport.
         */
        public Context datagrams(final DatagramProvider datagrams)
        {
            assigned.add("datagrams");
            this.datagrams = datagrams;
            return this;
        }

        /** @return the datagram network chosen beside the transport, or null for the transport's own. */
        public DatagramProvider datagrams()
        {
            return datagrams;
        }

        /**
         * Which topics this node publishes to multicast groups ({@code rivulet.topicMulticast}, e.g.
         * {@code md.quotes.>=239.1.2.3:40456}; none by default): one send per message to the group, however many
         * subscriber nodes take it, with NAK-based repair, flow control and congestion control
         * ({@link io.rivulet.spi.MulticastSettings}). Subscriber connections whose node does not take multicast, or
         * where the group cannot be joined, are served per path as before (per-path datagrams with
         * {@link #topicDatagrams}, else the link). Needs a datagram network with multicast: RDMA's UD multicast, or
         * {@code rivulet.datagrams=udp}; without one the node says so once in its log and serves every topic per path.
         */
        public Context topicMulticast(final io.rivulet.topic.TopicGroups topicMulticast)
        {
            assigned.add("topicMulticast");
            this.topicMulticast = topicMulticast;
            return this;
        }

        public io.rivulet.topic.TopicGroups topicMulticast()
        {
            return topicMulticast;
        }

        /**
         * Whether this node takes topic data from multicast groups when a publisher offers to hand it over
         * ({@code rivulet.topicMulticastReceive}, false): it tells every connection's peer, right after SETUP, where its
         * receiving endpoint is. Needs a datagram network with multicast, as {@link #topicMulticast}.
         */
        public Context topicMulticastReceive(final boolean topicMulticastReceive)
        {
            assigned.add("topicMulticastReceive");
            this.topicMulticastReceive = topicMulticastReceive;
            return this;
        }

        public boolean topicMulticastReceive()
        {
            return topicMulticastReceive;
        }

        /**
         * The multicast protocol's parameters; defaults from {@code rivulet.multicast.*} (tuned by the datagram network
         * where its timing is coarser, unless set here).
         */
        public Context multicastSettings(final io.rivulet.spi.MulticastSettings multicastSettings)
        {
            assigned.add("multicastSettings");
            this.multicastSettings = multicastSettings;
            return this;
        }

        public io.rivulet.spi.MulticastSettings multicastSettings()
        {
            return multicastSettings;
        }

        /** @return true when the application set {@link #multicastSettings} itself (after conclude). */
        public boolean multicastSettingsGiven()
        {
            return multicastSettingsGiven;
        }

        /**
         * The node's name in its node file and in tools ({@code rivulet.nodeName}); default {@code node-<n>}, n
         * counting the nodes this process launched. Two live nodes of one process cannot share a name.
         */
        public Context nodeName(final String nodeName)
        {
            assigned.add("nodeName");
            this.nodeName = nodeName;
            return this;
        }

        public String nodeName()
        {
            return nodeName;
        }

        /**
         * Directory of node files ({@code rivulet.countersDir}, default {@code /dev/shm/rivulet-<user>}, or under
         * {@code java.io.tmpdir} where there is no {@code /dev/shm}):
         * the node maps {@code <nodeName>-<pid>.rivulet} there, which {@code rivulet stat} reads.
         */
        public Context countersDirectory(final String countersDirectory)
        {
            assigned.add("countersDirectory");
            this.countersDirectory = countersDirectory;
            return this;
        }

        public String countersDirectory()
        {
            return countersDirectory;
        }

        /**
         * Whether counters and the error log live in a memory-mapped node file that other processes can read
         * ({@code rivulet.countersFile}, true) or only in this process's memory (false).
         */
        public Context countersFile(final boolean countersFile)
        {
            assigned.add("countersFile");
            this.countersFile = countersFile;
            return this;
        }

        public boolean countersFile()
        {
            return countersFile;
        }

        /** Whether a clean close deletes the node file ({@code rivulet.countersDeleteOnClose}, true). */
        public Context deleteCountersOnClose(final boolean deleteCountersOnClose)
        {
            assigned.add("deleteCountersOnClose");
            this.deleteCountersOnClose = deleteCountersOnClose;
            return this;
        }

        public boolean deleteCountersOnClose()
        {
            return deleteCountersOnClose;
        }

        /**
         * Counter slots in the node file ({@code rivulet.maxCounters}): 640 bytes each (of a mapped file: a page is
         * backed once a counter on it is used); a connection takes 8, a publication 5. By default
         * {@value #BASE_COUNTERS} plus 8 for each of {@link #maxConnections(int)} (33,792 for the default 4,096, at
         * most 1,048,576), so that every connection the node may hold has counters of its own; the connections beyond
         * the slots share one overflow set that tools do not see.
         */
        public Context maxCounters(final int maxCounters)
        {
            assigned.add("maxCounters");
            maxCountersGiven = true;
            this.maxCounters = maxCounters;
            return this;
        }

        /** @return the slots given, else those sized from {@link #maxConnections()}. */
        public int maxCounters()
        {
            return maxCountersGiven ? maxCounters : defaultMaxCounters(maxConnections);
        }

        /** Slots beside the connections': node totals, errors by type, publications, topics, datagram paths. */
        public static final int BASE_COUNTERS = 1024;

        /**
         * @param maxConnections the node's {@link #maxConnections(int)}.
         * @return the default {@link #maxCounters(int)}: {@link #BASE_COUNTERS} and a connection's 8 counters for
         *         each connection, at most 1,048,576.
         */
        public static int defaultMaxCounters(final int maxConnections)
        {
            return (int)Math.min(1 << 20,
                BASE_COUNTERS + (long)io.rivulet.counters.ConnectionCounters.COUNTERS * Math.max(0, maxConnections));
        }

        /**
         * Bytes of the distinct error log in the node file ({@code rivulet.errorLogLength}, 1 MiB; a deep stack
         * trace takes several KiB, and a full log keeps its old errors and drops new distinct ones).
         */
        public Context errorLogLength(final int errorLogLength)
        {
            assigned.add("errorLogLength");
            this.errorLogLength = errorLogLength;
            return this;
        }

        public int errorLogLength()
        {
            return errorLogLength;
        }

        /** Clock of the engine; tests inject their own. */
        public Context nanoClock(final NanoClock nanoClock)
        {
            assigned.add("nanoClock");
            this.nanoClock = nanoClock;
            return this;
        }

        public NanoClock nanoClock()
        {
            return nanoClock;
        }

        /** Makes the engine's threads (DEDICATED and SHARED modes); default: daemon threads named by role. */
        public Context threadFactory(final ThreadFactory threadFactory)
        {
            assigned.add("threadFactory");
            this.threadFactory = threadFactory;
            return this;
        }

        public ThreadFactory threadFactory()
        {
            return threadFactory;
        }

        /**
         * Adds a protocol layer that every connection of the node carries, after the built-in ones (topics,
         * regions, topic datagrams). The node builds it when it starts, giving it the executor that runs commands
         * on the conductor; its frame types must be claimed by no other layer.
         *
         * @param extension builds the node's part of the layer from the conductor's command executor.
         * @return this.
         */
        public Context extension(final Function<Executor, NodeExtension> extension)
        {
            assigned.add("extension");
            extensions.add(java.util.Objects.requireNonNull(extension, "extension"));
            return this;
        }

        /** @return the protocol layers added with {@link #extension}, in order. */
        public List<Function<Executor, NodeExtension>> extensions()
        {
            return List.copyOf(extensions);
        }

        /**
         * Adds an interceptor that wraps every connection of the node: the {@link Connection} the application gets
         * from {@code connect}, and the {@link Responder} each connection serves, client and server side. The first
         * added is the outermost. Without any, nothing is wrapped.
         *
         * @param interceptor such as {@code RivuletObservations.interceptor(observationRegistry)}.
         * @return this.
         */
        public Context interceptor(final Interceptor interceptor)
        {
            interceptors.add(java.util.Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /** @return the interceptors added with {@link #interceptor}, in order. */
        public List<Interceptor> interceptors()
        {
            return List.copyOf(interceptors);
        }

        /**
         * Receives errors that have no subscriber to go to, every one of them; default: one SLF4J WARN line each, at
         * most one a second per exception type with the count of the others held back (every error is also counted
         * by type and kept in the node file's distinct error log).
         */
        public Context errorHandler(final Consumer<Throwable> errorHandler)
        {
            assigned.add("errorHandler");
            this.errorHandler = errorHandler;
            return this;
        }

        public Consumer<Throwable> errorHandler()
        {
            return errorHandler;
        }

        /**
         * Adds codecs for routed requests and remote actors, tried before the built-in ones and those found on the
         * class path (see {@link Codecs} for the order and the default choice).
         */
        public Context codecs(final Codec<?>... codecs)
        {
            this.codecs.addAll(List.of(codecs));
            return this;
        }

        public List<Codec<?>> codecs()
        {
            return List.copyOf(codecs);
        }

        /**
         * What the node does once an error escaped its engine's agents, such as an {@link OutOfMemoryError}
         * ({@code rivulet.engineFailure}: close (default) or exit). Either way the node first closes its connections
         * and listeners, marks its node file DEAD with the cause and calls the {@link #errorHandler}; then
         * {@link EngineFailure#CLOSE} leaves the JVM running with the node closed (later calls fail with "node failed:
         * &lt;cause&gt;"), {@link EngineFailure#EXIT} halts it ({@link #engineFailureExit}).
         */
        public Context engineFailure(final EngineFailure engineFailure)
        {
            assigned.add("engineFailure");
            this.engineFailure = engineFailure;
            return this;
        }

        public EngineFailure engineFailure()
        {
            return engineFailure;
        }

        /**
         * How {@link EngineFailure#EXIT} ends the JVM, given the status ({@code FailStop.EXIT_STATUS}, 70); default
         * {@code Runtime.getRuntime().halt(status)}: no shutdown hooks, which could wait on the failed engine. Runs
         * on the engine thread that caught the error, after everything else; tests inject their own.
         */
        public Context engineFailureExit(final IntConsumer engineFailureExit)
        {
            assigned.add("engineFailureExit");
            this.engineFailureExit = engineFailureExit;
            return this;
        }

        public IntConsumer engineFailureExit()
        {
            return engineFailureExit;
        }

        /** @return the node's limiter of log lines (after {@link #conclude()}). */
        RateLimitedLog log()
        {
            return log;
        }

        /**
         * Fills defaults and validates.
         *
         * @return this.
         * @throws ConfigurationException naming the first bad setting.
         */
        public Context conclude()
        {
            assigned.add("conclude");
            if (concluded)
            {
                return this;
            }
            if (transport == null)
            {
                final String name = System.getProperty("rivulet.transport", "tcp");
                try
                {
                    transport = Transports.byName(name);
                }
                catch (final IllegalArgumentException ex)
                {
                    throw PropertyValues.invalid("rivulet.transport", name, ex.getMessage());
                }
            }
            if (datagrams == null && !assigned.contains("datagrams"))
            {
                final String name = System.getProperty("rivulet.datagrams", "").trim();
                if (!name.isEmpty())
                {
                    try
                    {
                        datagrams = Transports.datagrams(name);
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        throw PropertyValues.invalid("rivulet.datagrams", name, ex.getMessage());
                    }
                }
            }
            ContextProperties.checkNames(System.getProperties());
            check(threadingMode != null, "threadingMode", null, "must be set: SHARED, DEDICATED or INVOKER");
            check(maxFrameLength >= 256 && maxFrameLength <= 16 * 1024 * 1024, "maxFrameLength",
                shownSize(maxFrameLength), "must be within 256 bytes and 16m, e.g. 16k");
            check(maxMessageLength >= 1, "maxMessageLength", shownSize(maxMessageLength), "must be positive, e.g. 16m");
            check(streamWindow >= 1, "streamWindow", streamWindow, "must be positive, e.g. 256");
            check(BitUtil.isPowerOfTwo(outboundRingLength), "outboundRingLength", shownSize(outboundRingLength),
                "must be a power of two, e.g. 256k");
            check(outboundRingLength / 8 >= maxFrameLength + 8, "outboundRingLength", shownSize(outboundRingLength),
                "must hold 8 frames of maxFrameLength " + shownSize(maxFrameLength) + ", e.g. " +
                shownSize(BitUtil.findNextPositivePowerOfTwo(8 * (maxFrameLength + 8))));
            check(linkBufferLength >= maxFrameLength + TransportSettings.FRAMING_ALLOWANCE, "linkBufferLength",
                shownSize(linkBufferLength), "must hold a frame of maxFrameLength " + shownSize(maxFrameLength) + " and its " +
                "framing, at least " + (maxFrameLength + TransportSettings.FRAMING_ALLOWANCE) + " bytes");
            // SETUP carries the keepalive interval and timeout as int32 milliseconds.
            check(keepaliveIntervalNs >= TimeUnit.MILLISECONDS.toNanos(1), "keepaliveInterval",
                shownDuration(keepaliveIntervalNs), "must be at least 1ms (SETUP carries milliseconds), e.g. 1s");
            check(TimeUnit.NANOSECONDS.toMillis(keepaliveTimeoutNs) <= Integer.MAX_VALUE, "keepaliveTimeout",
                shownDuration(keepaliveTimeoutNs), "must be at most " + Integer.MAX_VALUE + "ms, e.g. 5s");
            check(TimeUnit.NANOSECONDS.toMillis(keepaliveTimeoutNs) > TimeUnit.NANOSECONDS.toMillis(keepaliveIntervalNs),
                "keepaliveTimeout", shownDuration(keepaliveTimeoutNs), "must exceed keepaliveInterval " +
                shownDuration(keepaliveIntervalNs) + " by at least 1ms, e.g. 5 intervals");
            check(connectTimeoutNs > 0, "connectTimeout", shownDuration(connectTimeoutNs), "must be positive, e.g. 5s");
            check(frameLimit >= 1, "frameLimit", frameLimit, "must be positive, e.g. 64");
            check(topicWindow >= 2, "topicWindow", topicWindow, "must be at least 2, e.g. 2048");
            check(topicHeartbeatIntervalNs > 0, "topicHeartbeatInterval", shownDuration(topicHeartbeatIntervalNs),
                "must be positive, e.g. 100ms");
            check(topicHeartbeatTimeoutNs > topicHeartbeatIntervalNs, "topicHeartbeatTimeout",
                shownDuration(topicHeartbeatTimeoutNs), "must exceed topicHeartbeatInterval " +
                shownDuration(topicHeartbeatIntervalNs) + ", e.g. 5s");
            check(setupTimeoutNs > 0, "setupTimeout", shownDuration(setupTimeoutNs), "must be positive, e.g. 2s");
            check(maxStreams >= 1, "maxStreams", maxStreams, "must be positive, e.g. 1024");
            check(maxPendingRequests >= 1, "maxPendingRequests", maxPendingRequests, "must be positive, e.g. 1024");
            // No lower bound against maxMessageLength: a message is refused only when others are parked already.
            check(maxParkedBytes >= 1, "maxParkedBytes", shownSize(maxParkedBytes), "must be positive, e.g. 64m");
            check(maxConnections >= 1, "maxConnections", maxConnections, "must be positive, e.g. 10000");
            check(maxPendingSetupsPerAddress >= 1, "maxPendingSetupsPerAddress", maxPendingSetupsPerAddress,
                "must be positive, e.g. 256");
            check(maxConnectionMemory >= maxMessageLength, "maxConnectionMemory", shownSize(maxConnectionMemory),
                "must hold one message of maxMessageLength " + shownSize(maxMessageLength) + ", e.g. 128m");
            check(maxNodeMemory >= maxMessageLength, "maxNodeMemory", shownSize(maxNodeMemory),
                "must hold one message of maxMessageLength " + shownSize(maxMessageLength) + ", e.g. 1g");
            check(maxKeepaliveTimeoutNs >= TimeUnit.MILLISECONDS.toNanos(2), "maxKeepaliveTimeout",
                shownDuration(maxKeepaliveTimeoutNs), "must be at least 2ms, e.g. 60s");
            check(idleTimeoutNs >= 0, "idleTimeout", shownDuration(idleTimeoutNs),
                "must not be negative; 0 keeps idle connections, e.g. 5m is written 300s");
            check(authToken == null ||
                authTokenBytes().length <= maxFrameLength - io.rivulet.codec.FrameWriter.setupLength(0, 0),
                "authToken", "…", "must fit one SETUP frame of maxFrameLength " + shownSize(maxFrameLength));
            try
            {
                datagramSettingsGiven = datagramSettings != null;
                datagramSettings = (datagramSettings == null ? new DatagramSettings() : datagramSettings).validate();
            }
            catch (final IllegalArgumentException ex)
            {
                throw new ConfigurationException(ex.getMessage());
            }
            if (topicMulticast == null)
            {
                topicMulticast = io.rivulet.topic.TopicGroups.parse(System.getProperty("rivulet.topicMulticast"));
            }
            multicastSettingsGiven = multicastSettings != null;
            multicastSettings = (multicastSettings == null ? new io.rivulet.spi.MulticastSettings() : multicastSettings)
                .validate();
            check(maxCounters() >= 64 && maxCounters() <= 1 << 20, "maxCounters", maxCounters(),
                "must be within 64 and 1048576, e.g. 1024");
            check(errorLogLength >= 4096 && errorLogLength <= 64 * 1024 * 1024, "errorLogLength",
                shownSize(errorLogLength), "must be within 4k and 64m, e.g. 1m");
            if (nodeName == null || nodeName.isBlank())
            {
                nodeName = "node-" + NODE_NUMBERS.incrementAndGet();
            }
            check(countersDirectory != null && !countersDirectory.isBlank(), "countersDirectory", countersDirectory,
                "must name a directory, e.g. /dev/shm/rivulet");
            if (idleStrategy == null)
            {
                idleStrategy = newIdleStrategy();
                idleStrategyNamed = true;
            }
            if (replyIdleStrategies == null)
            {
                replyIdleStrategies = replyIdleStrategies(replyIdleStrategyName);
            }
            if (threadFactory == null)
            {
                threadFactory = runnable ->
                {
                    final Thread thread = new Thread(runnable);
                    thread.setDaemon(true);
                    return thread;
                };
            }
            check(engineFailure != null, "engineFailure", null, "must be set: close or exit");
            check(engineFailureExit != null, "engineFailureExit", null, "must be set");
            // Wall-clock intervals, whatever clock the engine was given.
            log = new RateLimitedLog(SystemNanoClock.INSTANCE, RateLimitedLog.DEFAULT_INTERVAL_NS);
            if (errorHandler == null)
            {
                // The stack trace goes to the node file's error log (rivulet stat), not to every log line; at most one
                // line a second per exception type, with the count of the others (the handler is called for each).
                final RateLimitedLog errorLog = log;
                final String name = nodeName;
                errorHandler = error -> errorLog.log(RateLimitedLog.key("error", error), LOG::warn,
                    () -> "rivulet node " + name + ": " + error);
            }
            concluded = true;
            return this;
        }

        /**
         * Fails unless a setting is good, naming it as the application gave it: its setter
         * ({@code Context.keepaliveInterval(500us)}), its system property as written
         * ({@code rivulet.keepaliveInterval=500us}), or its default when another setting clashes with it.
         */
        private void check(final boolean good, final String setting, final Object shown, final String problem)
        {
            if (!good)
            {
                final String property = ContextProperties.PROPERTY_OF_SETTING.getOrDefault(setting, "rivulet." + setting);
                final String raw = System.getProperty(property);
                final String origin;
                if (assigned.contains(setting))
                {
                    origin = "Context." + setting + "(" + shown + ")";
                }
                else if (raw != null)
                {
                    origin = property + "=" + raw.trim();
                }
                else
                {
                    origin = property + " (default " + shown + ")";
                }
                throw new ConfigurationException(origin + ": " + problem, setting, String.valueOf(shown), problem);
            }
        }

        private static String shownSize(final long bytes)
        {
            return PropertyValues.describeSize(bytes);
        }

        private static String shownDuration(final long nanos)
        {
            return PropertyValues.describeDuration(nanos);
        }

        private Supplier<IdleStrategy> replyIdleStrategies(final String name)
        {
            switch (name.trim().toLowerCase(java.util.Locale.ROOT))
            {
                case "backoff":
                    // Spin a little (a reply already on its way), then park until the reply wakes it.
                    return () -> new ReplyWait.SpinThenParkIdleStrategy(REPLY_WAIT_SPINS);
                case "park":
                    return () -> ReplyWait.PARK_STRATEGY;
                case "busy":
                    return BusySpinIdleStrategy::new;
                case "yield":
                    return YieldingIdleStrategy::new;
                default:
                    throw new ConfigurationException((assigned.contains("replyIdleStrategy") ?
                        "Context.replyIdleStrategy(\"" + name + "\")" : "rivulet.replyIdleStrategy=" + name) +
                        ": unknown idle strategy for waiting callers; one of backoff, park, busy, yield");
            }
        }

        IdleStrategy newIdleStrategy()
        {
            switch (idleStrategyName.trim().toLowerCase(java.util.Locale.ROOT))
            {
                case "backoff":
                    return new BackoffIdleStrategy(EngineSleep.SPINS, EngineSleep.YIELDS,
                        TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1));
                case "busy":
                    return new BusySpinIdleStrategy();
                case "yield":
                    return new YieldingIdleStrategy();
                case "sleep":
                    return new SleepingMillisIdleStrategy(1);
                case "noop":
                    return new NoOpIdleStrategy();
                default:
                    throw new ConfigurationException((assigned.contains("idleStrategy") ?
                        "Context.idleStrategy(\"" + idleStrategyName + "\")" : "rivulet.idleStrategy=" + idleStrategyName) +
                        ": unknown idle strategy; one of backoff, busy, yield, sleep, noop");
            }
        }

        /**
         * @return the effective settings, as {@code rivulet.*} properties would write them (after {@link #conclude()}
         *         the defaults it filled in too); the auth token is shown only as set or not.
         */
        @Override
        public String toString()
        {
            return "Rivulet.Context{" +
                "transport=" + (transport == null ? System.getProperty("rivulet.transport", "tcp") : transport) +
                ", threadingMode=" + threadingMode +
                ", idleStrategy=" + (idleStrategy == null ? idleStrategyName : idleStrategy) +
                ", replyIdleStrategy=" + (replyIdleStrategies == null ? replyIdleStrategyName :
                    replyIdleStrategies.get().alias()) +
                ", replyWaitRunsEngine=" + replyWaitRunsEngine +
                ", maxFrameLength=" + shownSize(maxFrameLength) +
                ", maxMessageLength=" + shownSize(maxMessageLength) +
                ", streamWindow=" + streamWindow +
                ", outboundRingLength=" + shownSize(outboundRingLength) +
                ", linkBufferLength=" + shownSize(linkBufferLength) +
                ", keepaliveInterval=" + shownDuration(keepaliveIntervalNs) +
                ", keepaliveTimeout=" + shownDuration(keepaliveTimeoutNs) +
                ", connectTimeout=" + shownDuration(connectTimeoutNs) +
                ", frameLimit=" + frameLimit +
                ", topicWindow=" + topicWindow +
                ", topicHeartbeatInterval=" + shownDuration(topicHeartbeatIntervalNs) +
                ", topicHeartbeatTimeout=" + shownDuration(topicHeartbeatTimeoutNs) +
                ", topicDatagrams=" + topicDatagrams + ", datagrams=" + (datagrams == null ? "transport's" : datagrams.name()) +
                ", topicMulticast=" + topicMulticast + ", topicMulticastReceive=" + topicMulticastReceive +
                ", setupTimeout=" + shownDuration(setupTimeoutNs) +
                ", maxStreams=" + maxStreams +
                ", maxPendingRequests=" + maxPendingRequests +
                ", maxParkedBytes=" + shownSize(maxParkedBytes) +
                ", maxConnections=" + maxConnections +
                ", maxPendingSetupsPerAddress=" + maxPendingSetupsPerAddress +
                ", maxConnectionMemory=" + shownSize(maxConnectionMemory) +
                ", maxNodeMemory=" + shownSize(maxNodeMemory) +
                ", maxKeepaliveTimeout=" + shownDuration(maxKeepaliveTimeoutNs) +
                ", idleTimeout=" + shownDuration(idleTimeoutNs) +
                ", authToken=" + (authToken == null ? "none" : "(set)") +
                ", authenticator=" + (authenticator == null ? "none" : authenticator) +
                ", nodeName=" + nodeName +
                ", countersDir=" + countersDirectory +
                ", countersFile=" + countersFile +
                ", countersDeleteOnClose=" + deleteCountersOnClose +
                ", maxCounters=" + maxCounters() +
                ", errorLogLength=" + shownSize(errorLogLength) +
                ", engineFailure=" + engineFailure.name().toLowerCase(java.util.Locale.ROOT) +
                ", extensions=" + extensions.size() +
                '}';
        }

        TopicSettings topicSettings()
        {
            return new TopicSettings(topicWindow, topicHeartbeatIntervalNs, topicHeartbeatTimeoutNs, maxFrameLength);
        }

        ProtocolSettings protocolSettings()
        {
            return new ProtocolSettings(maxFrameLength, maxMessageLength, streamWindow, keepaliveIntervalNs,
                keepaliveTimeoutNs, frameLimit, setupTimeoutNs, maxStreams, maxPendingRequests, maxParkedBytes,
                maxConnections, maxConnectionMemory, maxNodeMemory, maxKeepaliveTimeoutNs, idleTimeoutNs,
                maxPendingSetupsPerAddress);
        }
    }
}
