package io.rivulet.samples.marketdata;

import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.samples.EngineOptions;
import io.rivulet.samples.SampleCli;
import io.rivulet.topic.Publication;
import io.rivulet.topic.SlowConsumerPolicy;
import io.rivulet.topic.TopicClaim;
import io.rivulet.topic.TopicOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Market-data fan-out: one publisher of SBE Quote and Trade messages on many instruments, several
 * subscribers with wildcard subscriptions, and (by default) one deliberately slow subscriber that shows
 * the quotes topics' slow-consumer policy at work. Prints each subscriber's rate, latency percentiles
 * and gaps, and checks that every fast subscriber received every message of its topics, in order, once.
 *
 * <pre>
 *   topics    md.quotes.fx  md.quotes.eq   keyed by instrument, policy --quotes-policy (CONFLATE)
 *             md.trades.fx  md.trades.eq   keyed by instrument, BLOCK (every trade matters)
 *   patterns  md.>  md.quotes.*  md.trades.*  md.*.fx  (then again), and the slow one on md.quotes.*
 * </pre>
 *
 * <p>Runs in one JVM by default ({@code ./rivulet-demo marketdata}); {@code --mode publisher} and
 * {@code --mode subscriber} run the two sides as separate processes. Exits 0 when every check passed.
 */
public final class MarketData
{
    static final String[] FAST_PATTERNS = { "md.>", "md.quotes.*", "md.trades.*", "md.*.fx" };
    private static final String[] FX = { "EURUSD", "GBPUSD", "USDJPY", "USDCHF", "AUDUSD", "USDCAD", "NZDUSD",
        "EURGBP", "EURJPY", "GBPJPY" };
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(60);
    /** Each topic's log: room for about half a second of quotes at the default rate. */
    static final int LOG_CAPACITY = 1024 * 1024;

    private final PrintStream out = System.out;
    private final Options options;

    private MarketData(final Options options)
    {
        this.options = options;
    }

    /** Runs the sample with the command line's options and exits with its code. */
    public static void main(final String[] argv)
    {
        System.exit(SampleCli.execute(new Options(), argv));
    }

    private boolean run()
    {
        switch (options.mode)
        {
            case "publisher":
                return runPublisher();
            case "subscriber":
                return runSubscriber();
            default:
                return runAll();
        }
    }

    // ------------------------------------------------------------------------------------------ modes

    private boolean runAll()
    {
        final long startNs = System.nanoTime();
        final List<String> errors = new ArrayList<>();
        try (Rivulet publisherNode = Rivulet.launch(options.context(errors));
             Rivulet subscriberNode = Rivulet.launch(options.context(errors)))
        {
            final Server server = publisherNode.bind(options.host + ":" + options.port(0), Responder.none())
                .block(java.time.Duration.ofSeconds(10));
            final Feed feed = new Feed(publisherNode, options);
            printHeader(feed, server.localAddress());

            final List<SubscriberStats> subscribers = new ArrayList<>();
            final Scheduler slowScheduler = Schedulers.newSingle("slow-subscriber", true);
            for (int i = 0; i < options.subscribers + options.slow; i++)
            {
                final boolean slow = i >= options.subscribers;
                final String pattern = slow ? "md.quotes.*" : FAST_PATTERNS[i % FAST_PATTERNS.length];
                final String name = (slow ? "slow-" + (i - options.subscribers) : "sub-" + i);
                final Connection connection = subscriberNode.connect(server.localAddress())
                    .block(java.time.Duration.ofSeconds(10));
                subscribers.add(subscribe(connection, name, pattern, slow, slowScheduler, feed.instrumentCount()));
            }
            final int expectedTopics = subscribers.stream().mapToInt(s -> expectedTopics(s.pattern)).sum();
            awaitCondition("every subscriber attached", () ->
                subscribers.stream().mapToInt(SubscriberStats::joinedTopics).sum() == expectedTopics);

            feed.publish(out);
            feed.close(); // END for every topic: the subscribers know they have it all
            awaitCondition("every subscriber finished", () -> subscribers.stream().allMatch(SubscriberStats::isDone));
            slowScheduler.dispose();

            out.println();
            SubscriberStats.printHeader(out);
            boolean passed = true;
            for (final SubscriberStats subscriber : subscribers)
            {
                passed &= subscriber.report(out, feed);
            }
            if (!errors.isEmpty())
            {
                out.println("engine errors: " + errors);
                passed = false;
            }
            final long complete = subscribers.stream().filter(s -> !s.slow() && s.isComplete()).count();
            out.println();
            out.printf(Locale.ROOT, "Market data %s in %.1f s: %d of %d fast subscribers got every message of their " +
                "topics in order, once; every gap was signalled%s.%n", passed ? "passed" : "FAILED",
                (System.nanoTime() - startNs) / 1e9, complete, options.subscribers, passed ? "" : " (see FAILED above)");
            return passed;
        }
    }

