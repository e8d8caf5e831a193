package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code block()} on a request-response waits with the node's reply idle strategy (issue 16): every strategy gets
 * the reply, a timeout and an interrupt cancel the request, and an INVOKER node's caller runs the duty cycle itself
 * while it waits, so blocking needs no second thread. A default SHARED node's engine lends its cycle to a blocked
 * caller while it would sleep (EngineLoan): the caller reads its own reply, cannot block inside that cycle, may be
 * interrupted without harm to the connection, shares the loan with other blocked threads, and a close ends its wait.
 */
class ReplyWaitTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();
    private final Map<String, Sinks.Empty<Void>> holds = new ConcurrentHashMap<>();

    @AfterEach
    void closeNodes()
    {
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"backoff", "park", "busy", "yield"})
    @ScaledTimeout(60)
    void shouldReturnEveryReplyWithEachIdleStrategy(final String strategy)
    {
        final Server server = launch(ThreadingMode.SHARED, "backoff").bind("127.0.0.1:0", echo()).block(TIMEOUT);
        final Connection connection = launch(ThreadingMode.SHARED, strategy).connect(server.localAddress())
            .block(TIMEOUT);

        for (int i = 0; i < 2_000; i++)
        {
            assertThat(connection.requestResponse(Message.of("m" + i)).block(TIMEOUT).dataUtf8()).isEqualTo("m" + i);
        }
        assertThat(connection.requestResponse(Message.of("unbounded")).block().dataUtf8()).isEqualTo("unbounded");
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(60)
    void shouldRunAnInvokerNodesDutyCycleWhileBlockingSoNoOtherThreadIsNeeded()
    {
        final Server server = launch(ThreadingMode.SHARED, "backoff").bind("127.0.0.1:0", echo()).block(TIMEOUT);
        final Rivulet client = launch(ThreadingMode.INVOKER, "backoff");
        final AtomicReference<Connection> connected = new AtomicReference<>();
        client.connect(server.localAddress()).subscribe(connected::set, errors::add);
        Await.until(TIMEOUT, client::invoke, () -> connected.get() != null, () -> "connected, invoking the node");

        // Nothing else invokes the client node: block() itself must run its duty cycle.
        for (int i = 0; i < 1_000; i++)
        {
            assertThat(connected.get().requestResponse(Message.of("i" + i)).block(TIMEOUT).dataUtf8())
                .isEqualTo("i" + i);
        }
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(60)
    void shouldRefuseToBlockInsideAnInvokerNodesDutyCycle()
    {
        final Server server = launch(ThreadingMode.SHARED, "backoff").bind("127.0.0.1:0", echo()).block(TIMEOUT);
        final Rivulet client = launch(ThreadingMode.INVOKER, "busy");
        final AtomicReference<Connection> connected = new AtomicReference<>();
        client.connect(server.localAddress()).subscribe(connected::set, errors::add);
        Await.until(TIMEOUT, client::invoke, () -> connected.get() != null, () -> "connected, invoking the node");
        final AtomicReference<Throwable> refused = new AtomicReference<>();

        // A reply's subscriber runs on the duty cycle; blocking there could never see its own reply.
        connected.get().requestResponse(Message.of("outer")).subscribe(reply ->
        {
            try
            {
                connected.get().requestResponse(Message.of("inner")).block(TIMEOUT);
            }
            catch (final Throwable error)
            {
                refused.set(error);
            }
        });
        Await.until(TIMEOUT, client::invoke, () -> refused.get() != null, () -> "the nested block() refused");

        assertThat(refused.get()).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("inside the engine's duty cycle");
    }

    @ParameterizedTest
    @ValueSource(strings = {"backoff", "busy"})
    @ScaledTimeout(60)
    void shouldCancelTheRequestWhenTheWaitTimesOut(final String strategy)
    {
        final AtomicBoolean cancelled = new AtomicBoolean();
        final Server server = launch(ThreadingMode.SHARED, "backoff").bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.<Message>never().doOnCancel(() -> cancelled.set(true))).build())
            .block(TIMEOUT);
        final Connection connection = launch(ThreadingMode.SHARED, strategy).connect(server.localAddress())
            .block(TIMEOUT);

        assertThatThrownBy(() -> connection.requestResponse(Message.of("slow")).block(Duration.ofMillis(50)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("Timeout on blocking read");
        Await.until(TIMEOUT, cancelled::get, () -> "the server's handler cancelled");
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(60)
    void shouldCancelTheRequestWhenTheWaitingThreadIsInterrupted() throws Exception
    {
        final AtomicBoolean cancelled = new AtomicBoolean();
        final CountDownLatch handled = new CountDownLatch(1);
        final Server server = launch(ThreadingMode.SHARED, "backoff").bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.<Message>never()
                .doOnSubscribe(subscription -> handled.countDown())
                .doOnCancel(() -> cancelled.set(true))).build())
            .block(TIMEOUT);
        final Connection connection = launch(ThreadingMode.SHARED, "park").connect(server.localAddress())
            .block(TIMEOUT);
        final BlockedCaller waiter = new BlockedCaller(TIMEOUT,
            () -> connection.requestResponse(Message.of("wait")).block(TIMEOUT));
        assertThat(handled.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        waiter.interrupt();
        waiter.join();

        assertThat(waiter.thrown()).isNotNull().satisfies(error ->
            assertThat(error.getCause()).isInstanceOf(InterruptedException.class));
        Await.until(TIMEOUT, cancelled::get, () -> "the server's handler cancelled");
    }

    @Test
    @ScaledTimeout(60)
    void shouldThrowTheRepliesErrorFromBlock()
    {
        final Server server = launch(ThreadingMode.SHARED, "backoff").bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.error(new IllegalArgumentException("no such symbol"))).build())
            .block(TIMEOUT);
        final Connection connection = launch(ThreadingMode.SHARED, "busy").connect(server.localAddress())
            .block(TIMEOUT);

        assertThatThrownBy(() -> connection.requestResponse(Message.of("XYZ")).block(TIMEOUT))
            .isInstanceOf(io.rivulet.ApplicationErrorException.class).hasMessageContaining("no such symbol");
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    @ScaledTimeout(60)
    void shouldRunASleepingEnginesCycleOnTheBlockedCallersThreadUnlessToldNotTo(final boolean runsEngine)
        throws Exception
    {
        final Server server = launch(ThreadingMode.SHARED, "park").bind("127.0.0.1:0", heldEcho("held"))
            .block(TIMEOUT);
        final AtomicReference<Thread> engine = new AtomicReference<>();
        final Rivulet client = launch(new Rivulet.Context().threadFactory(runnable ->
        {
            final Thread thread = new Thread(runnable, "client-engine");
            engine.set(thread);
            return thread;
        }), "park", runsEngine);
        final Connection connection = client.connect(server.localAddress()).block(TIMEOUT);

        // The reply is held until released: the client's engine reaches its sleep point with the caller waiting.
        final BlockedCaller caller = new BlockedCaller(TIMEOUT,
            () -> connection.requestResponse(Message.of("held")).block(TIMEOUT));
        // Who sleeps in the selector, in 20 looks in a row (a moment between two states does not count).
        final String sleeper = "TcpTransportDriver.awaitWork";
        final AtomicInteger inARow = new AtomicInteger();
        Await.until(TIMEOUT, () ->
        {
            final boolean held = runsEngine ?
                caller.stack().contains("EngineLoan.runBorrowed") && caller.stack().contains(sleeper) :
                caller.stack().contains(".park") && Arrays.toString(engine.get().getStackTrace()).contains(sleeper);
            return (held ? inARow.incrementAndGet() : inARow.getAndSet(0)) >= 20;
        }, () -> (runsEngine ? "the caller runs the engine's cycle, asleep in the selector: " :
            "the caller parks while the engine sleeps in the selector: ") + caller.stack());
        release("held");
        caller.join();

        assertThat(caller.reply().dataUtf8()).isEqualTo("held");
        for (int i = 0; i < 500; i++)
        {
            assertThat(connection.requestResponse(Message.of("m" + i)).block(TIMEOUT).dataUtf8()).isEqualTo("m" + i);
        }
        assertThat(errors).isEmpty();
        // The node's counters tell which it was (rivulet stat, Micrometer): both slept in the selector.
        assertThat(client.counters().engineSleeps.get()).isPositive();
        if (runsEngine)
        {
            assertThat(client.counters().engineLoans.get()).isPositive();
        }
        else
        {
            assertThat(client.counters().engineLoans.get()).isZero();
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldRefuseToBlockInsideACycleTheBlockedCallerRuns() throws Exception
    {
        final Server server = launch(ThreadingMode.SHARED, "park").bind("127.0.0.1:0",
            heldEcho("first", "second")).block(TIMEOUT);
        final Connection connection = launch("park", true).connect(server.localAddress()).block(TIMEOUT);
        final AtomicReference<Throwable> refused = new AtomicReference<>();
        final AtomicReference<Thread> deliveredOn = new AtomicReference<>();
        final Thread test = Thread.currentThread();

        // The first reply is released while this thread waits for the second and runs the cycle: its subscriber runs
        // there, and blocking in it could never see its own reply.
        final BlockedCaller releaser = new BlockedCaller(TIMEOUT, () ->
        {
            try
            {
                Await.until(TIMEOUT, () -> Arrays.toString(test.getStackTrace()).contains("EngineLoan.runBorrowed"),
                    () -> "the test's thread runs the engine's cycle");
                release("first");
                Await.until(TIMEOUT, () -> refused.get() != null, () -> "the nested block() refused");
                return null;
            }
            finally
            {
                release("second");
            }
        });
        connection.requestResponse(Message.of("first")).subscribe(reply ->
        {
            deliveredOn.set(Thread.currentThread());
            try
            {
                connection.requestResponse(Message.of("inner")).block(TIMEOUT);
            }
            catch (final Throwable error)
            {
                refused.set(error);
            }
        });
        assertThat(connection.requestResponse(Message.of("second")).block(TIMEOUT).dataUtf8()).isEqualTo("second");
        releaser.join();

        assertThat(releaser.thrown()).isNull();
        assertThat(deliveredOn.get()).isSameAs(Thread.currentThread());
        assertThat(refused.get()).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("inside the engine's duty cycle");
        assertThat(connection.requestResponse(Message.of("after")).block(TIMEOUT).dataUtf8()).isEqualTo("after");
    }

    @Test
    @ScaledTimeout(60)
    void shouldKeepTheConnectionWhenBlockedCallersRunningTheCycleAreInterrupted() throws Exception
    {
        final Server server = launch(ThreadingMode.SHARED, "park").bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> "hang".equals(request.dataUtf8()) ? Mono.never() : Mono.just(request))
            .build()).block(TIMEOUT);
        final Connection connection = launch("park", true).connect(server.localAddress()).block(TIMEOUT);

        // The JDK closes an interruptible channel interrupted during I/O in blocking mode; the TCP transport's
        // channels are non-blocking, so an interrupt, wherever it lands in a borrowed cycle, only ends the wait.
        for (int round = 0; round < 20; round++)
        {
            final CountDownLatch started = new CountDownLatch(1);
            final BlockedCaller waiter = new BlockedCaller(TIMEOUT, () ->
            {
                for (int i = 0; i < 50; i++)
                {
                    connection.requestResponse(Message.of("r" + i)).block(TIMEOUT);
                }
                started.countDown();
                return connection.requestResponse(Message.of("hang")).block(TIMEOUT);
            });
            assertThat(started.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            if (round % 2 == 1)
            {
                waiter.awaitIn("EngineLoan.runBorrowed"); // else at once: in the request's first cycles, or before
            }
            waiter.interrupt();
            waiter.join();

            assertThat(waiter.thrown()).as("round %d", round).isNotNull()
                .satisfies(error -> assertThat(error.getCause()).isInstanceOf(InterruptedException.class));
            assertThat(connection.requestResponse(Message.of("still")).block(TIMEOUT).dataUtf8()).isEqualTo("still");
        }
        assertThat(connection.isOpen()).isTrue();
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(60)
    void shouldServeSeveralThreadsBlockingAtOnceWhileOneOfThemRunsTheCycle() throws Exception
    {
        final Server server = launch(ThreadingMode.SHARED, "park").bind("127.0.0.1:0", echo()).block(TIMEOUT);
        final Connection connection = launch("park", true).connect(server.localAddress()).block(TIMEOUT);
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++)
        {
            final int id = t;
            threads.add(new Thread(() ->
            {
                try
                {
                    for (int i = 0; i < 500; i++)
                    {
                        final String text = id + ":" + i;
                        final String echoed = connection.requestResponse(Message.of(text)).block(TIMEOUT).dataUtf8();
                        if (!text.equals(echoed))
                        {
                            throw new AssertionError("expected " + text + ", got " + echoed);
                        }
                    }
                }
                catch (final Throwable error)
                {
                    failures.add(error);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (final Thread thread : threads)
        {
            thread.join(TIMEOUT.toMillis());
            assertThat(thread.isAlive()).isFalse();
        }
        assertThat(failures).isEmpty();
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(60)
    void shouldEndTheWaitOfACallerRunningTheCycleWhenItsNodeCloses() throws Exception
    {
        final CountDownLatch handled = new CountDownLatch(1);
        final Server server = launch(ThreadingMode.SHARED, "park").bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.<Message>never().doOnSubscribe(subscription -> handled.countDown()))
            .build()).block(TIMEOUT);
        final Rivulet client = launch("park", true);
        final Connection connection = client.connect(server.localAddress()).block(TIMEOUT);
        final BlockedCaller waiter = new BlockedCaller(TIMEOUT,
            () -> connection.requestResponse(Message.of("wait")).block(TIMEOUT));
        assertThat(handled.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        waiter.awaitIn("EngineLoan.runBorrowed"); // the client's engine has lent its cycle to the waiter

        final long startNs = System.nanoTime();
        client.close();
        waiter.join();

        assertThat(waiter.thrown()).isInstanceOf(io.rivulet.ConnectionClosedException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - startNs)).as("the close did not wait out a timeout")
            .isLessThan(Duration.ofSeconds(4));
    }

    /** Echoes, but holds the reply to each of {@code held} until the test releases it. */
    private Responder heldEcho(final String... held)
    {
        for (final String text : held)
        {
            holds.put(text, Sinks.empty());
        }
        return Responder.builder().requestResponse(request ->
        {
            final Sinks.Empty<Void> hold = holds.get(request.dataUtf8());
            return hold == null ? Mono.just(request) : Mono.just(request).delayUntil(ignored -> hold.asMono());
        }).build();
    }

    private void release(final String held)
    {
        holds.get(held).tryEmitEmpty();
    }

    private static Responder echo()
    {
        return Responder.builder().requestResponse(Mono::just).build();
    }

    private Rivulet launch(final String replyIdleStrategy, final boolean replyWaitRunsEngine)
    {
        return launch(new Rivulet.Context(), replyIdleStrategy, replyWaitRunsEngine);
    }

    private Rivulet launch(final Rivulet.Context context, final String replyIdleStrategy,
        final boolean replyWaitRunsEngine)
    {
        final Rivulet node = Rivulet.launch(context
            .transport(new TcpTransport())
            .replyIdleStrategy(replyIdleStrategy)
            .replyWaitRunsEngine(replyWaitRunsEngine)
            .errorHandler(errors::add));
        nodes.add(node);
        return node;
    }

    private Rivulet launch(final ThreadingMode mode, final String replyIdleStrategy)
    {
        final Rivulet node = Rivulet.launch(new Rivulet.Context()
            .transport(new TcpTransport())
            .threadingMode(mode)
            .replyIdleStrategy(replyIdleStrategy)
            .errorHandler(errors::add));
        nodes.add(node);
        return node;
    }
}
