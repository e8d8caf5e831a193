package io.rivulet.actors;

import io.rivulet.tck.Await;
import io.rivulet.ConnectionClosedException;
import io.rivulet.ConnectionLostException;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.actors.TestMessages.Tick;
import io.rivulet.spi.Transport;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The actor acceptance tests across two nodes in one JVM, over the subclass's transport on loopback: node A
 * hosts the senders, node B the actors (both bound, both SHARED engines with the default back-off idle).
 */
public abstract class RemoteActorSuite
{
    /** The longest wait for an outcome, 60 s scaled by {@link TestTime}; every wait and slack here is scaled. */
    static final Duration TIMEOUT = TestTime.seconds(60);
    static final long TIMEOUT_MS = TIMEOUT.toMillis();
    /** Generous: the suite must pass on a loaded 2-core machine; a reply normally takes well under a millisecond. */
    static final Duration ASK_TIMEOUT = TestTime.seconds(30);
    /** Lateness allowed to timers and threads on a loaded machine when checking keepalive detection. */
    static final long SCHEDULING_SLACK_MS = TestTime.millis(3000);

    protected Rivulet nodeA;
    protected Rivulet nodeB;
    protected ActorSystem systemA;
    protected ActorSystem systemB;
    protected final List<Throwable> errorsA = new CopyOnWriteArrayList<>();
    protected final List<Throwable> errorsB = new CopyOnWriteArrayList<>();
    /** What the nodes under the actor systems reported (connections lost, protocol errors), for failure messages. */
    protected final List<Throwable> nodeErrorsA = new CopyOnWriteArrayList<>();
    protected final List<Throwable> nodeErrorsB = new CopyOnWriteArrayList<>();
    private String testName;

    /** @return the transport under test. */
    protected abstract Transport transport();

    /** @return an address to bind on loopback with an ephemeral port. */
    protected String bindAddress()
    {
        return "127.0.0.1:0";
    }

    protected Rivulet.Context nodeContext()
    {
        return new Rivulet.Context()
            .transport(transport())
            .threadingMode(ThreadingMode.SHARED)
            .errorHandler(error -> { });
    }

    @BeforeEach
    void start(final TestInfo info)
    {
        testName = info.getDisplayName();
        nodeA = Rivulet.launch(nodeContext().errorHandler(nodeErrorsA::add));
        nodeB = Rivulet.launch(nodeContext().errorHandler(nodeErrorsB::add));
        systemA = ActorSystem.launch(nodeA, TestMessages.context().bindAddress(bindAddress()).errorHandler(errorsA::add));
        systemB = ActorSystem.launch(nodeB, TestMessages.context().bindAddress(bindAddress()).errorHandler(errorsB::add));
    }

    @AfterEach
    void stop()
    {
        if (systemA != null && systemB != null)
        {
            // For diagnosis, in the test's output file.
            System.out.printf("%s: counters of A%n%s%s: counters of B%n%s", testName, systemA.counters(), testName,
                systemB.counters());
        }
        closeQuietly(systemA);
        closeQuietly(systemB);
        closeQuietly(nodeA);
        closeQuietly(nodeB);
    }

    static void closeQuietly(final AutoCloseable closeable)
    {
        if (closeable != null)
        {
            try
            {
                closeable.close();
            }
            catch (final Exception ignore)
            {
                // best effort
            }
        }
    }