    private boolean runPublisher()
    {
        final List<String> errors = new ArrayList<>();
        try (Rivulet node = Rivulet.launch(options.context(errors)))
        {
            final Server server = node.bind(options.host + ":" + options.port(7071), Responder.none())
                .block(java.time.Duration.ofSeconds(10));
            final Feed feed = new Feed(node, options);
            printHeader(feed, server.localAddress());
            out.println("waiting for " + options.waitFor + " subscriber connection(s) on " + server.localAddress());
            awaitCondition("subscribers", () -> node.counters().connectionsOpened.get() >= options.waitFor);
            // Give their SUBSCRIBE frames a moment; a subscriber that attaches later still gets a snapshot.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            feed.publish(out);
            feed.close();
            // Let the subscribers take the rest and the END of every topic before the node closes: each topic
            // detaches a subscriber once it has everything (or took nothing for a heartbeat timeout).
            awaitCondition("subscribers drained", () -> feed.subscriberCount() == 0);
            return errors.isEmpty();
        }
    }

    private boolean runSubscriber()
    {
        final List<String> errors = new ArrayList<>();
        try (Rivulet node = Rivulet.launch(options.context(errors)))
        {
            final String address = options.host + ":" + options.port(7071);
            final Connection connection = node.connect(address).block(java.time.Duration.ofSeconds(10));
            final Scheduler slowScheduler = Schedulers.newSingle("slow-subscriber", true);
            final SubscriberStats subscriber = subscribe(connection, options.slow > 0 ? "slow" : "sub",
                options.pattern, options.slow > 0, slowScheduler, options.instruments);
            out.println("subscribed to " + options.pattern + " at " + address + "; waiting for the feed to end");
            awaitCondition("the feed to end", () -> subscriber.isDone() && subscriber.joinedTopics() > 0 ||
                subscriber.error() != null, TimeUnit.MINUTES.toNanos(10));
            slowScheduler.dispose();
            SubscriberStats.printHeader(out);
            return subscriber.report(out, null) && errors.isEmpty();
        }
    }

    // ------------------------------------------------------------------------------------------ helpers

    private SubscriberStats subscribe(
        final Connection connection,
        final String name,
        final String pattern,
        final boolean slow,
        final Scheduler slowScheduler,
        final int instruments)
    {
        final SubscriberStats stats = new SubscriberStats(name, pattern, slow, instruments);
        if (slow)
        {
            // Works ~100 us per message on its own thread: it cannot keep up, on purpose.
            connection.subscribe(pattern).publishOn(slowScheduler, 32).subscribe(stats);
        }
        else
        {
            connection.subscribe(pattern).subscribe(stats);
        }
        return stats;
    }

    private int expectedTopics(final String pattern)
    {
        switch (pattern)
        {
            case "md.>":
                return 4;
            default:
                return 2;
        }
    }

