package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.ReliableLink;
import io.rivulet.tck.Await;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.tcp.ForwardingTransport.ForwardingLink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A poll that delivers no frame can still leave a link owing its peer something only a flush sends: an RDMA SEND
 * that carried only credits re-posts a receive, a credit the peer may be waiting for. The engine asks the link after
 * every poll ({@code ReliableLink.needsFlushAfterPoll}) and brings a resting connection back to the sender when it
 * says so. The client's link here is a TCP link that, once told to, owes its peer a flush after its next poll;
 * the client runs in INVOKER mode, so its cycles are stepped from the test thread.
 */
class SenderWakeAfterPollTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    /** Cycles that let an idle connection's sender rest, and then the most a flush may wait: a keepalive is far off. */
    private static final int CYCLES = 200;

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

    @Test
    void shouldFlushALinkThatOwesItsPeerAfterAPollThatDeliveredNoFrame()
    {
        final Rivulet server = Rivulet.launch(new Rivulet.Context()
            .transport(new TcpTransport())
            .threadingMode(ThreadingMode.SHARED)
            .errorHandler(errors::add));
        nodes.add(server);
        final Server bound = server.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("re:" + request.dataUtf8())))
            .build()).block(TIMEOUT);

        final OwingLink[] clientLink = new OwingLink[1];
        final Rivulet client = Rivulet.launch(new Rivulet.Context()
            .transport(new ForwardingTransport(new TcpTransport(), link -> clientLink[0] = new OwingLink(link)))
            .threadingMode(ThreadingMode.INVOKER)
            .errorHandler(errors::add));
        nodes.add(client);
        final AtomicReference<Connection> connected = new AtomicReference<>();
        client.connect(bound.localAddress()).subscribe(connected::set, errors::add);
        Await.until(TIMEOUT, client::invoke, () -> connected.get() != null, () -> "connected, invoking the client");
        final AtomicReference<Message> reply = new AtomicReference<>();
        connected.get().requestResponse(Message.of("warm")).subscribe(reply::set, errors::add);
        Await.until(TIMEOUT, client::invoke, () -> reply.get() != null, () -> "a first exchange");
        for (int i = 0; i < CYCLES; i++)
        {
            client.invoke(); // nothing to send: the client's sender lets the connection rest
        }

        final OwingLink link = clientLink[0];
        link.oweAfterNextPoll = true;
        int cycles = 0;
        while (link.owedFlushes == 0 && cycles < CYCLES)
        {
            client.invoke();
            cycles++;
        }

        assertThat(link.owingPolls).as("a poll that delivered no frame left the link owing").isEqualTo(1);
        assertThat(link.owedFlushes).as("the sender came back and flushed it, %d cycles on", cycles).isEqualTo(1);
        assertThat(link.isFlushed()).isTrue();
        assertThat(errors).isEmpty();
    }

    /** A client link that owes its peer a flush after a poll once the test says so; the invoking thread only. */
    private static final class OwingLink extends ForwardingLink
    {
        boolean oweAfterNextPoll;
        boolean owing;
        boolean lastPollOwed;
        int owingPolls;
        int owedFlushes;

        OwingLink(final ReliableLink link)
        {
            super(link);
        }

        @Override
        public int poll(final FrameHandler handler, final int frameLimit) throws IOException
        {
            final int frames = super.poll(handler, frameLimit);
            lastPollOwed = oweAfterNextPoll && frames == 0;
            if (lastPollOwed)
            {
                oweAfterNextPoll = false;
                owing = true;
                owingPolls++;
            }
            return frames;
        }

        @Override
        public boolean needsFlushAfterPoll(final int framesDelivered)
        {
            return lastPollOwed || super.needsFlushAfterPoll(framesDelivered);
        }

        @Override
        public int flush() throws IOException
        {
            if (owing)
            {
                owing = false;
                owedFlushes++;
            }
            return super.flush();
        }

        @Override
        public boolean isFlushed()
        {
            return !owing && super.isFlushed();
        }
    }
}