    @Test
    void shouldKeepPerSenderOrderForOneMillionTellsWithNoneLost() throws Exception
    {
        final int senders = 4;
        final int perSender = 250_000;
        final long total = (long)senders * perSender;
        final AtomicLong outOfOrder = new AtomicLong();
        final AtomicLong received = new AtomicLong(); // the sink writes, a failure's message reads
        final CompletableFuture<long[]> done = new CompletableFuture<>();
        final ActorRef<Tick> sink = systemB.spawn("sink", Behaviors.setup(context ->
        {
            final long[] next = new long[senders];
            return (ctx, tick) ->
            {
                if (tick.sequence() != next[tick.sender()])
                {
                    outOfOrder.incrementAndGet();
                }
                next[tick.sender()] = tick.sequence() + 1;
                final long count = received.get() + 1;
                received.lazySet(count);
                if (count == total)
                {
                    done.complete(next.clone());
                }
                return Behaviors.same();
            };
        }));
        final ActorRef<Tick> remote = systemA.lookup(sink.path(), Tick.class);
        assertThat(remote.isLocal()).isFalse();

        final AtomicReference<Throwable> senderError = new AtomicReference<>();
        final long[] senderEndNs = new long[senders];
        final Thread[] threads = new Thread[senders];
        final long startNs = System.nanoTime();
        for (int s = 0; s < senders; s++)
        {
            final int sender = s;
            threads[s] = new Thread(() ->
            {
                try
                {
                    for (int i = 0; i < perSender; i++)
                    {
                        remote.tell(new Tick(sender, i));
                    }
                }
                catch (final Throwable ex)
                {
                    senderError.set(ex);
                }
                senderEndNs[sender] = System.nanoTime();
            }, "sender-" + s);
            threads[s].start();
        }
        for (final Thread thread : threads)
        {
            thread.join(TIMEOUT_MS);
        }
        // Where things stood, for a failure: a sender that gave up would otherwise leave 'done' waiting its timeout.
        final Supplier<String> progress = () -> String.format(Locale.ROOT,
            "after %.1f s (senders ended at %s s): the sink received %,d of %,d; node A %s, outbox %s; node B %s, " +
            "mailbox %s; node A's engine: %s; node B's engine: %s",
            (System.nanoTime() - startNs) / 1e9, Arrays.stream(senderEndNs)
                .mapToObj(endNs -> endNs == 0 ? "-" : String.format(Locale.ROOT, "%.1f", (endNs - startNs) / 1e9))
                .toList(), received.get(), total, oneLine(systemA.counters()), systemA.stats(remote),
            oneLine(systemB.counters()), systemB.stats(sink), oneLine(nodeA.counters()), oneLine(nodeB.counters())) +
            "; errors reported on A: " + errorsA + "; on B: " + errorsB + "; by node A: " + nodeErrorsA +
            "; by node B: " + nodeErrorsB + rivuletThreads();
        if (senderError.get() != null)
        {
            throw new AssertionError("a sender failed " + progress.get(), senderError.get());
        }
        // Waits in slices: a dead letter (a connection lost with tells in flight) means 'done' can never come.
        final long waitDeadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        long[] next = null;
        while (next == null)
        {
            try
            {
                next = done.get(1, TimeUnit.SECONDS);
            }
            catch (final TimeoutException ex)
            {
                if (systemA.counters().deadLetters.get() > 0 || systemB.counters().deadLetters.get() > 0)
                {
                    throw new AssertionError("tells were dead-lettered " + progress.get(), ex);
                }
                if (System.nanoTime() - waitDeadlineNs > 0)
                {
                    throw new AssertionError("not every tell arrived " + progress.get(), ex);
                }
            }
        }
        final long elapsedNs = System.nanoTime() - startNs;
        System.out.printf(Locale.ROOT, "%s over %s: %,d tells from %d senders in %.2f s (%,.0f tells/s)%n",
            testName, transport().name(), total, senders, elapsedNs / 1e9, total / (elapsedNs / 1e9));

        assertThat(senderError.get()).isNull();
        assertThat(outOfOrder.get()).as("tells out of per-sender order").isZero();
        assertThat(next).containsOnly(perSender);
        assertThat(systemA.counters().deadLetters.get()).isZero();
        assertThat(systemB.counters().deadLetters.get()).isZero();
        // The last handler completes 'done' before it returns, and a message counts as processed once it has.
        Await.until("every tell is counted as processed", () -> systemB.stats(sink).processed() >= total);
        final ActorStats mailbox = systemB.stats(sink);
        assertThat(mailbox.processed()).isEqualTo(total);
        assertThat(mailbox.highWaterMark()).isLessThanOrEqualTo(mailbox.capacity());
        final ActorStats outbox = systemA.stats(remote);
        assertThat(outbox.highWaterMark()).isLessThanOrEqualTo(outbox.capacity());
        assertThat(errorsA).isEmpty();
        assertThat(errorsB).isEmpty();
    }

