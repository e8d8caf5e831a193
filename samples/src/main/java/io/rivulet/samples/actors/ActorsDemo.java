package io.rivulet.samples.actors;

import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.Transports;
import io.rivulet.actors.ActorCounters;
import io.rivulet.actors.ActorFailedException;
import io.rivulet.actors.ActorRef;
import io.rivulet.actors.ActorSystem;
import io.rivulet.actors.Terminated;
import io.rivulet.actors.sample.wire.OrderStatus;
import io.rivulet.actors.sample.wire.Side;
import io.rivulet.samples.DemoSteps;
import io.rivulet.samples.actors.PricingMessages.Order;
import io.rivulet.samples.actors.PricingMessages.OrderAck;
import io.rivulet.samples.actors.PricingMessages.OrderCommand;
import io.rivulet.samples.actors.PricingMessages.PricingRequest;
import io.rivulet.samples.actors.PricingMessages.Quote;
import io.rivulet.samples.actors.PricingMessages.QuoteRequest;
import io.rivulet.samples.actors.PricingMessages.QuoteSubscription;
import io.rivulet.samples.SampleCli;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import reactor.core.publisher.Mono;

import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The actor sample: a pricing service and an order service, each an actor on its own node, talking typed SBE
 * messages over TCP (or any transport) by path. By default both nodes run in this JVM and the demo walks
 * through tell, ask, a stream reply with back-pressure, supervision and death watch, then exits 0 (1 naming
 * the failed step). {@code --role pricing} and {@code --role orders} run one service per process instead.
 *
 * <p>Run it with {@code ./rivulet-demo actors} from the repository root.
 */
public final class ActorsDemo
{
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(10);
    private static final long WATCHDOG_MS = TimeUnit.SECONDS.toMillis(50);
    private static final Map<String, Long> OPENING = new LinkedHashMap<>();

    static
    {
        OPENING.put("EURUSD", 1_0851L);
        OPENING.put("GBPUSD", 1_2705L);
        OPENING.put("USDJPY", 151_2500L);
    }

    private final PrintStream out = System.out;
    private final Options options;
    private final List<String> actorErrors = new CopyOnWriteArrayList<>();
    private final AtomicLong outOfOrder = new AtomicLong();
    private final List<Long> streamAsked = new CopyOnWriteArrayList<>();
    private final DemoSteps steps = new DemoSteps("ACTORS DEMO", out, actorErrors, "the actor systems");

    private Rivulet pricingNode;
    private Rivulet ordersNode;
    private Rivulet clientNode;
    private ActorSystem pricingSystem;
    private ActorSystem ordersSystem;
    private ActorSystem clientSystem;
    private ActorRef<PricingRequest> pricing;
    private ActorRef<PricingRequest> pricingFromClient;
    private ActorRef<Order> orders;
    private final CompletableFuture<Terminated> pricingTerminated = new CompletableFuture<>();

    private ActorsDemo(final Options options)
    {
        this.options = options;
    }

    /** Runs the sample with the command line's options and exits with its code. */
    public static void main(final String[] argv)
    {
        System.exit(SampleCli.execute(new Options(), argv));
    }

    private void run()
    {
        steps.startWatchdog(WATCHDOG_MS);
        final long startNs = System.nanoTime();
        out.println("Rivulet actors demo: a pricing service and an order service as actors on two nodes");

        step("Starting the pricing node, the orders node and a client", this::start);
        step("1. Tell: a price feed publishes quotes to the remote pricing actor", this::tell);
        step("2. Ask: orders travel client -> orders -> pricing -> orders -> client", this::ask);
        step("3. Many tells, in order, none lost", this::manyTells);
        step("4. A stream reply with back-pressure across the wire", this::streamReply);
        step("5. Supervision: a failing message restarts the pricing actor with its initial state", this::supervision);
        step("6. Death watch: the pricing actor stops, the order service hears of it", this::deathWatch);
        step("Counters", this::counters);
        step("Closing", this::close);

        if (!actorErrors.isEmpty())
        {
            fail("actor error handler", new IllegalStateException("unexpected errors: " + actorErrors));
        }
        out.printf(Locale.ROOT, "%nActors demo passed: %d steps in %.1f s.%n", steps.passed(),
            (System.nanoTime() - startNs) / 1e9);
        System.exit(0);
    }

