package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.RepeatedTest;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests open on their callers' threads (issue 16), so a close can race them: whichever side sees the other,
 * every request ends, with its reply or with the close, and none is left waiting.
 */
class RequestsDuringCloseTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final int CALLERS = 4;
    private static final int REQUESTS_PER_CALLER = 2_000;

    @RepeatedTest(10)
    @ScaledTimeout(120)
    void shouldEndEveryRequestWhenTheConnectionClosesUnderItsCallers() throws Exception
    {
        try (Rivulet serverNode = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()));
            Rivulet clientNode = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport())))
        {
            final Server server = serverNode.bind("127.0.0.1:0", Responder.builder()
                .requestResponse(Mono::just).build()).block(TIMEOUT);
            final Connection connection = clientNode.connect(server.localAddress()).block(TIMEOUT);
            final AtomicInteger replied = new AtomicInteger();
            final AtomicInteger failed = new AtomicInteger();
            final AtomicInteger unexpected = new AtomicInteger();
            final CountDownLatch ended = new CountDownLatch(CALLERS * REQUESTS_PER_CALLER);
            final CountDownLatch started = new CountDownLatch(CALLERS);
            final List<Thread> callers = new ArrayList<>();
            for (int c = 0; c < CALLERS; c++)
            {
                final Thread caller = new Thread(() ->
                {
                    started.countDown();
                    for (int i = 0; i < REQUESTS_PER_CALLER; i++)
                    {
                        connection.requestResponse(Message.of("r" + i)).subscribe(
                            reply -> replied.incrementAndGet(),
                            error ->
                            {
                                if (!(error instanceof io.rivulet.RivuletException))
                                {
                                    unexpected.incrementAndGet();
                                }
                                failed.incrementAndGet();
                                ended.countDown();
                            },
                            ended::countDown);
                    }
                });
                callers.add(caller);
                caller.start();
            }
            started.await();
            connection.close(); // while the callers are still opening requests

            for (final Thread caller : callers)
            {
                caller.join(TIMEOUT.toMillis());
            }
            assertThat(ended.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
                .as("every request ended: %d replied, %d failed, %d left waiting", replied.get(), failed.get(),
                    ended.getCount())
                .isTrue();
            assertThat(unexpected).as("failures other than the close").hasValue(0);
            assertThat(replied.get() + failed.get()).isEqualTo(CALLERS * REQUESTS_PER_CALLER);
        }
    }
}
