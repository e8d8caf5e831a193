package io.rivulet.actors;

import io.rivulet.tck.Await;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.Transports;
import io.rivulet.actors.TestMessages.Tick;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Actors within one actor system: processing, asks, supervision, death watch, mailbox policies. */
class LocalActorTest
{
    private static final Duration WAIT = TestTime.seconds(30);

    private Rivulet node;
    private ActorSystem actors;
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start()
    {
        node = Rivulet.launch(new Rivulet.Context().transport(Transports.tcp()).threadingMode(ThreadingMode.SHARED));
        actors = ActorSystem.launch(node, TestMessages.context()
            .sendTimeout(Duration.ofMillis(200))
            .errorHandler(errors::add));
    }

    @AfterEach
    void stop()
    {
        RemoteActorSuite.closeQuietly(actors);
        RemoteActorSuite.closeQuietly(node);
    }

    @Test
    void shouldHandleMessagesOneAtATimeInEachSendersOrder() throws Exception
    {
        final int senders = 3;
        final int perSender = 20_000;
        final AtomicInteger inside = new AtomicInteger();
        final AtomicLong overlaps = new AtomicLong();
        final AtomicLong outOfOrder = new AtomicLong();
        final CountDownLatch done = new CountDownLatch(senders * perSender);
        final ActorRef<Tick> sink = actors.spawn("sink", Behaviors.setup(context ->
        {
            final long[] next = new long[senders];
            return (ctx, tick) ->
            {
                if (inside.incrementAndGet() != 1)
                {
                    overlaps.incrementAndGet();
                }
                if (tick.sequence() != next[tick.sender()])
                {
                    outOfOrder.incrementAndGet();
                }
                next[tick.sender()] = tick.sequence() + 1;
                inside.decrementAndGet();
                done.countDown();
                return Behaviors.same();
            };
        }), ActorOptions.defaults().mailbox(64, OverflowPolicy.BACK_PRESSURE));

        final Thread[] threads = new Thread[senders];
        for (int s = 0; s < senders; s++)
        {
            final int sender = s;
            threads[s] = new Thread(() ->
            {
                for (int i = 0; i < perSender; i++)
                {
                    sink.tell(new Tick(sender, i));
                }
            });
            threads[s].start();
        }
        assertThat(done.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        for (final Thread thread : threads)
        {
            thread.join(WAIT.toMillis());
        }
        assertThat(overlaps.get()).as("messages handled concurrently").isZero();
        assertThat(outOfOrder.get()).as("messages out of their sender's order").isZero();
        assertThat(actors.stats(sink).highWaterMark()).isLessThanOrEqualTo(64);
        assertThat(sink.path()).isEqualTo("rivulet://local/sink");
    }

    @Test
    void shouldAnswerAnAskAndTimeOutWithoutAReply()
    {
        final ActorRef<String> echo = actors.spawn("echo", (context, message) ->
        {
            if (!message.startsWith("ignore"))
            {
                context.reply(message.toUpperCase());
            }
            return Behaviors.same();
        });

        StepVerifier.create(echo.ask("hello", String.class, WAIT))
            .expectNext("HELLO")
            .verifyComplete();
        StepVerifier.create(echo.ask("ignore me", String.class, Duration.ofMillis(100)))
            .expectError(AskTimeoutException.class)
            .verify(WAIT);
        StepVerifier.create(echo.ask("typed", Long.class, WAIT))
            .expectError(ClassCastException.class)
            .verify(WAIT);
        StepVerifier.create(actors.lookup("nobody", String.class).ask("hello", String.class, WAIT))
            .expectError(ActorNotFoundException.class)
            .verify(WAIT);
        assertThat(actors.counters().askTimeouts.get()).isEqualTo(1);
    }

    @Test
    void shouldStreamALocalReplyUnderTheSubscribersDemand()
    {
        final List<Long> requests = new CopyOnWriteArrayList<>();
        final ActorRef<Integer> counter = actors.spawn("counter", (context, n) ->
        {
            context.replyStream(Flux.range(1, n).doOnRequest(requests::add));
            return Behaviors.same();
        });

        StepVerifier.create(counter.askStream(10, Integer.class), 0)
            .thenRequest(3)
            .expectNext(1, 2, 3)
            .then(() -> assertThat(requests).containsExactly(3L))
            .thenRequest(Long.MAX_VALUE)
            .expectNextCount(7)
            .verifyComplete();
    }

    @Test
    void shouldRestartWithTheInitialBehaviourSoStateIsReset()
    {
        final List<Signal> signals = new CopyOnWriteArrayList<>();
        final ActorRef<String> counter = actors.spawn("counter", Behaviors.withState(0L, (context, count, command) ->
        {
            switch (command)
            {
                case "inc":
                    return count + 1;
                case "get":
                    context.reply(count);
                    return count;
                default:
                    throw new IllegalArgumentException("unknown command " + command + " at " + count);
            }
        }));
        final ActorRef<String> fromSetup = actors.spawn("setup-counter", Behaviors.receive(
            RemoteActorSuite.counterBehavior(), (context, signal) ->
            {
                signals.add(signal);
                return Behaviors.same();
            }));

        for (final ActorRef<String> ref : List.of(counter, fromSetup))
        {
            ref.tell("inc");
            ref.tell("inc");
            assertThat(ref.ask("get", Long.class, WAIT).block()).isEqualTo(2L);
            ref.tell("boom");
            ref.tell("inc");   // queued behind the failing message: kept, and handled by the restarted behaviour
            assertThat(ref.ask("get", Long.class, WAIT).block()).as(ref.name()).isEqualTo(1L);
        }
        assertThat(actors.counters().failures.get()).isEqualTo(2);
        assertThat(actors.counters().restarts.get()).isEqualTo(2);
        assertThat(errors).hasSize(2).allSatisfy(error -> assertThat(error)
            .isInstanceOf(ActorFailedException.class)
            .hasMessageContaining("restarting with its initial behaviour (restart 1 of at most 10"));
        assertThat(actors.stats(counter).restarts()).isEqualTo(1);
    }

    @Test
    void shouldDeliverPreRestartToTheFailedBehaviourAndFailTheAsker()
    {
        final List<Signal> signals = new CopyOnWriteArrayList<>();
        final ActorRef<String> actor = actors.spawn("fragile", Behaviors.receive((context, message) ->
        {
            throw new IllegalStateException("no " + message);
        }, (context, signal) ->
        {
            signals.add(signal);
            return Behaviors.same();
        }));

        StepVerifier.create(actor.ask("thanks", String.class, WAIT))
            .expectErrorSatisfies(error -> assertThat(error)
                .isInstanceOf(ActorFailedException.class)
                .hasMessageContaining("no thanks")
                .hasCauseInstanceOf(IllegalStateException.class))
            .verify(WAIT);
        Await.until("the restart", () -> actors.stats(actor).restarts() == 1);
        assertThat(signals).singleElement().isInstanceOfSatisfying(PreRestart.class,
            preRestart -> assertThat(preRestart.cause()).hasMessage("no thanks"));
    }

    @Test
    void shouldBackOffBeforeRestarting()
    {
        final long backoffMs = 150;
        final ActorRef<String> counter = actors.spawn("counter", RemoteActorSuite.counterBehavior(),
            ActorOptions.defaults().supervision(SupervisorStrategy.restart()
                .withBackoff(Duration.ofMillis(backoffMs), Duration.ofSeconds(1))));
        counter.tell("inc");
        assertThat(counter.ask("get", Long.class, WAIT).block()).isEqualTo(1L);

        final long startNs = System.nanoTime();
        counter.tell("boom");
        assertThat(counter.ask("get", Long.class, WAIT).block()).isEqualTo(0L);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs))
            .as("the restart waited for its back-off")
            .isGreaterThanOrEqualTo(backoffMs - 10);
        assertThat(errors).singleElement().satisfies(error -> assertThat(error)
            .hasMessageContaining("after a back-off of " + backoffMs + " ms"));
    }

    @Test
    void shouldStopWhenTheRestartLimitIsReached() throws Exception
    {
        final ActorRef<String> counter = actors.spawn("counter", RemoteActorSuite.counterBehavior(),
            ActorOptions.defaults().supervision(SupervisorStrategy.restart().withLimit(2, Duration.ofMinutes(1))));
        final CompletableFuture<Terminated> watch = actors.watch(counter).toFuture();

        counter.tell("boom");
        counter.tell("boom");
        counter.tell("boom");

        final Terminated terminated = watch.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(terminated.reason()).isEqualTo(Terminated.Reason.FAILED);
        assertThat(terminated.detail()).contains("boom");
        assertThat(actors.counters().restarts.get()).isEqualTo(2);
        assertThat(actors.counters().stopped.get()).isEqualTo(1);
        assertThat(errors.get(2)).hasMessageContaining("restart limit of 2");
        counter.tell("inc");
        assertThat(actors.counters().deadLetters.get()).isEqualTo(1);
    }

    @Test
    void shouldStopOrResumePerStrategy() throws Exception
    {
        final ActorRef<String> stopping = actors.spawn("stopping", RemoteActorSuite.counterBehavior(),
            ActorOptions.defaults().supervision(SupervisorStrategy.stop()));
        final ActorRef<String> resuming = actors.spawn("resuming", RemoteActorSuite.counterBehavior(),
            ActorOptions.defaults().supervision(SupervisorStrategy.resume()));

        final CompletableFuture<Terminated> watch = actors.watch(stopping).toFuture();
        stopping.tell("boom");
        assertThat(watch.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).reason()).isEqualTo(Terminated.Reason.FAILED);

        resuming.tell("inc");
        resuming.tell("boom");
        resuming.tell("inc");
        assertThat(resuming.ask("get", Long.class, WAIT).block()).as("resume keeps the state").isEqualTo(2L);
    }

    @Test
    void shouldDeliverTerminatedToWatchersAndPostStopToTheActor() throws Exception
    {
        final List<Signal> workerSignals = new CopyOnWriteArrayList<>();
        final ActorRef<String> worker = actors.spawn("worker", Behaviors.receive((context, message) ->
            Behaviors.same(), (context, signal) ->
        {
            workerSignals.add(signal);
            return Behaviors.same();
        }));
        final CompletableFuture<Terminated> seen = new CompletableFuture<>();
        actors.spawn("watcher", Behaviors.<String>setup(context ->
        {
            context.watch(worker);
            context.watch(worker); // twice is once
            return Behaviors.receive((ctx, message) -> Behaviors.same(), (ctx, signal) ->
            {
                if (!seen.complete((Terminated)signal))
                {
                    throw new IllegalStateException("a second Terminated");
                }
                return Behaviors.same();
            });
        }));
        final CompletableFuture<Terminated> unwatched = new CompletableFuture<>();
        final ActorRef<String> changedItsMind = actors.spawn("unwatcher", Behaviors.<String>setup(context ->
        {
            context.watch(worker);
            return Behaviors.receive((ctx, message) ->
            {
                ctx.unwatch(worker);
                ctx.reply("ok");
                return Behaviors.same();
            }, (ctx, signal) ->
            {
                unwatched.complete((Terminated)signal);
                return Behaviors.same();
            });
        }));
        assertThat(changedItsMind.ask("unwatch", String.class, WAIT).block()).isEqualTo("ok");
        Await.until("the watches", () -> actors.cell("worker").watcherCount() == 1);

        actors.stop(worker);

        assertThat(seen.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
            .isEqualTo(new Terminated(worker.path(), Terminated.Reason.STOPPED, ""));
        assertThat(workerSignals).containsExactly(new PostStop(Terminated.Reason.STOPPED));
        assertThat(actors.watch(worker).block(WAIT).reason()).as("a late watch replays the termination")
            .isEqualTo(Terminated.Reason.STOPPED);
        assertThat(actors.watch(actors.lookup("ghost", String.class)).block(WAIT).reason())
            .isEqualTo(Terminated.Reason.NOT_FOUND);
        assertThat(unwatched).isNotDone();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldRejectWhenARejectMailboxIsFullAndStayBounded() throws Exception
    {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicLong handled = new AtomicLong();
        final ActorRef<Tick> slow = actors.spawn("slow", (context, tick) ->
        {
            entered.countDown();
            release.await();
            handled.incrementAndGet();
            return Behaviors.same();
        }, ActorOptions.defaults().mailbox(8, OverflowPolicy.REJECT));

        slow.tell(new Tick(0, 0));
        assertThat(entered.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        for (int i = 1; i <= 8; i++)
        {
            slow.tell(new Tick(0, i));
        }
        assertThatThrownBy(() -> slow.tell(new Tick(0, 9)))
            .isInstanceOf(MailboxFullException.class)
            .hasMessageContaining("REJECT");
        assertThat(slow.tryTell(new Tick(0, 10))).isFalse();
        StepVerifier.create(slow.ask(new Tick(0, 11), String.class, WAIT))
            .expectError(MailboxFullException.class)
            .verify(WAIT);
        for (int i = 0; i < 100_000; i++)
        {
            slow.tryTell(new Tick(1, i));
        }

        final ActorStats stats = actors.stats(slow);
        assertThat(stats.queued()).isEqualTo(8);
        assertThat(stats.highWaterMark()).isEqualTo(8).isEqualTo(stats.capacity());
        assertThat(stats.rejected()).isEqualTo(100_003);
        assertThat(actors.counters().mailboxRejected.get()).isEqualTo(100_003);
        release.countDown();
        Await.until("the accepted messages are handled", () -> handled.get() == 9);
    }

    @Test
    void shouldBackPressureSendersOfAFullMailbox() throws Exception
    {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<Long> handled = new CopyOnWriteArrayList<>();
        final ActorRef<Tick> slow = actors.spawn("slow", (context, tick) ->
        {
            entered.countDown();
            release.await();
            handled.add(tick.sequence());
            if (context.replier().expectsReply())
            {
                context.reply("done " + tick.sequence());
            }
            return Behaviors.same();
        }, ActorOptions.defaults().mailbox(4, OverflowPolicy.BACK_PRESSURE));

        slow.tell(new Tick(0, 0));
        assertThat(entered.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        for (int i = 1; i <= 4; i++)
        {
            slow.tell(new Tick(0, i));
        }
        final long startNs = System.nanoTime();
        assertThatThrownBy(() -> slow.tell(new Tick(0, 99)))
            .isInstanceOf(MailboxFullException.class)
            .hasMessageContaining("stayed full for 200 ms");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs)).isGreaterThanOrEqualTo(190);
        assertThat(slow.tryTell(new Tick(0, 99))).isFalse();
        assertThat(actors.stats(slow).rejected()).as("back-pressure rejects nothing by itself").isZero();

        // A waiting ask does not block its subscriber; it gets in once there is room.
        final CompletableFuture<String> ask = slow.ask(new Tick(0, 6), String.class, WAIT).toFuture();
        final AtomicReference<Throwable> waiterError = new AtomicReference<>();
        final Thread waiter = new Thread(() ->
        {
            try
            {
                slow.tell(new Tick(0, 5));
            }
            catch (final Throwable ex)
            {
                waiterError.set(ex);
            }
        });
        waiter.start();
        Await.until("the sender is waiting", () -> actors.counters().backPressureWaits.get() >= 3);
        release.countDown();
        assertThat(ask.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("done 6");
        waiter.join(WAIT.toMillis());
        assertThat(waiterError.get()).isNull();
        Await.until("all handled", () -> handled.size() == 7);
        assertThat(handled.subList(0, 5)).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(actors.stats(slow).highWaterMark()).isLessThanOrEqualTo(4);
    }

    @Test
    void shouldPipeAsynchronousResultsBackAsMessages()
    {
        final ActorRef<String> pricing = actors.spawn("pricing", (context, symbol) ->
        {
            context.reply(symbol.length() * 100L);
            return Behaviors.same();
        });
        final ActorRef<Object> orders = actors.spawn("orders", Behaviors.setup(context ->
        {
            final Replier[] waiting = new Replier[1];
            return (ctx, message) ->
            {
                if (message instanceof String symbol)
                {
                    waiting[0] = ctx.replier();
                    ctx.pipeToSelf(pricing.ask(symbol, Long.class, WAIT), (price, error) -> error == null ? price : error);
                }
                else if (message instanceof Long price)
                {
                    waiting[0].reply("filled at " + price);
                }
                return Behaviors.same();
            };
        }));

        StepVerifier.create(orders.ask("EURUSD", String.class, WAIT))
            .expectNext("filled at 600")
            .verifyComplete();
    }

    @Test
    void shouldNameAndFindActors()
    {
        final ActorRef<String> first = actors.spawn("name-1", (context, message) -> Behaviors.stopped());
        assertThatThrownBy(() -> actors.spawn("name-1", (context, message) -> Behaviors.same()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("already running");
        assertThatThrownBy(() -> actors.spawn("bad/name", (context, message) -> Behaviors.same()))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> actors.lookup("rivulet://nohost/x", String.class))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> actors.lookup("rivulet://host:99999/x", String.class))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(actors.lookup(first.path(), String.class).isLocal()).isTrue();
        assertThat(actors.lookup("name-1", String.class)).isEqualTo(first);
        assertThat(actors.lookup("rivulet://127.0.0.1:7070/name-1", String.class).isLocal()).isFalse();

        // The name is free again once the actor stopped, and an old ref reaches the new actor.
        first.tell("stop");
        Await.until("the actor stopped", () -> actors.cell("name-1") == null);
        final ActorRef<String> second = actors.spawn("name-1", (context, message) ->
        {
            context.reply("second");
            return Behaviors.same();
        });
        assertThat(first.ask("who", String.class, WAIT).block()).isEqualTo("second");
        assertThat(second).isEqualTo(first);
    }

    @Test
    void shouldTreatAFailingSetupLikeAFailure() throws Exception
    {
        final AtomicInteger attempts = new AtomicInteger();
        final ActorRef<String> actor = actors.spawn("flaky-start", Behaviors.setup(context ->
        {
            if (attempts.incrementAndGet() < 3)
            {
                throw new IllegalStateException("not yet");
            }
            return (ctx, message) ->
            {
                ctx.reply("started after " + attempts.get());
                return Behaviors.same();
            };
        }));
        assertThat(actor.ask("hi", String.class, WAIT).block()).isEqualTo("started after 3");
        assertThat(actors.stats(actor).restarts()).isEqualTo(2);

        final ActorRef<String> hopeless = actors.spawn("hopeless", Behaviors.setup(context ->
        {
            throw new IllegalStateException("never");
        }), ActorOptions.defaults().supervision(SupervisorStrategy.restart().withLimit(5, Duration.ofMinutes(1))));
        assertThat(actors.watch(hopeless).block(WAIT).reason()).isEqualTo(Terminated.Reason.FAILED);
        assertThat(actors.counters().restarts.get()).as("2 + the limit of 5").isEqualTo(7);
    }
}