    // ------------------------------------------------------------------------------------------ steps

    private void start()
    {
        pricingNode = launchNode(options);
        ordersNode = launchNode(options);
        clientNode = launchNode(options);
        pricingSystem = ActorSystem.launch(pricingNode, context("127.0.0.1:0"));
        ordersSystem = ActorSystem.launch(ordersNode, context("127.0.0.1:0"));
        clientSystem = ActorSystem.launch(clientNode, context(null)); // calls services, hosts none

        pricing = pricingSystem.spawn("pricing", PricingService.behavior(OPENING, outOfOrder, streamAsked));
        // The order service knows the pricing service by its path only: it is on the other node.
        final ActorRef<PricingRequest> remotePricing = ordersSystem.lookup(pricing.path(), PricingRequest.class);
        final ActorRef<OrderCommand> orderService = ordersSystem.spawn("orders",
            OrderService.behavior(remotePricing, STEP_TIMEOUT));
        // The client reaches both services by path, over the network.
        orders = clientSystem.lookup(orderService.path(), Order.class);
        pricingFromClient = clientSystem.lookup(pricing.path(), PricingRequest.class);
        ordersSystem.watch(remotePricing).subscribe(pricingTerminated::complete);

        out.printf("   transport %s; each node runs its own engine and actor system%n",
            pricingNode.context().transport().name());
        out.printf("   pricing service  %s%n", pricing.path());
        out.printf("   order service    %s  (asks %s, and watches it)%n", orderService.path(), remotePricing.path());
        out.printf("   client           an actor system on a third node that only calls the two services%n");
        out.printf("   messages are SBE-encoded records: QuoteRequest, Quote, QuoteSubscription, Order, OrderAck%n");
    }

    private void tell()
    {
        final ActorRef<PricingRequest> feed = pricingFromClient;
        final List<Quote> published = List.of(
            new Quote("EURUSD", 1, 1_0850, 1_0852),
            new Quote("GBPUSD", 1, 1_2704, 1_2706),
            new Quote("USDJPY", 1, 151_2499, 151_2501));
        for (final Quote quote : published)
        {
            feed.tell(quote);
        }
        out.printf("   told %s%n", published);
        final Quote eurusd = ask(pricingFromClient.ask(new QuoteRequest("EURUSD"), Quote.class, STEP_TIMEOUT));
        out.printf("   asked back: %s%n", eurusd);
        check(eurusd.equals(published.get(0)), "the pricing actor did not keep the told quote");
    }

    private void ask()
    {
        final List<Order> book = List.of(
            new Order(1, "EURUSD", Side.BUY, 1_000_000, 1_0860),
            new Order(2, "EURUSD", Side.BUY, 2_000_000, 1_0840),
            new Order(3, "GBPUSD", Side.SELL, 500_000, 1_2700),
            new Order(4, "USDJPY", Side.SELL, 750_000, 151_3000));
        int filled = 0;
        for (final Order order : book)
        {
            final OrderAck ack = ask(orders.ask(order, OrderAck.class, STEP_TIMEOUT));
            out.printf("   %-44s -> %s%n", order, ack);
            check(ack.orderId() == order.orderId(), "an ack for the wrong order");
            filled += ack.status() == OrderStatus.FILLED ? 1 : 0;
        }
        check(filled == 2, "expected orders 1 and 3 filled, 2 and 4 rejected; got " + filled + " filled");
    }

