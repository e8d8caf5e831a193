package io.rivulet.bench.rivulet;

import io.rivulet.bench.harness.ReplySlot;
import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.MessageView;
import io.rivulet.ReplyHandler;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.bench.harness.BenchClient;
import io.rivulet.bench.harness.ClientMain;
import io.rivulet.bench.harness.FanOutReceiver;
import io.rivulet.bench.harness.Histograms;
import io.rivulet.bench.harness.Line;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.Progress;
import io.rivulet.bench.harness.Waits;
import io.rivulet.topic.TopicHandler;
import io.rivulet.topic.TopicItem;
import io.rivulet.topic.TopicMessage;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Rivulet's measuring side. Ping-pong and request-response use the Reactor API
 * ({@code Connection.requestResponse}): ping-pong waits for each reply with the harness's {@link ReplySlot} (the
 * row's {@code --wait}); request-response is measured three ways, a {@code flatMap} chain, a {@code concatMap}
 * chain and a blocking caller ({@link #pipelinedApis()}); one-way throughput is measured three times: on the zero-copy
 * {@code Connection.offer} path, on {@code Connection.fireAndForget(Message)}, and through the Flux API as
 * the inbound stream of one {@code Connection.requestChannel(Flux)}, whose demand crosses the wire as credits.
 *
 * <p>Fan-out: the server node publishes a topic ({@link FanOutPublisher}); this node opens {@code subscribers}
 * more connections to it, each subscribing with {@code Connection.subscribe(topic)} (the Flux API), so the
 * subscribers all live in this process, on this node's engine, and the publisher in the server's process.
 *
 * <p>Options besides the harness's: {@code --transport}, {@code --threading}, {@code --idle} (see
 * {@link Nodes}); {@code --wait spin|yield|park}, how the application thread waits for a reply (with
 * {@code --threading INVOKER} it always runs the engine's duty cycle instead); {@code --in-process true} to
 * start the server node in this JVM instead of connecting to another process.
 */
public final class RivuletClient implements BenchClient
{
    private static final String FAN_OUT_FLUX = "Publication.offer → Connection.subscribe";
    private static final String FAN_OUT_HANDLER = "Publication.offer → subscribe(TopicHandler)";
    /** Longest park between looks at a long exchange or a full outbound ring; nothing unparks for these. */
    private static final long PARK_NS = 50_000;
    /** How long one {@code offer(.., timeout)} waits for room before the loop checks its own deadline. */
    private static final java.time.Duration ROOM_WAIT = java.time.Duration.ofSeconds(1);
    /** Most fire-and-forget messages sent through the Reactor API before waiting for the receiver. */
    private static final int FLUX_WINDOW = 8192;
    /** Request-response through a {@code flatMap} chain, {@code --window} in flight. */
    private static final String FLAT_MAP = "flatMap";
    /** Request-response on the zero-copy path: {@code offerRequest} with {@code --window} in flight, replies in place. */
    private static final String OFFER_REQUEST = "offerRequest";
    /** Request-response through a {@code concatMap} chain: each request sent when the previous reply arrives. */
    private static final String CONCAT_MAP = "concatMap";
    /** Request-response from a caller that blocks for each reply. */
    private static final String BLOCK = "block()";
    /** Longest a blocking caller waits for one reply. */
    private static final Duration BLOCK_TIMEOUT = Duration.ofNanos(Waits.TIMEOUT_NS);
    /** A fire-and-forget refused at subscription (it fails synchronously), read back by the sending loop. */
    private Throwable sendError;
    private final java.util.function.Consumer<Throwable> onSendError = error -> sendError = error;

    private final Nodes.ClientOptions options;
    private final String waitName;
    private final ReplySlot.Wait wait;
    /**
     * offer waits for room with {@code offer(.., timeout)} on the parking rows; an INVOKER row's thread runs the duty
     * cycle itself between tries, as an INVOKER application does.
     */
    private final boolean waitsForRoom;
    private final boolean inProcess;
    private RivuletServer localServer;
    private Rivulet node;
    private boolean invoker;
    private Connection connection;

    private int size;
    private Message echo;
    private Message sync;
    private Message data;
    private UnsafeBuffer dataBuffer;
    private String address;
    private final List<Connection> fanOutConnections = new ArrayList<>();
    /** {@code --idle-connections}: open beside {@link #connection}, never used. */
    private final List<Connection> idleConnections = new ArrayList<>();
    private final List<FanOutReceiver> receivers = new ArrayList<>();
    /** The API the subscriber connections of {@link #fanOutConnections} take their items with. */
    private String fanOutSubscribedWith;
    private long fanOutPublished;

    RivuletClient(final Nodes.ClientOptions options)
    {
        this.options = options;
        this.inProcess = options.inProcess;
        final boolean invokerMode = "INVOKER".equalsIgnoreCase(options.threading);
        this.waitName = invokerMode ? "invoke" : options.waitName;
        wait = invokerMode ? () -> node.invoke() : Nodes.waitOf(waitName);
        waitsForRoom = !invokerMode && "park".equalsIgnoreCase(options.waitName) &&
            !"timed-park".equals(System.getProperty("bench.offerWait"));
    }

    /** Runs the workloads against a {@link RivuletServer}, or in-process; {@code --help} lists the options. */
    public static void main(final String[] argv)
    {
        ClientMain.run(argv, new Nodes.ClientOptions(), RivuletClient::new);
    }

    @Override
    public Line info()
    {
        final String transport = node.context().transport().name();
        final String how = invoker ?
            "client node INVOKER: the application thread runs the engine's duty cycle while it waits; server node " +
                Nodes.describeServer(options) :
            Nodes.describe(options) + "; application thread waits for replies: " + waitName;
        return Line.of(Line.INFO,
            "system", "Rivulet " + transport.toUpperCase() + (inProcess ? " in-process" : ""),
            "version", Nodes.version(),
            "transport", transport + ("rdma".equalsIgnoreCase(transport) ?
                " (provider " + System.getProperty("rivulet.rdma.provider", "default") + ")" : ""),
            "topology", inProcess ? "1 process (2 nodes)" : "2 processes",
            "settings", how + "; offer " + (waitsForRoom ? "waits for room with offer(.., timeout) when " +
                "back-pressured (woken by the engine)" : invoker ? "runs the duty cycle when back-pressured" :
                "waits as for replies when back-pressured (park: " + PARK_NS / 1000 + " µs)") +
                "; receiver counts fire-and-forgets on the zero-copy handler" + (options.idleConnections > 0 ?
                "; " + options.idleConnections + " idle connection(s) to the server beside the measured one" : ""));
    }

    @Override
    public void start() throws Exception
    {
        if (inProcess)
        {
            localServer = new RivuletServer(Nodes.serverOptions(options));
            final Map<String, Object> ready = localServer.start();
            address = String.valueOf(ready.get("address"));
        }
        else
        {
            address = options.host + ":" + options.port;
        }
        final Rivulet.Context context = Nodes.context(options);
        invoker = context.threadingMode() == ThreadingMode.INVOKER;
        node = Rivulet.launch(context);
        connection = await(node.connect(address));
        for (int i = 0; i < options.idleConnections; i++)
        {
            idleConnections.add(await(node.connect(address)));
        }
    }

    private <T> T await(final Mono<T> mono) throws Exception
    {
        final ReplySlot<T> slot = new ReplySlot<>(wait);
        mono.subscribe(slot);
        return slot.await();
    }

    @Override
    public void prepare(final int size)
    {
        this.size = size;
        echo = Message.of(Payloads.newPayload(size, Payloads.ECHO));
        sync = Message.of(Payloads.newPayload(size, Payloads.SYNC));
        final byte[] bytes = Payloads.newPayload(size, Payloads.DATA);
        data = Message.of(bytes);
        dataBuffer = new UnsafeBuffer(bytes);
        if (size > connection.maxOfferLength())
        {
            throw new IllegalArgumentException(size + " bytes exceed the offer maximum " + connection.maxOfferLength());
        }
    }

    @Override
    public String pingPongApi()
    {
        return "requestResponse";
    }

    @Override
    public void roundTrip() throws Exception
    {
        // A parking caller waits as users do, in the Mono's own block(): on a default node the engine lends it the
        // duty cycle while it would sleep (EngineLoan).
        final Message reply = "park".equals(waitName) ? connection.requestResponse(echo).block(BLOCK_TIMEOUT) :
            await(connection.requestResponse(echo));
        if (reply == null || reply.dataLength() != size)
        {
            throw new IllegalStateException("expected a " + size + "-byte echo, got " + reply);
        }
    }

    @Override
    public List<String> oneWayApis()
    {
        return List.of("offer", "fireAndForget", "requestChannel");
    }

    @Override
    public void send(final String api, final long count, final Progress progress) throws Exception
    {
        if ("offer".equals(api))
        {
            for (long i = 0; i < count; i++)
            {
                long result;
                final long deadlineNs = Waits.deadline();
                int spins = 0;
                while ((result = waitsForRoom ? connection.offer(dataBuffer, 0, size, ROOM_WAIT) :
                    connection.offer(dataBuffer, 0, size)) < 0)
                {
                    if (result == Connection.CLOSED)
                    {
                        throw new IllegalStateException("connection closed");
                    }
                    if (invoker)
                    {
                        node.invoke();
                    }
                    else if (!waitsForRoom)
                    {
                        awaitRoom();
                    }
                    if ((++spins & 0xFFFF) == 0 || waitsForRoom)
                    {
                        Waits.check(deadlineNs, "room in the outbound ring");
                    }
                }
                progress.update(i + 1);
            }
            return;
        }
        if ("requestChannel".equals(api))
        {
            sendOnChannel(count, progress);
            return;
        }
        // fireAndForget(Message) completes at once even when the ring is full (the frame is parked in
        // memory), so bound what is outstanding by asking the receiver every FLUX_WINDOW messages. Past
        // rivulet.maxParkedBytes it fails at once with LimitExceededException: back off and send it again.
        final long base = sync();
        for (long i = 0; i < count; i++)
        {
            while (true)
            {
                connection.fireAndForget(data).subscribe(null, onSendError);
                final Throwable refused = sendError;
                if (refused == null)
                {
                    break;
                }
                sendError = null;
                if (!(refused instanceof io.rivulet.LimitExceededException))
                {
                    throw new IllegalStateException("fireAndForget failed", refused);
                }
                if (invoker)
                {
                    node.invoke();
                }
                else
                {
                    awaitRoom(); // as offer: a spinning sender is a third spinning thread on 2 cores
                }
            }
            if (invoker && (i & 63) == 63)
            {
                node.invoke();
            }
            if ((i + 1) % FLUX_WINDOW == 0)
            {
                while (i + 1 - (sync() - base) > 2L * FLUX_WINDOW)
                {
                    if (invoker)
                    {
                        node.invoke();
                    }
                    else
                    {
                        awaitRoom();
                    }
                }
            }
            progress.update(i + 1);
        }
    }

    /**
     * The outbound ring is full: wait as the row's {@code --wait} says, so that a back-pressured sender is not a
     * third spinning thread beside two busy-spinning engines on 2 cores. A spinning (or yielding: a busy-spinning
     * engine keeps the core it is given for a whole scheduler slice) sender lets through about one ring of frames
     * per time slice; parked, it frees its core and the ring drains while it sleeps. Nothing signals room in the
     * ring, so a parked sender wakes by time.
     */
    private void awaitRoom()
    {
        if (wait.parks())
        {
            LockSupport.parkNanos(PARK_NS);
        }
        else
        {
            wait.pause();
        }
    }

    /**
     * The Flux API path: {@code count} messages as the inbound stream of one request-channel, generated as
     * the server's credits request them; done when the server, having counted them all, completes.
     */
    private void sendOnChannel(final long count, final Progress progress) throws Exception
    {
        // Written on the engine thread, which requests the items; read by this one to see progress.
        final AtomicLong generated = new AtomicLong();
        final ReplySlot<Void> done = new ReplySlot<>(wait);
        connection.requestChannel(Flux.range(0, Math.toIntExact(count)).map(i ->
            {
                progress.update(generated.incrementAndGet());
                return data;
            }))
            .then()
            .subscribe(done);
        awaitMakingProgress(done, generated::get);
        done.await();
    }

    /** Waits for a long exchange: fails only when it makes no progress for the harness's timeout. */
    private void awaitMakingProgress(final ReplySlot<?> slot, final LongSupplier progress) throws Exception
    {
        long deadlineNs = Waits.deadline();
        long last = -1;
        while (!slot.isDone())
        {
            if (wait.parks())
            {
                LockSupport.parkNanos(PARK_NS);
            }
            else
            {
                wait.pause();
            }
            final long now = progress.getAsLong();
            if (now != last)
            {
                last = now;
                deadlineNs = Waits.deadline();
            }
            else
            {
                Waits.check(deadlineNs, "progress on the request-channel");
            }
        }
    }

    @Override
    public String fanOutApi()
    {
        return FAN_OUT_FLUX;
    }

    /** Both ways users subscribe: the flux of messages, and the handler that takes them in place (as Aeron's). */
    @Override
    public List<String> fanOutApis()
    {
        return List.of(FAN_OUT_FLUX, FAN_OUT_HANDLER);
    }

    @Override
    public String fanOutSettings(final String api)
    {
        return "publisher thread beside the server node (" + (inProcess ? "this process" : "the server process") +
            "): Publication.offer, BLOCK policy, default 256 KiB log, " + publisherWaits() + " when back-pressured; " +
            "subscribers: " + fanOutConnections.size() + " connections of this process's node, each with " +
            (FAN_OUT_HANDLER.equals(api) ? "Connection.subscribe(topic, TopicHandler) (items in place, no copy)" :
                "Connection.subscribe(topic) (a Flux of TopicMessage)") + ", " +
            "signals on that node's engine " + (invoker ? "duty cycle, which the measuring thread runs (client node " +
                "INVOKER; server node " + Nodes.describeServer(options) + ")" : "thread; " + Nodes.describe(options));
    }

    private String publisherWaits()
    {
        final String way = inProcess ? options.waitName : options.publisherWait;
        if (way == null)
        {
            return "waits as the server's --wait says";
        }
        return "park".equals(way) ? "parks (" + FanOutPublisher.PARK_NS / 1000 + " µs)" :
            "yield".equals(way) ? "yields" : "spins";
    }

    @Override
    public void fanOut(
        final int subscribers, final long count, final long ratePerSecond, final Histogram latencyNs,
        final Progress progress) throws Exception
    {
        fanOut(FAN_OUT_FLUX, subscribers, count, ratePerSecond, latencyNs, progress);
    }

    @Override
    public void fanOut(
        final String api, final int subscribers, final long count, final long ratePerSecond,
        final Histogram latencyNs, final Progress progress) throws Exception
    {
        if (!api.equals(fanOutSubscribedWith))
        {
            // The other API's subscribers leave first: every subscriber of the topic takes every message.
            endFanOut();
            fanOutSubscribedWith = api;
        }
        while (fanOutConnections.size() < subscribers)
        {
            subscribe(api, fanOutConnections.size());
        }
        receivers.forEach(FanOutReceiver::startRun);
        final byte[] request = Payloads.newPayload(size, Payloads.FANOUT);
        Payloads.value(request, count);
        Payloads.seq(request, Math.toIntExact(ratePerSecond));
        await(connection.requestResponse(Message.of(request)));
        fanOutPublished += count;
        FanOutReceiver.await(receivers.subList(0, subscribers), fanOutPublished, count, progress, () ->
        {
            if (invoker)
            {
                node.invoke();
            }
            else
            {
                LockSupport.parkNanos(PARK_NS);
            }
        });
        for (int i = 0; i < subscribers; i++)
        {
            receivers.get(i).recordInto(latencyNs);
        }
    }

    /**
     * Closes the subscriber connections and waits until each has closed, so that the server and this node are back
     * to the one connection the other workloads describe (with one link, an engine that never sleeps reads it
     * directly instead of through the selector: ARCHITECTURE section 8).
     */
    @Override
    public void endFanOut() throws Exception
    {
        fanOutConnections.forEach(Connection::close);
        for (final Connection subscriberConnection : fanOutConnections)
        {
            await(subscriberConnection.onClose().onErrorComplete());
        }
        fanOutConnections.clear();
        receivers.clear();
        fanOutSubscribedWith = null;
    }

    /**
     * Opens one more subscriber connection and waits until its subscription has joined the topic: it receives what
     * is published from now on, so its count starts at what was published so far (the messages' running number).
     */
    private void subscribe(final String api, final int index) throws Exception
    {
        final Connection subscriberConnection = await(node.connect(address));
        fanOutConnections.add(subscriberConnection);
        final FanOutReceiver receiver = new FanOutReceiver("subscriber " + index, fanOutPublished);
        receivers.add(receiver);
        final ReplySlot<Boolean> joined = new ReplySlot<>(wait);
        final Sinks.One<Boolean> joinedSink = Sinks.one();
        joinedSink.asMono().subscribe(joined);
        if (FAN_OUT_HANDLER.equals(api))
        {
            subscriberConnection.subscribe(FanOutPublisher.TOPIC, new TopicHandler()
            {
                @Override
                public void onItem(final TopicItem item)
                {
                    if (item.kind() == TopicMessage.Kind.DATA)
                    {
                        onFanOutMessage(receiver, item.data());
                    }
                    else if (item.kind() == TopicMessage.Kind.JOINED)
                    {
                        joinedSink.tryEmitValue(true);
                    }
                    else
                    {
                        receiver.onError("unexpected " + item);
                    }
                }

                @Override
                public void onError(final Throwable error)
                {
                    receiver.onError(String.valueOf(error));
                    joinedSink.tryEmitError(error);
                }
            });
            joined.await();
            return;
        }
        subscriberConnection.subscribe(FanOutPublisher.TOPIC).subscribe(
            item ->
            {
                switch (item.kind())
                {
                    case JOINED:
                        joinedSink.tryEmitValue(true);
                        break;
                    case DATA:
                        onFanOutMessage(receiver, item.data());
                        break;
                    default:
                        receiver.onError("unexpected " + item);
                }
            },
            error ->
            {
                receiver.onError(String.valueOf(error));
                joinedSink.tryEmitError(error);
            });
        joined.await();
    }

    /** A FANOUT message's running number and publication time to its subscriber's tally. */
    private static void onFanOutMessage(final FanOutReceiver receiver, final DirectBuffer message)
    {
        receiver.onMessage(message.getInt(Payloads.SEQ_OFFSET, ByteOrder.LITTLE_ENDIAN),
            message.getLong(Payloads.VALUE_OFFSET, ByteOrder.LITTLE_ENDIAN), System.nanoTime());
    }

    @Override
    public long sync() throws Exception
    {
        final Message reply = await(connection.requestResponse(sync));
        return reply.data().getLong(Payloads.VALUE_OFFSET, ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Four ways users write request-response: a {@code flatMap} chain with {@code window} requests in flight, the
     * zero-copy {@code offerRequest} with as many in flight (an Aeron-style caller: a loop that offers, and one
     * {@code ReplyHandler} on the engine thread), a {@code concatMap} chain (the next request sent from the reply's
     * signal, one in flight), and a blocking caller ({@code Mono.block()} per request; on an INVOKER node its wait
     * runs the engine's duty cycle).
     */
    @Override
    public List<String> pipelinedApis()
    {
        return List.of(FLAT_MAP, OFFER_REQUEST, CONCAT_MAP, BLOCK);
    }

    @Override
    public int inFlight(final String api, final int window)
    {
        return FLAT_MAP.equals(api) || OFFER_REQUEST.equals(api) ? window : 1;
    }

    @Override
    public void pipelined(
        final String api, final long count, final int window, final Histogram latencyNs, final Progress progress)
        throws Exception
    {
        if (BLOCK.equals(api))
        {
            for (long i = 0; i < count; i++)
            {
                final long sentNs = System.nanoTime();
                final Message reply = connection.requestResponse(echo).block(BLOCK_TIMEOUT);
                Histograms.record(latencyNs, System.nanoTime() - sentNs);
                if (reply == null || reply.dataLength() != size)
                {
                    throw new IllegalStateException("expected a " + size + "-byte echo, got " + reply);
                }
                progress.update(i + 1);
            }
            return;
        }
        if (OFFER_REQUEST.equals(api))
        {
            offerRequests(count, window, latencyNs, progress);
            return;
        }
        final long[] received = new long[1];
        final Flux<Integer> requests = Flux.range(0, Math.toIntExact(count));
        final Function<Integer, Mono<Message>> exchange = i -> Mono.defer(() ->
        {
            final long sentNs = System.nanoTime();
            return connection.requestResponse(echo).doOnNext(reply ->
            {
                Histograms.record(latencyNs, System.nanoTime() - sentNs);
                progress.update(++received[0]);
            });
        });
        await((FLAT_MAP.equals(api) ? requests.flatMap(exchange, window, 1) : requests.concatMap(exchange)).then());
    }

    /**
     * The zero-copy request path as an Aeron user pipelines it: the measuring thread offers the first {@code window}
     * ECHO requests, each with its send time in the payload's value, and from then on the {@link RequestWindow} that
     * takes every reply on the engine thread offers the next request from there (as the {@code flatMap} row's next
     * request is subscribed from the reply's signal), so the window stays full without a thread hand-off. The
     * measuring thread parks until the last reply (INVOKER: runs the duty cycle, which calls the handler), and offers
     * itself only what the handler found the ring too full for.
     */
    private void offerRequests(final long count, final int window, final Histogram latencyNs, final Progress progress)
        throws Exception
    {
        final long first = Math.min(window, count);
        final RequestWindow replies = new RequestWindow(count, first, latencyNs, progress, Thread.currentThread());
        final UnsafeBuffer request = new UnsafeBuffer(echo.dataBytes());
        long deadlineNs = Waits.deadline();
        long receivedBefore = 0;
        while (replies.received < count)
        {
            if (replies.owed.get() > 0)
            {
                request.putLong(Payloads.VALUE_OFFSET, System.nanoTime(), ByteOrder.LITTLE_ENDIAN);
                final long id = connection.offerRequest(request, 0, size, replies);
                if (id > 0)
                {
                    replies.owed.decrementAndGet();
                    continue;
                }
                if (id == Connection.CLOSED)
                {
                    throw new IllegalStateException("connection closed");
                }
            }
            if (replies.failure != null)
            {
                throw new IllegalStateException("request failed", replies.failure);
            }
            if (invoker)
            {
                node.invoke();
            }
            else
            {
                replies.await();
            }
            final long received = replies.received;
            if (received != receivedBefore)
            {
                receivedBefore = received;
                deadlineNs = Waits.deadline();
            }
            Waits.check(deadlineNs, "a reply to offerRequest");
        }
    }

    /**
     * Takes the replies of {@link #offerRequests} on the engine thread and offers the next request for each while
     * requests remain; a request the ring refused is owed to the offering thread, which it wakes.
     */
    private final class RequestWindow implements ReplyHandler
    {
        private final long count;
        private final Histogram latencyNs;
        private final Progress progress;
        private final Thread caller;
        private final UnsafeBuffer request = new UnsafeBuffer(echo.dataBytes());
        /** Requests no one has taken on yet; the handler takes one per reply while any remain. */
        private final AtomicLong untaken;
        /** Requests taken on but not offered yet, for the offering thread: the window's first ones, and those the
         *  ring refused the handler. */
        final AtomicLong owed;
        /** Written by the engine thread only. */
        volatile long received;
        volatile Throwable failure;
        private volatile boolean parked;

        RequestWindow(
            final long count, final long first, final Histogram latencyNs, final Progress progress, final Thread caller)
        {
            this.count = count;
            this.untaken = new AtomicLong(count - first);
            this.owed = new AtomicLong(first);
            this.latencyNs = latencyNs;
            this.progress = progress;
            this.caller = caller;
        }

        @Override
        public void onReply(final long requestId, final MessageView reply)
        {
            if (reply.dataLength() != size ||
                reply.data().getInt(Payloads.KIND_OFFSET, ByteOrder.LITTLE_ENDIAN) != Payloads.ECHO)
            {
                onError(requestId, new IllegalStateException("not an echo: " + reply.dataLength() + " bytes"));
                return;
            }
            Histograms.record(latencyNs,
                System.nanoTime() - reply.data().getLong(Payloads.VALUE_OFFSET, ByteOrder.LITTLE_ENDIAN));
            received(received + 1);
            if (untaken.getAndDecrement() > 0)
            {
                offerNext();
            }
        }

        @Override
        public void onError(final long requestId, final Throwable error)
        {
            failure = error;
            received(received + 1);
            LockSupport.unpark(caller);
        }

        /** The engine thread: the next request, or one owed to the offering thread when the ring is full. */
        private void offerNext()
        {
            request.putLong(Payloads.VALUE_OFFSET, System.nanoTime(), ByteOrder.LITTLE_ENDIAN);
            if (connection.offerRequest(request, 0, size, this) > 0)
            {
                return;
            }
            owed.incrementAndGet();
            LockSupport.unpark(caller);
        }

        private void received(final long received)
        {
            this.received = received;
            progress.update(received);
            if (received == count && parked)
            {
                LockSupport.unpark(caller);
            }
        }

        /** The offering thread: parks until the last reply, a failure or an owed request (bounded, in case). */
        void await()
        {
            parked = true;
            if (received < count && failure == null && owed.get() == 0)
            {
                LockSupport.parkNanos(1_000_000);
            }
            parked = false;
        }
    }

    @Override
    public void close()
    {
        fanOutConnections.forEach(Connection::close);
        idleConnections.forEach(Connection::close);
        if (connection != null)
        {
            connection.close();
        }
        if (node != null)
        {
            node.close();
        }
        if (localServer != null)
        {
            localServer.close();
        }
    }
}
