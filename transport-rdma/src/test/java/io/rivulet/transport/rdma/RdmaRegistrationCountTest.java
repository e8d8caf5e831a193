package io.rivulet.transport.rdma;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Design section 2, "register once": memory is registered when the nodes start and, at the latest, when
 * their link is set up; 100,000 messages through the Rivulet API over RDMA register nothing more, neither in
 * the memory pool nor on the device. Over the soft provider here; the hardware suites run it over ibverbs and
 * disni with their provider and address ({@link #transport()}, {@link #bindAddress()}).
 */
class RdmaRegistrationCountTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final int MESSAGES = 100_000;
    private static final int REQUESTS = 1_000;

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    @Test
    @ScaledTimeout(180)
    void shouldRegisterNothingWhileMessagesFlow()
    {
        final RdmaTransport transport = transport();
        final AtomicLong received = new AtomicLong();
        try (Rivulet serverNode = Rivulet.launch(context(transport));
            Rivulet clientNode = Rivulet.launch(context(transport)))
        {
            final Server server = serverNode.bind(bindAddress(), Responder.builder()
                .fireAndForgetHandler(message -> received.incrementAndGet())
                .requestResponse(Mono::just)
                .build()).block(TIMEOUT);
            final Connection connection = clientNode.connect(server.localAddress()).block(TIMEOUT);
            assertThat(connection.requestResponse(Message.of("warm-up")).block(TIMEOUT)).isNotNull();

            assertThat(transport.drivers()).hasSize(2);
            final long before = transport.registrations();
            final long deviceBefore = deviceRegistrations(transport);
            assertThat(before).isPositive();

            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
            for (int i = 0; i < MESSAGES; i++)
            {
                buffer.putInt(0, i);
                long result;
                while ((result = connection.offer(buffer, 0, 64)) < 0)
                {
                    if (Connection.CLOSED == result)
                    {
                        fail("connection closed after " + i + " messages: " + errors);
                    }
                    LockSupport.parkNanos(1_000);
                }
            }
            for (int i = 0; i < REQUESTS; i++)
            {
                assertThat(connection.requestResponse(Message.of("r" + i)).block(TIMEOUT).dataUtf8()).isEqualTo("r" + i);
            }
            Await.until(TestTime.seconds(60), () -> received.get() >= MESSAGES,
                () -> "every message received: " + received.get() + " of " + MESSAGES);

            assertThat(received.get()).isEqualTo(MESSAGES);
            assertThat(transport.registrations()).isEqualTo(before);
            assertThat(deviceRegistrations(transport)).as("registrations the devices saw").isEqualTo(deviceBefore);
            for (final RdmaTransportDriver driver : transport.drivers())
            {
                assertThat(driver.memoryPool().liveRegistrations()).isEqualTo(driver.memoryPool().registrations());
                assertThat(driver.memoryPool().linksInUse()).isEqualTo(1);
            }
            assertThat(errors).isEmpty();
        }
        assertThat(transport.drivers()).isEmpty();
    }

    /** @return the transport under test: the soft provider's in-process fabric here. */
    protected RdmaTransport transport()
    {
        return new RdmaTransport(RdmaTestSupport.provider());
    }

    /** @return where the server node listens. */
    protected String bindAddress()
    {
        return "127.0.0.1:0";
    }

    private static long deviceRegistrations(final RdmaTransport transport)
    {
        long total = 0;
        for (final RdmaTransportDriver driver : transport.drivers())
        {
            total += driver.verbsContext().totalRegistrations();
        }
        return total;
    }

    private Rivulet.Context context(final RdmaTransport transport)
    {
        return new Rivulet.Context()
            .transport(transport)
            .threadingMode(ThreadingMode.SHARED)
            .errorHandler(errors::add);
    }
}