    private void printHeader(final Feed feed, final String address)
    {
        out.printf(Locale.ROOT, "Rivulet market data: %d instruments, %,d messages (%,d quotes, %,d trades) at %s on %s%n",
            feed.instrumentCount(), options.messages, feed.quoteCount(), options.messages - feed.quoteCount(),
            options.rate == 0 ? "full speed" : String.format(Locale.ROOT, "%,d msg/s", options.rate), address);
        out.printf(Locale.ROOT, "topics: md.quotes.fx md.quotes.eq (%s, keyed by instrument), md.trades.fx " +
            "md.trades.eq (BLOCK, keyed); log %d KiB each%n", options.quotesPolicy, LOG_CAPACITY / 1024);
    }

    static void awaitCondition(final String what, final java.util.function.BooleanSupplier condition)
    {
        awaitCondition(what, condition, WAIT_NS);
    }

    static void awaitCondition(final String what, final java.util.function.BooleanSupplier condition, final long timeoutNs)
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /** The publisher: four keyed topics, quotes and trades encoded in place into each topic's log. */
    static final class Feed
    {
        private final Options options;
        private final List<String> symbols = new ArrayList<>();
        private final Publication[] quotes = new Publication[2];
        private final Publication[] trades = new Publication[2];
        private final long[] lastBid;
        private final int quoteCount;

        Feed(final Rivulet node, final Options options)
        {
            this.options = options;
            for (int i = 0; i < options.instruments; i++)
            {
                symbols.add(i % 2 == 0 ? FX[(i / 2) % FX.length] + (i / 2 >= FX.length ? "." + i : "") :
                    String.format(Locale.ROOT, "EQ%04d", i));
            }
            final TopicOptions quoteOptions = switch (options.quotesPolicy)
            {
                case BLOCK -> TopicOptions.block().keyOf(MarketDataCodecs.INSTRUMENT);
                case DROP_SLOW -> TopicOptions.dropSlow().keyOf(MarketDataCodecs.INSTRUMENT);
                default -> TopicOptions.conflate(MarketDataCodecs.INSTRUMENT);
            };
            quoteOptions.logCapacity(LOG_CAPACITY).maxKeys(Math.max(options.instruments, 1));
            final TopicOptions tradeOptions = TopicOptions.block().keyOf(MarketDataCodecs.INSTRUMENT)
                .logCapacity(LOG_CAPACITY).maxKeys(Math.max(options.instruments, 1));
            quotes[0] = node.publication("md.quotes.fx", quoteOptions);
            quotes[1] = node.publication("md.quotes.eq", quoteOptions);
            trades[0] = node.publication("md.trades.fx", tradeOptions);
            trades[1] = node.publication("md.trades.eq", tradeOptions);
            lastBid = new long[options.instruments + 1];
            int count = 0;
            for (int i = 0; i < options.messages; i++)
            {
                count += isTrade(i) ? 0 : 1;
            }
            quoteCount = count;
        }

        static boolean isTrade(final int index)
        {
            return index % 5 == 4;
        }

        int instrumentCount()
        {
            return symbols.size();
        }

        int quoteCount()
        {
            return quoteCount;
        }

        /** @return the bid of the last quote published for an instrument (1-based id). */
        long lastBid(final long instrumentId)
        {
            return lastBid[(int)instrumentId];
        }

        int subscriberCount()
        {
            int count = 0;
            for (final Publication publication : List.of(quotes[0], quotes[1], trades[0], trades[1]))
            {
                count += publication.subscriberCount();
            }
            return count;
        }