    private void manyTells()
    {
        final int count = options.quotes;
        final Quote before = ask(pricingFromClient.ask(new QuoteRequest("EURUSD"), Quote.class, STEP_TIMEOUT));
        final long startNs = System.nanoTime();
        for (int i = 1; i <= count; i++)
        {
            final long mid = 1_0851 + (i % 7) - 3;
            pricingFromClient.tell(new Quote("EURUSD", before.sequence() + i, mid - 1, mid + 1));
        }
        final Quote after = ask(pricingFromClient.ask(new QuoteRequest("EURUSD"), Quote.class, STEP_TIMEOUT));
        final double seconds = (System.nanoTime() - startNs) / 1e9;
        out.printf(Locale.ROOT, "   the feed told %,d quotes to the remote pricing actor in %.2f s (%,.0f tells/s)%n",
            count, seconds, count / seconds);
        out.printf("   then asked: %s (the ask travels behind the tells, so it sees the last one)%n", after);
        out.printf("   quotes out of order: %d; dead letters: %d%n", outOfOrder.get(),
            pricingSystem.counters().deadLetters.get());
        check(after.sequence() == before.sequence() + count, "the ask did not see the last tell");
        check(outOfOrder.get() == 0, "quotes arrived out of order");
    }

    private void streamReply()
    {
        final int count = 12;
        final int batch = 4;
        final List<Quote> received = pricingFromClient
            .askStream(new QuoteSubscription("EURUSD", count), Quote.class)
            .limitRate(batch)
            .collectList()
            .block(STEP_TIMEOUT);
        check(received != null && received.size() == count, "expected " + count + " quotes");
        out.printf("   subscribed to %d EURUSD quotes, %d at a time: %s ... %s%n", count, batch, received.get(0),
            received.get(count - 1));
        out.printf("   the pricing actor's stream was asked for %s  <- the subscriber's demand, as credits%n",
            streamAsked);
        for (final long asked : streamAsked)
        {
            check(asked <= batch, "the stream was asked for " + asked + " at once, more than the subscriber's " + batch);
        }
    }

    private void supervision()
    {
        try
        {
            ask(pricingFromClient.ask(new QuoteRequest("XAUUSD"), Quote.class, STEP_TIMEOUT));
            check(false, "an unknown symbol was priced");
        }
        catch (final ActorFailedException ex)
        {
            out.printf("   asked for XAUUSD: %s%n", ex.getMessage());
        }
        final Quote reset = ask(pricingFromClient.ask(new QuoteRequest("EURUSD"), Quote.class, STEP_TIMEOUT));
        final long restarts = pricingSystem.stats(pricing).restarts();
        out.printf("   the pricing actor was restarted (%d restart); EURUSD is back to its opening %s%n", restarts,
            reset);
        out.printf("   the failure was reported: %s%n", actorErrors.isEmpty() ? "no" : "yes, and counted");
        check(restarts == 1, "expected one restart");
        check(reset.sequence() == 0, "the restarted actor kept its state");
        check(actorErrors.size() == 1 && actorErrors.get(0).contains("restarting"), "expected one reported failure");
        actorErrors.clear();
    }

