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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code block()} on a request-response waits with the node's reply idle strategy (issue 16): every strategy gets
 * the reply, a timeout and an interrupt cancel the request, and an INVOKER node's caller runs the duty cycle itself
 * while it waits, so blocking needs no second thread.
 */
class ReplyWaitTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();

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
        final AtomicReference<Throwable> thrown = new AtomicReference<>();
        final Thread waiter = new Thread(() ->
        {
            try
            {
                connection.requestResponse(Message.of("wait")).block(TIMEOUT);
            }
            catch (final Throwable error)
            {
                thrown.set(error);
            }
        });
        waiter.start();
        assertThat(handled.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        waiter.interrupt();
        waiter.join(TIMEOUT.toMillis());

        assertThat(thrown.get()).isNotNull().satisfies(error ->
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

    private static Responder echo()
    {
        return Responder.builder().requestResponse(Mono::just).build();
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