        void publish(final PrintStream out)
        {
            final TopicClaim claim = new TopicClaim();
            final MarketDataCodecs.Encoders encoders = new MarketDataCodecs.Encoders();
            final int instruments = symbols.size();
            final long intervalNs = options.rate == 0 ? 0 : TimeUnit.SECONDS.toNanos(1) / options.rate;
            long backPressured = 0;
            final long startNs = System.nanoTime();
            for (int i = 0; i < options.messages; i++)
            {
                if (intervalNs > 0)
                {
                    // Park rather than spin while ahead of the schedule: the engines need the cores more. A late
                    // wake-up sends a small burst to catch up, so the average rate holds.
                    final long aheadNs = startNs + i * intervalNs - System.nanoTime();
                    if (aheadNs > 0)
                    {
                        LockSupport.parkNanos(aheadNs);
                    }
                }
                final long instrumentId = 1 + (i * 7L) % instruments; // spread over every instrument
                final int assetClass = (int)((instrumentId - 1) % 2); // 0 fx, 1 equities
                final boolean isTrade = isTrade(i);
                final Publication publication = isTrade ? trades[assetClass] : quotes[assetClass];
                final int length = isTrade ? MarketDataCodecs.TRADE_LENGTH : MarketDataCodecs.QUOTE_LENGTH;
                int idle = 0;
                while (publication.tryClaim(length, claim) <= 0)
                {
                    backPressured++;
                    if (++idle > 100)
                    {
                        LockSupport.parkNanos(10_000);
                    }
                }
                final long price = 1_000_000L * instrumentId + i % 997;
                if (isTrade)
                {
                    encoders.trade(claim.buffer(), claim.offset()).instrumentId(instrumentId)
                        .sendTimeNs(System.nanoTime()).price(price).quantity(100 + i % 900).side((short)(i & 1));
                }
                else
                {
                    encoders.quote(claim.buffer(), claim.offset()).instrumentId(instrumentId)
                        .sendTimeNs(System.nanoTime()).bid(price).ask(price + 20).bidSize(1_000_000).askSize(2_000_000);
                    lastBid[(int)instrumentId] = price;
                }
                claim.commit();
            }
            final long elapsedNs = System.nanoTime() - startNs;
            long maxBuffered = 0;
            for (final Publication publication : List.of(quotes[0], quotes[1], trades[0], trades[1]))
            {
                maxBuffered = Math.max(maxBuffered, publication.maxBufferedBytes());
            }
            out.printf(Locale.ROOT, "publisher: %,d messages in %.2f s (%,.0f msg/s); waited out back-pressure %,d " +
                "times; log high-water %,d of %,d bytes%n", options.messages, elapsedNs / 1e9,
                options.messages * 1e9 / Math.max(1, elapsedNs), backPressured, maxBuffered,
                quotes[0].capacity());
        }

        void close()
        {
            for (final Publication publication : List.of(quotes[0], quotes[1], trades[0], trades[1]))
            {
                publication.close();
            }
        }
    }

    /** The sample's command line; running it runs the sample. */
    @Command(name = "rivulet-demo marketdata", mixinStandardHelpOptions = true,
        versionProvider = SampleCli.Version.class,
        description = "One publisher of SBE quotes and trades on many instruments, several subscribers with " +
            "wildcard subscriptions and one deliberately slow subscriber; prints rate, latency percentiles and gaps.",
        footer = {"", "Two processes, for example:",
            "./rivulet-demo marketdata --mode publisher --port 7071 --wait-for 2",
            "./rivulet-demo marketdata --mode subscriber --port 7071 --pattern 'md.quotes.*'"})
    static final class Options implements Callable<Integer>
    {
        @Spec
        CommandSpec spec;

        @Mixin
        EngineOptions engine;

        @Option(names = "--mode", paramLabel = "MODE", defaultValue = "all",
            description = "all (everything in this JVM), publisher, or subscriber (default ${DEFAULT-VALUE})")
        String mode;

        @Option(names = "--instruments", paramLabel = "N", defaultValue = "64",
            description = "instruments, half FX and half equities (default ${DEFAULT-VALUE})")
        int instruments;

        @Option(names = "--messages", paramLabel = "N", defaultValue = "150000",
            description = "messages to publish, a fifth of them trades (default ${DEFAULT-VALUE})")
        int messages;

        @Option(names = "--rate", paramLabel = "N", defaultValue = "50000",
            description = "messages per second, 0 for as fast as possible (default ${DEFAULT-VALUE})")
        int rate;

        @Option(names = "--subscribers", paramLabel = "N", defaultValue = "4",
            description = "fast subscribers (default ${DEFAULT-VALUE})")
        int subscribers;