    private void deathWatch() throws Exception
    {
        pricingSystem.stop(pricing);
        final Terminated terminated = pricingTerminated.get(STEP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        // Two watches of the pricing actor on the orders node: this demo's, and the order actor's own.
        final long deadlineNs = System.nanoTime() + STEP_TIMEOUT.toNanos();
        while (ordersSystem.counters().watchNotifications.get() < 2 && System.nanoTime() - deadlineNs < 0)
        {
            Thread.onSpinWait();
        }
        out.printf("   stopped the pricing actor; its watcher on the orders node got Terminated(%s)%n",
            terminated.reason());
        final OrderAck ack = ask(orders.ask(new Order(5, "EURUSD", Side.BUY, 1_000, 1_0900), OrderAck.class,
            STEP_TIMEOUT));
        out.printf("   order #5 -> %s%n", ack);
        check(terminated.reason() == Terminated.Reason.STOPPED, "unexpected termination " + terminated);
        check(ack.status() == OrderStatus.REJECTED && ack.reason().startsWith("pricing unavailable"),
            "the order service did not notice");
    }

    private void counters()
    {
        row("", "pricing node", "orders node", "client");
        final ActorCounters p = pricingSystem.counters();
        final ActorCounters o = ordersSystem.counters();
        final ActorCounters c = clientSystem.counters();
        row("remote envelopes sent", p.remoteSent.get(), o.remoteSent.get(), c.remoteSent.get());
        row("remote envelopes received", p.remoteReceived.get(), o.remoteReceived.get(), c.remoteReceived.get());
        row("asks", p.asks.get(), o.asks.get(), c.asks.get());
        row("actor failures", p.failures.get(), o.failures.get(), c.failures.get());
        row("actor restarts", p.restarts.get(), o.restarts.get(), c.restarts.get());
        row("watch notifications", p.watchNotifications.get(), o.watchNotifications.get(),
            c.watchNotifications.get());
        row("dead letters", p.deadLetters.get(), o.deadLetters.get(), c.deadLetters.get());
    }

    private void close()
    {
        clientSystem.close();
        ordersSystem.close();
        pricingSystem.close();
        clientNode.close();
        ordersNode.close();
        pricingNode.close();
        out.println("   closed the three actor systems and nodes");
    }

    // ------------------------------------------------------------------------- one service per process

    private static void runPricing(final Options options) throws InterruptedException
    {
        final String bind = options.bind("127.0.0.1:7071");
        try (Rivulet node = launchNode(options);
             ActorSystem actors = ActorSystem.launch(node, PricingMessages.register(new ActorSystem.Context())
                 .bindAddress(bind)))
        {
            final ActorRef<PricingRequest> pricing = actors.spawn("pricing",
                PricingService.behavior(OPENING, new AtomicLong(), new CopyOnWriteArrayList<>()));
            System.out.println("pricing service at " + pricing.path() + " (Ctrl-C to stop)");
            System.out.println("place orders from another terminal:  ./rivulet-demo actors --role orders --pricing " +
                pricing.path());
            new CountDownLatch(1).await();
        }
    }

    private static void runOrders(final Options options)
    {
        final String pricingPath = options.pricing;
        final int count = options.orders;
        try (Rivulet node = launchNode(options);
             ActorSystem actors = ActorSystem.launch(node, PricingMessages.register(new ActorSystem.Context())
                 .bindAddress(options.bind("127.0.0.1:0"))))
        {
            final ActorRef<PricingRequest> pricing = actors.lookup(pricingPath, PricingRequest.class);
            final ActorRef<OrderCommand> orders = actors.spawn("orders", OrderService.behavior(pricing, STEP_TIMEOUT));
            System.out.println("order service at " + orders.path() + ", pricing by " + pricing.path());
            for (int i = 1; i <= count; i++)
            {
                final Order order = new Order(i, "EURUSD", i % 2 == 0 ? Side.SELL : Side.BUY, 100_000L * i,
                    i % 2 == 0 ? 1_0849 : 1_0853);
                final OrderAck ack = orders.ask(order, OrderAck.class, STEP_TIMEOUT).block();
                System.out.printf("%-44s -> %s%n", order, ack);
            }
        }
    }

    // ------------------------------------------------------------------------------------- plumbing

    private ActorSystem.Context context(final String bind)
    {
        return PricingMessages.register(new ActorSystem.Context())
            .bindAddress(bind)
            .errorHandler(error -> actorErrors.add(String.valueOf(error.getMessage())));
    }

    private static Rivulet launchNode(final Options options)
    {
        final Rivulet.Context context = new Rivulet.Context().threadingMode(ThreadingMode.SHARED);
        if (options.transport != null)
        {
            context.transport(Transports.byName(options.transport));
        }
        return Rivulet.launch(context);
    }

    private static <T> T ask(final Mono<T> reply)
    {
        final T value = reply.block(STEP_TIMEOUT);
        check(value != null, "no reply");
        return value;
    }

    private void row(final String label, final Object pricingValue, final Object ordersValue, final Object clientValue)
    {
        out.printf(Locale.ROOT, pricingValue instanceof Long ? "   %-26s %,12d %,12d %,12d%n" :
            "   %-26s %12s %12s %12s%n", label, pricingValue, ordersValue, clientValue);
    }

    private void step(final String title, final DemoSteps.Step body)
    {
        steps.step(title, body);
    }

    private static void check(final boolean condition, final String failure)
    {
        DemoSteps.check(condition, failure);
    }

    private void fail(final String step, final Throwable cause)
    {
        steps.fail(step, cause);
    }

    /** The sample's command line; running it runs the sample. */
    @Command(name = "rivulet-demo actors", mixinStandardHelpOptions = true, versionProvider = SampleCli.Version.class,
        customSynopsis = {
            "rivulet-demo actors [--transport=NAME] [--quotes=N]",
            "       rivulet-demo actors --role=pricing [--bind=HOST:PORT] [--transport=NAME]",
            "       rivulet-demo actors --role=orders --pricing=rivulet://HOST:PORT/pricing",
            "                           [--orders=N] [--transport=NAME]"},
        description = "A pricing service and an order service as actors on two nodes. Without --role both nodes " +
            "run in this JVM, over the network stack on 127.0.0.1, and the demo shows tells, asks, a stream reply " +
            "with back-pressure, a supervised restart and death watch. With --role each service runs in its own " +
            "process: start the pricing node, then an orders node pointing at the path it prints.")
    static final class Options implements Callable<Integer>
    {
        @Spec
        CommandSpec spec;

        @Option(names = "--transport", paramLabel = "NAME",
            description = "transport to use (default: rivulet.transport, else tcp)")
        String transport;

        @Option(names = "--quotes", paramLabel = "N", defaultValue = "100000",
            description = "quotes the feed tells the pricing actor in step 3 (default ${DEFAULT-VALUE})")
        int quotes;

        @Option(names = "--role", paramLabel = "ROLE",
            description = "pricing or orders: one service in this process (default: both, in this JVM)")
        String role;

        @Option(names = "--bind", paramLabel = "HOST:PORT",
            description = "address of this node's actor system (default: for pricing 127.0.0.1:7071, " +
                "else 127.0.0.1:0)")
        String bind;

        @Option(names = "--pricing", paramLabel = "PATH", description = "path of the pricing actor, for --role orders")
        String pricing;

        @Option(names = "--orders", paramLabel = "N", defaultValue = "5",
            description = "orders to place, for --role orders (default ${DEFAULT-VALUE})")
        int orders;

        /** @return 0 when the demo passed or a service stopped; a failed step exits 1 itself. */
        @Override
        public Integer call() throws Exception
        {
            SampleCli.checkRange(spec, "--quotes", quotes, 1, Integer.MAX_VALUE);
            SampleCli.checkRange(spec, "--orders", orders, 1, Integer.MAX_VALUE);
            if (transport != null)
            {
                try
                {
                    Transports.byName(transport);
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new ParameterException(spec.commandLine(), "--transport: " + ex.getMessage());
                }
            }
            final String mode = role == null ? "both" : role;
            switch (mode)
            {
                case "both":
                    new ActorsDemo(this).run();
                    return 0;
                case "pricing":
                    runPricing(this);
                    return 0;
                case "orders":
                    if (pricing == null)
                    {
                        throw new ParameterException(spec.commandLine(),
                            "--role orders needs --pricing rivulet://HOST:PORT/pricing");
                    }
                    runOrders(this);
                    return 0;
                default:
                    throw new ParameterException(spec.commandLine(),
                        "--role must be pricing or orders, got '" + role + "'");
            }
        }

        String bind(final String defaultAddress)
        {
            return bind == null ? defaultAddress : bind;
        }
    }
}
