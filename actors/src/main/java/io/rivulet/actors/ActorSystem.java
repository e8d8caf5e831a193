package io.rivulet.actors;

import io.rivulet.ConfigurationException;
import io.rivulet.MessageTooLargeException;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.serde.Codec;
import io.rivulet.spi.PropertyValues;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * Actors on a Rivulet node: spawn them from behaviours, find them by path, watch them, across nodes.
 *
 * <pre>{@code
 * try (Rivulet node = Rivulet.launch();
 *      ActorSystem actors = ActorSystem.on(node, "127.0.0.1:7070"))          // hosts actors others can reach
 * {
 *     ActorRef<QuoteRequest> pricing = actors.spawn("pricing", pricingBehavior);
 *     ActorRef<QuoteRequest> remote = actors.lookup("rivulet://10.0.0.2:7070/pricing", QuoteRequest.class);
 *     Quote quote = remote.ask(new QuoteRequest("EURUSD"), Quote.class, Duration.ofSeconds(1)).block();
 * }
 * }</pre>
 *
 * <p><b>Paths.</b> An actor's path is {@code rivulet://host:port/name}, where {@code host:port} is the
 * address this system is bound to ({@link #on(Rivulet, String)}); a system that is not bound can reach other
 * nodes' actors but its own are only local, with paths {@code rivulet://local/name}. {@link #lookup} of a path
 * of this system gives a local ref; any other gives a remote ref, and the same code works with both.
 *
 * <p><b>Remote messaging</b> is built on the public Rivulet API over whatever transport the node uses (TCP,
 * RDMA). This system connects once to each remote node it talks to. Tells and asks to one remote actor travel
 * on one request-channel (opened on first use, metadata {@code Route(CHANNEL)}), which keeps each sender's
 * order and carries back-pressure as credits; replies come back on the same channel; a stream reply is
 * claimed with a request-stream (metadata {@code Route(STREAM)}), so its elements flow under the asker's
 * demand; a watch is a request-response (metadata {@code Route(WATCH)}) answered when the actor terminates,
 * or failed when the connection closes or keepalive declares the peer lost. Message bodies go through
 * {@link io.rivulet.serde.Codec}s registered under ids ({@link Context#codec}; SBE via
 * {@link io.rivulet.serde.SbeCodec}). The wire envelopes are in {@code sbe/rivulet-actors.xml}.
 *
 * <p><b>Threads.</b> Behaviours run on a dispatcher of {@link Context#dispatcherThreads} threads (a
 * {@link java.util.concurrent.ForkJoinPool}); one timer thread runs back-off restarts, ask timeouts and
 * retries. The node's engine threads only move envelopes in and out of mailboxes and queues.
 *
 * <p>Closing the system stops its actors (watchers get {@link Terminated.Reason#STOPPED}), ends its channels
 * and connections and its dispatcher; it does not close the node.
 *
 * <p>Thread-safe.
 */
public final class ActorSystem implements AutoCloseable
{
    /** The scheme of actor paths. */
    public static final String SCHEME = "rivulet://";
    /** The authority of the paths of a system that is not bound. */
    public static final String UNBOUND = "local";

    static final int MAX_BATCH_ENTRIES = 1024;

    private static final org.slf4j.Logger LOGGER = org.slf4j.LoggerFactory.getLogger(ActorSystem.class);
    private static final AtomicInteger SYSTEM_IDS = new AtomicInteger();

    private final Rivulet node;
    private final Context context;
    private final ActorCounters counters = new ActorCounters();
    private final long incarnation = ThreadLocalRandom.current().nextLong() | 1;
    private final CodecRegistry serializers;
    private final AbstractReplier noReply;
    private final ConcurrentHashMap<String, ActorCell<?>> actors = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ActorPath, RemoteEndpoint> endpoints = new ConcurrentHashMap<>();
    private final RemoteActorResponder responder = new RemoteActorResponder(this);
    private final Peers peers;
    private final ActorThreads threads;
    private final Asks asks;
    private final BackPressure backPressure;
    private final int maxBatchBytes;
    private final int maxEnvelopeLength;
    private final Server server;
    private final String address;
    private volatile boolean closed;

    private ActorSystem(final Rivulet node, final Context context)
    {
        this.node = node;
        this.context = context;
        final int id = SYSTEM_IDS.incrementAndGet();
        final List<CodecBinding<?>> all = new ArrayList<>(CodecBinding.builtIns());
        all.addAll(context.codecs());
        this.serializers = new CodecRegistry(all);
        this.noReply = new AbstractReplier.None(counters);
        this.peers = new Peers(node, context.peerRetryAfter().toNanos(), this::reportError);
        final int maxFrameLength = node.context().maxFrameLength();
        this.maxBatchBytes = Math.max(128, Math.min(maxFrameLength - 64, 64 * 1024));
        this.maxEnvelopeLength = node.context().maxMessageLength() - Envelopes.ENTRY_PREFIX;
        this.threads = new ActorThreads(id, context.dispatcherThreads(), this::reportError);
        this.asks = new Asks(counters, context.askTimeout(), threads.timerScheduler());
        this.backPressure = new BackPressure(counters, context.sendTimeout());
        if (context.bindAddress() != null)
        {
            try
            {
                this.server = node.bind(context.bindAddress(), responder.responder()).block(Duration.ofSeconds(30));
            }
            catch (final RuntimeException ex)
            {
                threads.shutdown();
                throw ex;
            }
            this.address = server.localAddress();
        }
        else
        {
            this.server = null;
            this.address = UNBOUND;
        }
    }

    /**
     * An actor system that reaches other nodes' actors but is not bound: its own actors are local only.
     *
     * @param node the node to send through; not closed by the system.
     * @return the running system.
     */
    public static ActorSystem on(final Rivulet node)
    {
        return launch(node, new Context());
    }

    /**
     * An actor system whose actors other nodes can reach at {@code rivulet://<bound address>/<name>}.
     *
     * @param node        the node to serve and send through; not closed by the system.
     * @param bindAddress {@code host:port} to listen on; port 0 picks a free port (see {@link #address()}).
     * @return the running system, once bound.
     */
    public static ActorSystem on(final Rivulet node, final String bindAddress)
    {
        return launch(node, new Context().bindAddress(bindAddress));
    }

    /**
     * @param node    the node to serve and send through; not closed by the system.
     * @param context the configuration; concluded (validated) here.
     * @return the running system.
     * @throws ConfigurationException naming a bad setting.
     */
    public static ActorSystem launch(final Rivulet node, final Context context)
    {
        Objects.requireNonNull(node, "node");
        context.conclude();
        return new ActorSystem(node, context);
    }

    /** @return the bound {@code host:port}, or {@value #UNBOUND} when the system is not bound. */
    public String address()
    {
        return address;
    }

    /**
     * @param name an actor name.
     * @return the path an actor of that name has in this system.
     */
    public String pathOf(final String name)
    {
        return ActorPath.format(address, name);
    }

    /** @return the node this system runs on. */
    public Rivulet node()
    {
        return node;
    }

    /** @return the concluded configuration. */
    public Context context()
    {
        return context;
    }

    /** @return the system's counters. */
    public ActorCounters counters()
    {
        return counters;
    }

    /**
     * Spawns an actor with {@link ActorOptions#defaults()}.
     *
     * @see #spawn(String, Behavior, ActorOptions)
     */
    public <T> ActorRef<T> spawn(final String name, final Behavior<T> behavior)
    {
        return spawn(name, behavior, ActorOptions.defaults());
    }

    /**
     * Starts an actor. Its behaviour (a {@link Behaviors#setup} factory runs now, on a dispatcher thread)
     * handles the messages of its mailbox one at a time.
     *
     * @param name     unique among this system's running actors: letters, digits, {@code . _ ~ -}, up to 128.
     * @param behavior the initial behaviour, which a restart returns to.
     * @param options  mailbox and supervision.
     * @return the actor's ref.
     * @throws IllegalArgumentException when the name is malformed or taken.
     */
    public <T> ActorRef<T> spawn(final String name, final Behavior<T> behavior, final ActorOptions options)
    {
        Objects.requireNonNull(behavior, "behavior");
        Objects.requireNonNull(options, "options");
        ActorPath.requireName(name);
        if (closed)
        {
            throw new IllegalStateException("the actor system at " + address + " is closed");
        }
        final ActorCell<T> cell = new ActorCell<>(this, name, behavior, options);
        if (actors.putIfAbsent(name, cell) != null)
        {
            throw new IllegalArgumentException("an actor named '" + name + "' is already running at " + address);
        }
        counters.spawned.increment();
        cell.start();
        return cell.self();
    }

    /**
     * Finds an actor by path. Nothing is checked or sent now: a ref to an actor that does not exist makes its
     * messages dead letters and its asks fail with {@link ActorNotFoundException}.
     *
     * @param path {@code rivulet://host:port/name}, or a bare name for this system's actor.
     * @param type the type of message the actor accepts (not checked; it types the ref).
     * @return a local ref for this system's paths, a remote ref otherwise.
     * @throws IllegalArgumentException when the path is malformed.
     */
    @SuppressWarnings("unchecked")
    public <T> ActorRef<T> lookup(final String path, final Class<T> type)
    {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(type, "type");
        if (!path.startsWith(SCHEME))
        {
            return localRef(ActorPath.requireName(path));
        }
        final ActorPath target = ActorPath.parse(path);
        if (target.authority().equals(address))
        {
            return localRef(target.name());
        }
        if (target.isUnbound())
        {
            throw new IllegalArgumentException("'" + path + "' is an actor of a system that is not bound, which " +
                "other systems cannot reach: expected rivulet://host:port/name");
        }
        final RemoteEndpoint endpoint = endpoints.computeIfAbsent(target,
            key -> new RemoteEndpoint(this, key.authority(), key.name(), key.toString()));
        return new RemoteActorRef<>(endpoint);
    }

    /**
     * Death watch from outside an actor (actors use {@link ActorContext#watch}).
     *
     * @param ref the actor to watch.
     * @return cold: emits one {@link Terminated} when the actor stops or fails for good, at once when it is not
     *         running ({@link Terminated.Reason#NOT_FOUND}), or when its node becomes unreachable
     *         ({@link Terminated.Reason#UNREACHABLE}: the connection closed, or was lost to the keepalive
     *         timeout). Cancelling unwatches. Remote: the signal arrives on the engine thread.
     */
    public Mono<Terminated> watch(final ActorRef<?> ref)
    {
        Objects.requireNonNull(ref, "ref");
        final Mono<Terminated> watch;
        if (ref instanceof LocalActorRef<?> local && local.system() == this)
        {
            watch = Mono.defer(() ->
            {
                // The running actor of that name; else the one the ref knew, whose termination replays.
                final ActorCell<?> running = cell(ref.name());
                final ActorCell<?> cell = running != null ? running : local.knownCell();
                return cell == null ?
                    Mono.just(new Terminated(ref.path(), Terminated.Reason.NOT_FOUND, "no actor named '" + ref.name() +
                        "' is running at " + address)) :
                    cell.termination();
            });
        }
        else if (ref instanceof RemoteActorRef<?> remote && remote.endpoint().system() == this)
        {
            watch = remote.endpoint().watch();
        }
        else
        {
            return watch(lookup(ref.path(), Object.class));
        }
        return watch.doOnNext(terminated -> counters.watchNotifications.increment());
    }

    /**
     * Stops one of this system's actors after the message it is handling: {@link PostStop}, then watchers get
     * {@link Terminated.Reason#STOPPED}, and what is left in its mailbox becomes dead letters.
     *
     * @param ref a ref to an actor of this system.
     * @throws IllegalArgumentException for a remote actor (ask it to stop itself).
     */
    public void stop(final ActorRef<?> ref)
    {
        if (ref instanceof LocalActorRef<?> local && local.system() == this)
        {
            final ActorCell<?> cell = local.cell();
            if (cell != null)
            {
                cell.requestStop();
            }
            return;
        }
        throw new IllegalArgumentException("only actors of this system can be stopped here, not " + ref.path() +
            "; send it a message that makes it stop");
    }

    /**
     * @param ref an actor.
     * @return its mailbox's numbers (local) or this system's outbound queue to it (remote).
     */
    public ActorStats stats(final ActorRef<?> ref)
    {
        if (ref instanceof LocalActorRef<?> local && local.system() == this)
        {
            final ActorCell<?> cell = local.cell();
            return cell == null ? new ActorStats(ref.path(), true, 0, 0, 0, 0, 0, 0, 0) : cell.stats();
        }
        if (ref instanceof RemoteActorRef<?> remote && remote.endpoint().system() == this)
        {
            return remote.endpoint().stats();
        }
        return stats(lookup(ref.path(), Object.class));
    }

    /**
     * Stops every actor (waiting a few seconds at most), ends channels, closes this system's connections and
     * threads. The node stays open. Idempotent.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (server != null)
        {
            server.close();
        }
        for (final ActorCell<?> cell : actors.values())
        {
            cell.requestStop();
        }
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!actors.isEmpty() && System.nanoTime() - deadlineNs < 0)
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        final ActorNotFoundException cause = new ActorNotFoundException("the actor system at " + address + " closed");
        for (final RemoteEndpoint endpoint : endpoints.values())
        {
            endpoint.close(cause);
        }
        responder.abortChannels();
        peers.close();
        threads.shutdown();
    }

    /** @return true once {@link #close()} was called. */
    public boolean isClosed()
    {
        return closed;
    }

    @Override
    public String toString()
    {
        return "ActorSystem{" + address + ", " + actors.size() + " actors}";
    }

    // ------------------------------------------------------------------------------------------ internals

    long incarnation()
    {
        return incarnation;
    }

    Asks asks()
    {
        return asks;
    }

    CodecRegistry serializers()
    {
        return serializers;
    }

    AbstractReplier noReply()
    {
        return noReply;
    }

    Peers peers()
    {
        return peers;
    }

    StreamSlots streams()
    {
        return responder.streams();
    }

    int throughput()
    {
        return context.throughput();
    }

    int maxBatchBytes()
    {
        return maxBatchBytes;
    }

    int maxBatchEntries()
    {
        return MAX_BATCH_ENTRIES;
    }

    ActorCell<?> cell(final String name)
    {
        return actors.get(name);
    }

    void unregister(final ActorCell<?> cell)
    {
        actors.remove(cell.name(), cell);
    }

    void onChannelClosed(final InboundChannel channel)
    {
        responder.onChannelClosed(channel);
    }

    /** @return false when the dispatcher is shut down. */
    boolean dispatch(final Runnable task)
    {
        return threads.dispatch(task);
    }

    /** @return the scheduled task, or null when the system is closed. */
    Future<?> schedule(final long delayNs, final Runnable task)
    {
        return threads.schedule(delayNs, task);
    }

    void reportError(final Throwable error)
    {
        try
        {
            context.errorHandler().accept(error);
        }
        catch (final Throwable ignore)
        {
            // the handler must not break the actor that reported
        }
    }

    /** Makes sure an envelope fits a Rivulet message. */
    void checkLength(final byte[] entry)
    {
        if (entry.length > maxEnvelopeLength)
        {
            throw new MessageTooLargeException("an actor message of " + entry.length +
                " bytes exceeds the node's maxMessageLength");
        }
    }

    /** BACK_PRESSURE for a sender: see {@link BackPressure#awaitOffer}. */
    int awaitOffer(final IntSupplier offer, final String what)
    {
        return backPressure.awaitOffer(offer, what);
    }

    @SuppressWarnings("unchecked")
    private <T> ActorRef<T> localRef(final String name)
    {
        return new LocalActorRef<>(this, name, pathOf(name), actors.get(name));
    }

    private static void log(final Throwable error)
    {
        LOGGER.warn("{}", error.getMessage(), error);
    }

    /**
     * Configuration of an actor system. Fluent accessors; defaults from {@code rivulet.actors.*} system
     * properties; {@link #conclude()} validates, failing with a {@link ConfigurationException} naming the
     * setting.
     *
     * <p>Not thread-safe; configure before launch.
     */
    public static final class Context
    {
        private String bindAddress;
        private int dispatcherThreads = intProperty("rivulet.actors.dispatcherThreads",
            Math.max(2, Runtime.getRuntime().availableProcessors()));
        private int throughput = intProperty("rivulet.actors.throughput", 64);
        private Duration askTimeout = durationProperty("rivulet.actors.askTimeout", Duration.ofSeconds(5));
        private Duration sendTimeout = durationProperty("rivulet.actors.sendTimeout", Duration.ofSeconds(5));
        private Duration peerRetryAfter = durationProperty("rivulet.actors.peerRetryAfter", Duration.ofSeconds(1));
        private Duration streamClaimTimeout = durationProperty("rivulet.actors.streamClaimTimeout",
            Duration.ofSeconds(30));
        private int outboxCapacity = intProperty("rivulet.actors.outboxCapacity", 8192);
        private int inboundWindow = intProperty("rivulet.actors.inboundWindow", 64);
        private int maxPendingAsks = intProperty("rivulet.actors.maxPendingAsks", 65536);
        /** The first codec id free for applications ({@link #codec}). */
        public static final int FIRST_USER_CODEC_ID = 100;

        private final List<CodecBinding<?>> serializers = new ArrayList<>();
        private Consumer<Throwable> errorHandler;
        private boolean concluded;

        /** Listen on {@code host:port} so that other nodes reach this system's actors; null (default) for none. */
        public Context bindAddress(final String bindAddress)
        {
            this.bindAddress = bindAddress;
            return this;
        }

        public String bindAddress()
        {
            return bindAddress;
        }

        /** Threads running behaviours ({@code rivulet.actors.dispatcherThreads}, default max(2, cores)). */
        public Context dispatcherThreads(final int dispatcherThreads)
        {
            this.dispatcherThreads = dispatcherThreads;
            return this;
        }

        public int dispatcherThreads()
        {
            return dispatcherThreads;
        }

        /** Messages an actor handles before yielding its thread ({@code rivulet.actors.throughput}, 64). */
        public Context throughput(final int throughput)
        {
            this.throughput = throughput;
            return this;
        }

        public int throughput()
        {
            return throughput;
        }

        /** Timeout of asks without one, and of a stream ask's answer ({@code rivulet.actors.askTimeout}, 5s). */
        public Context askTimeout(final Duration askTimeout)
        {
            this.askTimeout = askTimeout;
            return this;
        }

        public Duration askTimeout()
        {
            return askTimeout;
        }

        /** Longest a tell waits for room under BACK_PRESSURE ({@code rivulet.actors.sendTimeout}, 5s). */
        public Context sendTimeout(final Duration sendTimeout)
        {
            this.sendTimeout = sendTimeout;
            return this;
        }

        public Duration sendTimeout()
        {
            return sendTimeout;
        }

        /**
         * How long a failed connect to a node is remembered ({@code rivulet.actors.peerRetryAfter}, 1s): messages to
         * its actors in that time are dead letters at once, without a connect each; the next after it connects again.
         */
        public Context peerRetryAfter(final Duration peerRetryAfter)
        {
            this.peerRetryAfter = peerRetryAfter;
            return this;
        }

        public Duration peerRetryAfter()
        {
            return peerRetryAfter;
        }

        /** How long a stream reply waits for its remote asker ({@code rivulet.actors.streamClaimTimeout}, 30s). */
        public Context streamClaimTimeout(final Duration streamClaimTimeout)
        {
            this.streamClaimTimeout = streamClaimTimeout;
            return this;
        }

        public Duration streamClaimTimeout()
        {
            return streamClaimTimeout;
        }

        /**
         * Envelopes queued per remote actor (outbound) and per channel (replies), rounded up to a power of two
         * ({@code rivulet.actors.outboxCapacity}, 8192).
         */
        public Context outboxCapacity(final int outboxCapacity)
        {
            this.outboxCapacity = outboxCapacity;
            return this;
        }

        public int outboxCapacity()
        {
            return outboxCapacity;
        }

        /** Messages (batches) requested at a time per inbound channel ({@code rivulet.actors.inboundWindow}, 64). */
        public Context inboundWindow(final int inboundWindow)
        {
            this.inboundWindow = inboundWindow;
            return this;
        }

        public int inboundWindow()
        {
            return inboundWindow;
        }

        /** Most asks waiting for replies per remote actor ({@code rivulet.actors.maxPendingAsks}, 65536). */
        public Context maxPendingAsks(final int maxPendingAsks)
        {
            this.maxPendingAsks = maxPendingAsks;
            return this;
        }

        public int maxPendingAsks()
        {
            return maxPendingAsks;
        }

        /**
         * Registers a codec for messages and replies of a class to and from other nodes, under an id that travels with
         * each message: both nodes must register the same codec under the same id. Ids below
         * {@value #FIRST_USER_CODEC_ID} are the built-ins' (String 1, {@code byte[]} 2, Long 3). A message uses the
         * codec registered for its exact class, else the first registered for a supertype.
         *
         * <pre>{@code
         * context.codec(101, Quote.class, SbeCodec.of(Quote.class, QuoteEncoder::new, QuoteDecoder::new, ...))
         *        .codec(102, Order.class, new JacksonCodec());
         * }</pre>
         *
         * @param id    unique in the actor system, at least {@value #FIRST_USER_CODEC_ID}.
         * @param type  the messages' class.
         * @param codec encodes and decodes them (it must {@link io.rivulet.serde.Codec#supports} the class).
         * @param <T>   the messages' class.
         * @return this context.
         */
        public <T> Context codec(final int id, final Class<T> type, final Codec<? super T> codec)
        {
            serializers.add(new CodecBinding<>(id, type, codec));
            return this;
        }

        List<CodecBinding<?>> codecs()
        {
            return List.copyOf(serializers);
        }

        /**
         * Receives failures of behaviours (as {@link ActorFailedException}s with the supervisor's decision), the
         * cause of each connection to a peer node that was lost (its tells in flight became dead letters), and other
         * errors without a caller; default: logged at WARN through SLF4J.
         */
        public Context errorHandler(final Consumer<Throwable> errorHandler)
        {
            this.errorHandler = errorHandler;
            return this;
        }

        public Consumer<Throwable> errorHandler()
        {
            return errorHandler;
        }

        /**
         * Validates and fills defaults.
         *
         * @return this.
         * @throws ConfigurationException naming the first bad setting.
         */
        public Context conclude()
        {
            if (concluded)
            {
                return this;
            }
            require(dispatcherThreads >= 1 && dispatcherThreads <= 32767,
                "dispatcherThreads must be within [1, 32767]: " + dispatcherThreads);
            require(throughput >= 1, "throughput must be positive: " + throughput);
            require(askTimeout != null && !askTimeout.isNegative() && !askTimeout.isZero(),
                "askTimeout must be positive: " + askTimeout);
            require(sendTimeout != null && !sendTimeout.isNegative(),
                "sendTimeout must not be negative: " + sendTimeout);
            require(peerRetryAfter != null && !peerRetryAfter.isNegative(),
                "peerRetryAfter must not be negative: " + peerRetryAfter);
            require(streamClaimTimeout != null && !streamClaimTimeout.isNegative() && !streamClaimTimeout.isZero(),
                "streamClaimTimeout must be positive: " + streamClaimTimeout);
            require(outboxCapacity >= 2 && outboxCapacity <= 1 << 24,
                "outboxCapacity must be within [2, 16777216]: " + outboxCapacity);
            require(inboundWindow >= 1, "inboundWindow must be positive: " + inboundWindow);
            require(maxPendingAsks >= 1, "maxPendingAsks must be positive: " + maxPendingAsks);
            for (final CodecBinding<?> serializer : serializers)
            {
                require(serializer.id() >= FIRST_USER_CODEC_ID, "codec ids below " +
                    FIRST_USER_CODEC_ID + " are reserved: " + serializer);
            }
            try
            {
                final List<CodecBinding<?>> all = new ArrayList<>(serializers);
                all.addAll(CodecBinding.builtIns());
                new CodecRegistry(all);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new ConfigurationException("codecs: " + ex.getMessage());
            }
            if (errorHandler == null)
            {
                errorHandler = ActorSystem::log;
            }
            concluded = true;
            return this;
        }

        private static void require(final boolean condition, final String message)
        {
            if (!condition)
            {
                throw new ConfigurationException(message);
            }
        }

        private static int intProperty(final String property, final int defaultValue)
        {
            return PropertyValues.size(property, defaultValue);
        }

        private static Duration durationProperty(final String property, final Duration defaultValue)
        {
            return Duration.ofNanos(PropertyValues.durationNs(property, defaultValue.toNanos()));
        }
    }
}