        @Option(names = "--slow", paramLabel = "N",
            description = "slow subscribers on md.quotes.* (default 1; subscriber mode: 1 = be slow, default 0)")
        Integer slowGiven;

        @Option(names = "--quotes-policy", paramLabel = "P", defaultValue = "CONFLATE",
            description = "CONFLATE, DROP_SLOW or BLOCK for the quotes topics (default ${DEFAULT-VALUE})")
        String quotesPolicyName;

        @Option(names = "--host", paramLabel = "HOST", defaultValue = "127.0.0.1",
            description = "publisher address (default ${DEFAULT-VALUE})")
        String host;

        @Option(names = "--port", paramLabel = "PORT",
            description = "publisher port (default 0 = any in mode all, 7071 otherwise)")
        Integer portGiven;

        @Option(names = "--pattern", paramLabel = "P", defaultValue = "md.>",
            description = "subscriber mode: the pattern to subscribe to (default ${DEFAULT-VALUE})")
        String pattern;

        @Option(names = "--wait-for", paramLabel = "N", defaultValue = "1",
            description = "publisher mode: subscriber connections to wait for (default ${DEFAULT-VALUE})")
        int waitFor;

        @Option(names = "--topic-data", paramLabel = "WAY",
            description = "link (default: unless rivulet.topicDatagrams is true), or datagrams: reliable datagrams " +
                "over one UD queue pair per node (needs --transport rdma on both sides)")
        String topicData;

        int slow;
        SlowConsumerPolicy quotesPolicy;

        /** @return 0 when every check passed, 1 otherwise. */
        @Override
        public Integer call()
        {
            if (!List.of("all", "publisher", "subscriber").contains(mode))
            {
                throw engine.usageError("--mode must be all, publisher or subscriber, got '" + mode + "'");
            }
            SampleCli.checkRange(spec, "--instruments", instruments, 2, 65_536);
            SampleCli.checkRange(spec, "--messages", messages, 1, 100_000_000);
            SampleCli.checkRange(spec, "--rate", rate, 0, 100_000_000);
            SampleCli.checkRange(spec, "--subscribers", subscribers, 0, 64);
            slow = slowGiven != null ? slowGiven : "subscriber".equals(mode) ? 0 : 1;
            SampleCli.checkRange(spec, "--slow", slow, 0, 8);
            final String policy = quotesPolicyName.toUpperCase(Locale.ROOT);
            try
            {
                quotesPolicy = SlowConsumerPolicy.valueOf(policy);
            }
            catch (final IllegalArgumentException ex)
            {
                throw engine.usageError("--quotes-policy must be CONFLATE, DROP_SLOW or BLOCK, got '" + policy + "'");
            }
            if (portGiven != null)
            {
                SampleCli.checkRange(spec, "--port", portGiven, 0, 65535);
            }
            SampleCli.checkRange(spec, "--wait-for", waitFor, 0, 1000);
            if (topicData != null && !List.of("link", "datagrams").contains(topicData))
            {
                throw engine.usageError("--topic-data must be link or datagrams, got '" + topicData + "'");
            }
            engine.context(); // reports a bad option or rivulet.* property before anything starts

            final boolean passed;
            try
            {
                passed = new MarketData(this).run();
            }
            catch (final RuntimeException ex)
            {
                System.out.println("Market data FAILED: " + ex);
                ex.printStackTrace(System.out);
                return 1;
            }
            return passed ? 0 : 1;
        }

        int port(final int defaultPort)
        {
            return portGiven == null ? defaultPort : portGiven;
        }

        Rivulet.Context context(final List<String> errors)
        {
            final Rivulet.Context context = engine.context().errorHandler(error ->
            {
                synchronized (errors)
                {
                    errors.add(String.valueOf(error));
                }
                System.err.println("rivulet: " + error);
            });
            if (topicData != null)
            {
                context.topicDatagrams("datagrams".equals(topicData));
            }
            return context;
        }
    }
}