    /** @return what the nodes' and actor systems' threads were doing: where a stalled pipeline stands still. */
    private static String rivuletThreads()
    {
        final StringBuilder dump = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, stack) ->
        {
            if (thread.getName().contains("rivulet") || thread.getName().startsWith("sender-"))
            {
                dump.append("\n  ").append(thread.getName()).append(' ').append(thread.getState());
                for (int i = 0; i < Math.min(12, stack.length); i++)
                {
                    dump.append("\n    at ").append(stack[i]);
                }
            }
        });
        return dump.toString();
    }

    private static String oneLine(final Object counters)
    {
        return String.valueOf(counters).strip().replace("\n", ", ");
    }

    @Test
    void shouldAnswerAnAskAcrossNodes()
    {
        final ActorRef<TestMessages.QuoteRequest> pricing = systemB.spawn("pricing", (context, request) ->
        {
            context.reply(new TestMessages.Quote(request.symbol(), 7, 1_0850, 1_0852));
            return Behaviors.same();
        });
        final ActorRef<TestMessages.QuoteRequest> remote = systemA.lookup(pricing.path(), TestMessages.QuoteRequest.class);

        StepVerifier.create(remote.ask(new TestMessages.QuoteRequest("EURUSD"), TestMessages.Quote.class,
                ASK_TIMEOUT))
            .expectNext(new TestMessages.Quote("EURUSD", 7, 1_0850, 1_0852))
            .expectComplete()
            .verify(TIMEOUT);
        assertThat(systemA.counters().asks.get()).isEqualTo(1);
    }

    @Test
    void shouldFailAnAskWithATimeoutWhenNoReplyComes()
    {
        final ActorRef<String> silent = systemB.spawn("silent", (context, message) -> Behaviors.same());
        final ActorRef<String> remote = systemA.lookup(silent.path(), String.class);
        // The channel to B is open before the ask, so that the ask reaches the silent actor however slow the machine
        // is at connecting: a timeout that fired while connecting would cancel the ask before it was sent.
        remote.tell("hello");
        Await.until("the silent actor handled the tell", () -> systemB.stats(silent).processed() == 1);

        StepVerifier.create(remote.ask("anyone there?", String.class, Duration.ofMillis(200)))
            .expectErrorSatisfies(error -> assertThat(error)
                .isInstanceOf(AskTimeoutException.class)
                .hasMessageContaining(silent.path()))
            .verify(TIMEOUT);
        assertThat(systemA.counters().askTimeouts.get()).isEqualTo(1);
        Await.until("the silent actor handled the ask", () -> systemB.stats(silent).processed() == 2);
    }

    @Test
    void shouldFailAnAskToAnActorThatDoesNotExist()
    {
        final ActorRef<String> nobody = systemA.lookup(systemB.pathOf("nobody"), String.class);

        StepVerifier.create(nobody.ask("hello", String.class, ASK_TIMEOUT))
            .expectError(ActorNotFoundException.class)
            .verify(TIMEOUT);
        nobody.tell("into the void");
        Await.until("the tell became a dead letter", () -> systemB.counters().deadLetters.get() == 2);
    }

    @Test
    void shouldStreamARemoteReplyWithBackPressure()
    {
        final List<Long> producerRequests = new CopyOnWriteArrayList<>();
        final ActorRef<String> ticker = systemB.spawn("ticker", (context, prefix) ->
        {
            context.replyStream(Flux.range(1, 20).doOnRequest(producerRequests::add).map(i -> prefix + "-" + i));
            return Behaviors.same();
        });
        final ActorRef<String> remote = systemA.lookup(ticker.path(), String.class);

        StepVerifier.create(remote.askStream("tick", String.class), 0)
            .thenRequest(5)
            .expectNext("tick-1", "tick-2", "tick-3", "tick-4", "tick-5")
            .then(() -> assertThat(producerRequests.stream().mapToLong(Long::longValue).sum())
                .as("the remote producer was asked for no more than the subscriber's demand")
                .isLessThanOrEqualTo(5))
            .thenRequest(15)
            .expectNextCount(15)
            .expectComplete()
            .verify(TIMEOUT);
        assertThat(producerRequests.stream().mapToLong(Long::longValue).sum()).isLessThanOrEqualTo(21);

        // A plain ask gets a stream reply's first element; a stream ask gets a single reply as a stream of one.
        StepVerifier.create(remote.ask("first", String.class, ASK_TIMEOUT))
            .expectNext("first-1")
            .expectComplete()
            .verify(TIMEOUT);
        final ActorRef<String> single = systemB.spawn("single", (context, message) ->
        {
            context.reply((long)message.length());
            return Behaviors.same();
        });
        StepVerifier.create(systemA.lookup(single.path(), String.class).askStream("four", Long.class))
            .expectNext(4L)
            .expectComplete()
            .verify(TIMEOUT);
    }

    @Test
    void shouldRestartARemoteActorWithItsStateResetAfterAFailure()
    {
        final ActorRef<String> counter = systemB.spawn("counter", counterBehavior(),
            ActorOptions.defaults().supervision(SupervisorStrategy.restart()
                .withLimit(3, Duration.ofMinutes(1))
                .withBackoff(Duration.ofMillis(20), Duration.ofMillis(100))));
        final ActorRef<String> remote = systemA.lookup(counter.path(), String.class);
        remote.tell("inc");
        remote.tell("inc");
        remote.tell("inc");
        assertThat(remote.ask("get", Long.class, ASK_TIMEOUT).block()).isEqualTo(3L);

        StepVerifier.create(remote.ask("boom", Long.class, ASK_TIMEOUT))
            .expectErrorSatisfies(error -> assertThat(error)
                .isInstanceOf(ActorFailedException.class)
                .hasMessageContaining("boom"))
            .verify(TIMEOUT);
        assertThat(remote.ask("get", Long.class, ASK_TIMEOUT).block())
            .as("the restarted actor starts again from its initial state")
            .isEqualTo(0L);

        assertThat(systemB.counters().failures.get()).isEqualTo(1);
        assertThat(systemB.counters().restarts.get()).isEqualTo(1);
        assertThat(systemB.stats(counter).restarts()).isEqualTo(1);
        assertThat(errorsB).singleElement().satisfies(error -> assertThat(error)
            .isInstanceOf(ActorFailedException.class)
            .hasMessageContaining(counter.path())
            .hasMessageContaining("restarting"));
    }

    @Test
    void shouldNotifyWatchersWhenARemoteActorStops() throws Exception
    {
        final ActorRef<String> worker = systemB.spawn("worker",
            (context, message) -> "stop".equals(message) ? Behaviors.stopped() : Behaviors.same());
        final ActorRef<String> remote = systemA.lookup(worker.path(), String.class);
        final CompletableFuture<Terminated> systemWatch = systemA.watch(remote).toFuture();
        final CompletableFuture<Terminated> actorWatch = new CompletableFuture<>();
        systemA.spawn("watcher", Behaviors.<String>setup(context ->
        {
            context.watch(remote);
            return Behaviors.receive((ctx, message) -> Behaviors.same(), (ctx, signal) ->
            {
                if (signal instanceof Terminated terminated)
                {
                    actorWatch.complete(terminated);
                }
                return Behaviors.same();
            });
        }));
        Await.until("both watches reached the worker's node", () -> systemB.cell("worker").watcherCount() == 2);

        remote.tell("stop");

        assertThat(systemWatch.get(TIMEOUT_MS, TimeUnit.MILLISECONDS))
            .isEqualTo(new Terminated(worker.path(), Terminated.Reason.STOPPED, ""));
        assertThat(actorWatch.get(TIMEOUT_MS, TimeUnit.MILLISECONDS).reason()).isEqualTo(Terminated.Reason.STOPPED);
        assertThat(systemA.watch(remote).block(TIMEOUT).reason())
            .isEqualTo(Terminated.Reason.NOT_FOUND);
    }

    @Test
    void shouldNotifyWatchersWhenARemoteActorFailsForGood() throws Exception
    {
        final ActorRef<String> fragile = systemB.spawn("fragile", (context, message) ->
        {
            throw new IllegalStateException("cannot cope with " + message);
        }, ActorOptions.defaults().supervision(SupervisorStrategy.stop()));
        final ActorRef<String> remote = systemA.lookup(fragile.path(), String.class);
        final CompletableFuture<Terminated> watch = systemA.watch(remote).toFuture();
        Await.until("the watch reached the actor's node", () -> systemB.cell("fragile").watcherCount() == 1);

        remote.tell("this");

        final Terminated terminated = watch.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        assertThat(terminated.reason()).isEqualTo(Terminated.Reason.FAILED);
        assertThat(terminated.detail()).contains("cannot cope with this");
        assertThat(systemB.counters().stopped.get()).isEqualTo(1);
    }

    @Test
    void shouldNotifyWatchersWithinTheKeepaliveTimeoutWhenTheRemoteNodeHangs() throws Exception
    {
        // Scaled like the slack: a healthy node must not look hung on a slow machine, and the bound keeps its meaning.
        final long intervalMs = TestTime.millis(100);
        final long timeoutMs = TestTime.millis(1000);
        final FreezableIdleStrategy freezer = new FreezableIdleStrategy();
        final Rivulet watcherNode = Rivulet.launch(nodeContext()
            .keepaliveInterval(intervalMs, TimeUnit.MILLISECONDS).keepaliveTimeout(timeoutMs, TimeUnit.MILLISECONDS));
        final Rivulet hangingNode = Rivulet.launch(nodeContext()
            .keepaliveInterval(intervalMs, TimeUnit.MILLISECONDS).keepaliveTimeout(timeoutMs, TimeUnit.MILLISECONDS)
            .idleStrategy(freezer));
        try (ActorSystem watchers = ActorSystem.launch(watcherNode, TestMessages.context().errorHandler(errorsA::add));
             ActorSystem hanging = ActorSystem.launch(hangingNode,
                 TestMessages.context().bindAddress(bindAddress()).errorHandler(errorsB::add)))
        {
            final ActorRef<String> victim = hanging.spawn("victim", (context, message) ->
            {
                context.reply(message);
                return Behaviors.same();
            });
            final ActorRef<String> remote = watchers.lookup(victim.path(), String.class);
            assertThat(remote.ask("ping", String.class, ASK_TIMEOUT).block()).isEqualTo("ping");
            final CompletableFuture<Terminated> systemWatch = watchers.watch(remote).toFuture();
            final CompletableFuture<Terminated> actorWatch = new CompletableFuture<>();
            watchers.spawn("watcher", Behaviors.<String>setup(context ->
            {
                context.watch(remote);
                return Behaviors.receive((ctx, message) -> Behaviors.same(), (ctx, signal) ->
                {
                    actorWatch.complete((Terminated)signal);
                    return Behaviors.same();
                });
            }));
            Await.until("both watches reached the victim's node", () -> hanging.cell("victim").watcherCount() == 2);

            final long frozenAtNs = System.nanoTime();
            freezer.freeze();
            final CompletableFuture<String> askInFlight =
                remote.ask("anyone?", String.class, TIMEOUT).toFuture();

            final Terminated terminated = systemWatch.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAtNs);
            System.out.printf(Locale.ROOT, "%s over %s: watchers notified %d ms after the node hung " +
                "(keepalive interval %d ms, timeout %d ms)%n", testName, transport().name(), detectedMs, intervalMs,
                timeoutMs);
            assertThat(terminated.reason()).isEqualTo(Terminated.Reason.UNREACHABLE);
            assertThat(terminated.detail()).contains(ConnectionLostException.class.getSimpleName());
            // Keepalive checks every interval for silence longer than the timeout: detection comes between the
            // timeout and the timeout plus one interval after the last frame; allow for a loaded machine.
            assertThat(detectedMs).isLessThanOrEqualTo(timeoutMs + intervalMs + SCHEDULING_SLACK_MS);
            assertThat(actorWatch.get(TIMEOUT_MS, TimeUnit.MILLISECONDS).reason()).isEqualTo(Terminated.Reason.UNREACHABLE);
            assertThatThrownBy(() -> askInFlight.get(TIMEOUT_MS, TimeUnit.MILLISECONDS))
                .hasCauseInstanceOf(ConnectionLostException.class);
            // The loss itself is on record with the watchers' system, not only in what it ended.
            Await.until(Duration.ofMillis(TIMEOUT_MS), () -> errorsA.stream()
                .anyMatch(ConnectionLostException.class::isInstance), () -> "the lost connection reported: " + errorsA);
        }
        finally
        {
            freezer.thaw();
            closeQuietly(watcherNode);
            closeQuietly(hangingNode);
        }
    }

    @Test
    void shouldNotifyWatchersWhenTheRemoteNodeCloses() throws Exception
    {
        final ActorRef<String> worker = systemB.spawn("worker", (context, message) -> Behaviors.same());
        final ActorRef<String> remote = systemA.lookup(worker.path(), String.class);
        final CompletableFuture<Terminated> watch = systemA.watch(remote).toFuture();
        Await.until("the watch reached the worker's node", () -> systemB.cell("worker").watcherCount() == 1);

        nodeB.close();

        final Terminated terminated = watch.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        assertThat(terminated.reason()).isEqualTo(Terminated.Reason.UNREACHABLE);
        assertThat(terminated.detail()).contains(ConnectionClosedException.class.getSimpleName());
    }

    @Test
    void shouldRejectMessagesToAFullRemoteRejectMailboxWithBoundedMemory() throws Exception
    {
        final int capacity = 16;
        final int sent = 1000;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicLong outOfOrder = new AtomicLong();
        final ActorRef<Tick> slow = systemB.spawn("slow", Behaviors.setup(context ->
        {
            final long[] last = {-1};
            return (ctx, tick) ->
            {
                entered.countDown();
                release.await();
                if (tick.sequence() <= last[0])
                {
                    outOfOrder.incrementAndGet();
                }
                last[0] = tick.sequence();
                return Behaviors.same();
            };
        }), ActorOptions.defaults().mailbox(capacity, OverflowPolicy.REJECT));
        final ActorRef<Tick> remote = systemA.lookup(slow.path(), Tick.class);

        // The first tell occupies the actor before the rest arrive, so they find a mailbox that stays full: had
        // the actor taken its first message only after the flood, the mailbox would have a free slot for the ask.
        remote.tell(new Tick(0, 0));
        assertThat(entered.await(TIMEOUT_MS, TimeUnit.MILLISECONDS)).as("the slow actor is handling its first tell").isTrue();
        for (int i = 1; i < sent; i++)
        {
            remote.tell(new Tick(0, i));
        }
        Await.until("every tell reached the slow actor's node", () -> systemB.counters().remoteReceived.get() >= sent);
        StepVerifier.create(remote.ask(new Tick(1, 0), String.class, ASK_TIMEOUT))
            .expectErrorSatisfies(error -> assertThat(error)
                .isInstanceOf(MailboxFullException.class)
                .hasMessageContaining("REJECT"))
            .verify(TIMEOUT);

        final ActorStats stats = systemB.stats(slow);
        assertThat(stats.capacity()).isEqualTo(capacity);
        assertThat(stats.highWaterMark()).isLessThanOrEqualTo(capacity);
        assertThat(stats.rejected()).isEqualTo(systemB.counters().mailboxRejected.get());
        final long accepted = sent - (stats.rejected() - 1); // the ask was rejected too
        assertThat(accepted).as("the mailbox plus the one being handled").isEqualTo(capacity + 1);

        release.countDown();
        Await.until("the accepted tells are handled", () -> systemB.stats(slow).processed() == accepted);
        assertThat(outOfOrder.get()).isZero();
    }

    @Test
    void shouldBackPressureRemoteSendersWithBoundedMemoryAndLoseNothing() throws Exception
    {
        final int capacity = 16;
        final int outboxCapacity = 256;
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicLong outOfOrder = new AtomicLong();
        final ActorRef<Tick> slow = systemB.spawn("slow", Behaviors.setup(context ->
        {
            final long[] next = {0};
            return (ctx, tick) ->
            {
                release.await();
                if (tick.sequence() != next[0])
                {
                    outOfOrder.incrementAndGet();
                }
                next[0] = tick.sequence() + 1;
                return Behaviors.same();
            };
        }), ActorOptions.defaults().mailbox(capacity, OverflowPolicy.BACK_PRESSURE));
        try (ActorSystem sender = ActorSystem.launch(nodeA, TestMessages.context()
            .outboxCapacity(outboxCapacity)
            .sendTimeout(TestTime.ofMillis(300)) // patience before "full": scaled, so only a full path trips it
            .errorHandler(errorsA::add)))
        {
            final ActorRef<Tick> remote = sender.lookup(slow.path(), Tick.class);
            long accepted = 0;
            MailboxFullException full = null;
            for (int i = 0; i < 1_000_000 && full == null; i++)
            {
                try
                {
                    remote.tell(new Tick(0, i));
                    accepted++;
                }
                catch (final MailboxFullException ex)
                {
                    full = ex;
                }
            }
            assertThat(full).as("the sender was held back and finally told so").isNotNull();
            assertThat(full).hasMessageContaining("BACK_PRESSURE");
            assertThat(sender.counters().sendTimeouts.get()).isEqualTo(1);

            // Every queue on the way is bounded: the outbox, the batches the receiver requested, the mailbox.
            final ActorStats outbox = sender.stats(remote);
            final ActorStats mailbox = systemB.stats(slow);
            assertThat(outbox.highWaterMark()).isLessThanOrEqualTo(outbox.capacity()).isLessThanOrEqualTo(outboxCapacity);
            assertThat(mailbox.highWaterMark()).isLessThanOrEqualTo(capacity);
            final long inFlightBound = (long)outboxCapacity + capacity + 1 +
                (long)systemB.context().inboundWindow() * ActorSystem.MAX_BATCH_ENTRIES;
            assertThat(accepted).isLessThanOrEqualTo(inFlightBound);

            release.countDown();
            final long expected = accepted;
            Await.until("every accepted tell is handled", () -> systemB.stats(slow).processed() == expected);
            assertThat(outOfOrder.get()).isZero();
            assertThat(sender.counters().deadLetters.get()).isZero();
            assertThat(systemB.counters().deadLetters.get()).isZero();
        }
    }

    @Test
    void shouldTreatANodeThatIsDownAsUnreachableWithoutAConnectPerMessage()
    {
        final String downPath;
        try (ActorSystem gone = ActorSystem.launch(nodeB, TestMessages.context().bindAddress(bindAddress())))
        {
            downPath = gone.pathOf("anyone");
        }
        final ActorRef<String> down = systemA.lookup(downPath, String.class);

        StepVerifier.create(down.ask("hello?", String.class, ASK_TIMEOUT))
            .expectError()
            .verify(TIMEOUT);
        assertThat(systemA.watch(down).block(TIMEOUT).reason())
            .isEqualTo(Terminated.Reason.UNREACHABLE);
        final long channelsBefore = systemA.counters().channelsOpened.get();
        for (int i = 0; i < 1000; i++)
        {
            down.tell("lost " + i);
        }
        // Tells to an unreachable node become dead letters on the engine's thread, shortly after tell returns.
        Await.until("1000 tells became dead letters", () -> systemA.counters().deadLetters.get() >= 1000);
        assertThat(systemA.counters().channelsOpened.get() - channelsBefore)
            .as("channels opened for 1000 tells to a node that is down")
            .isLessThanOrEqualTo(1);
    }

    /** Counts "inc", answers "get", throws on "boom"; its state is made by setup, so a restart resets it. */
    static Behavior<String> counterBehavior()
    {
        return Behaviors.setup(context ->
        {
            final long[] count = {0};
            return (ctx, command) ->
            {
                switch (command)
                {
                    case "inc":
                        count[0]++;
                        break;
                    case "get":
                        ctx.reply(count[0]);
                        break;
                    case "boom":
                        throw new IllegalStateException("boom at count " + count[0]);
                    default:
                        break;
                }
                return Behaviors.same();
            };
        });
    }
}
