package io.rivulet.transport.tcp;

import io.rivulet.Message;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.security.Authenticator;
import io.rivulet.security.ThrottledAuthenticator;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Failed authentications back off per address, end to end over TCP: a client guessing tokens from 127.0.0.1 is
 * refused without the application's authenticator being asked, and its {@code connect} says when to retry, while a
 * client with the right token from 127.0.0.2 is served at once.
 */
class AuthenticationThrottleTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);
    /** Long enough that every attempt below falls inside it, however loaded the machine. */
    private static final long WINDOW_MS = TestTime.millis(10_000);
    private static final int MAX_FRAME_LENGTH = 16 * 1024;

    private final List<Rivulet> nodes = new ArrayList<>();
    private final List<Throwable> serverErrors = new CopyOnWriteArrayList<>();
    private final AtomicInteger authenticatorCalls = new AtomicInteger();

    @AfterEach
    void close()
    {
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldRefuseAGuessingAddressWithoutAskingTheAuthenticatorAndServeAnotherAddress() throws IOException
    {
        final Authenticator tokens = Authenticator.tokens("s3cret");
        final Rivulet serverNode;
        System.setProperty(ThrottledAuthenticator.INITIAL_PROPERTY, WINDOW_MS + "ms");
        try
        {
            serverNode = launch(new Rivulet.Context().authenticator(credentials ->
            {
                authenticatorCalls.incrementAndGet();
                tokens.authenticate(credentials);
            }).errorHandler(serverErrors::add));
        }
        finally
        {
            System.clearProperty(ThrottledAuthenticator.INITIAL_PROPERTY); // read once, when the node starts
        }
        final Server server = serverNode.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("echo:" + request.dataUtf8())))
            .build()).block(TIMEOUT);
        final String address = server.localAddress();

        final Rivulet guesser = launch(new Rivulet.Context().authToken("guess"));
        assertThatThrownBy(() -> guesser.connect(address).block(TIMEOUT)).isInstanceOf(RejectedException.class)
            .hasMessageContaining("token not accepted").hasMessageNotContaining("refused for");
        assertThatThrownBy(() -> guesser.connect(address).block(TIMEOUT)).isInstanceOf(RejectedException.class)
            .hasMessageContaining("token not accepted; further attempts from 127.0.0.1 are refused for " + WINDOW_MS +
                " ms");
        assertThat(authenticatorCalls.get()).isEqualTo(2);

        for (int i = 0; i < 5; i++)
        {
            assertThatThrownBy(() -> guesser.connect(address).block(TIMEOUT)).isInstanceOf(RejectedException.class)
                .hasMessageContaining("connection rejected by " + address)
                .hasMessageContaining("too many failed authentications from 127.0.0.1; retry after ")
                .hasMessageEndingWith(" ms");
        }
        assertThat(authenticatorCalls.get()).as("refused attempts never reach the application's authenticator")
            .isEqualTo(2);

        // The address waits, whatever it presents: the right token from it is refused too, until the window ends.
        final Rivulet sameAddress = launch(new Rivulet.Context().authToken("s3cret"));
        assertThatThrownBy(() -> sameAddress.connect(address).block(TIMEOUT)).isInstanceOf(RejectedException.class)
            .hasMessageContaining("too many failed authentications from 127.0.0.1");

        // Another address is not affected.
        assertThat(echoFrom("127.0.0.2", address, "s3cret", "hello")).isEqualTo("echo:hello");
        assertThat(authenticatorCalls.get()).isEqualTo(3);
        assertThat(serverNode.counters().setupsRejected.get()).isEqualTo(2 + 5 + 1);
        assertThat(serverErrors).filteredOn(error -> error.getMessage().contains("too many failed authentications"))
            .hasSize(6);
    }

    /**
     * A client with no engine: connects from {@code sourceHost} (a Rivulet client always leaves from 127.0.0.1 on
     * loopback), sends SETUP with the token, waits for the server's acceptance (its SETUP answer), then one
     * request-response.
     */
    private static String echoFrom(final String sourceHost, final String address, final String token,
        final String text) throws IOException
    {
        final RawFrames frames = new RawFrames();
        try (Socket socket = new Socket())
        {
            try
            {
                socket.bind(new InetSocketAddress(sourceHost, 0));
            }
            catch (final BindException ex)
            {
                Assumptions.abort("cannot bind " + sourceHost + " on this host: " + ex.getMessage());
            }
            final int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
            socket.connect(new InetSocketAddress("127.0.0.1", port), (int)TIMEOUT.toMillis());
            socket.setSoTimeout((int)TIMEOUT.toMillis());
            final InputStream in = socket.getInputStream();
            socket.getOutputStream().write(frames.setup(token, (int)TestTime.millis(1_000), (int)TestTime.millis(5_000),
                MAX_FRAME_LENGTH));
            final RawFrames.Frame accepted = frames.read(in, MAX_FRAME_LENGTH);
            // Acceptance: the server's SETUP answer (an older server's KEEPALIVE), never an ERROR.
            assertThat(accepted.type()).as("the server's first frame: %s", accepted)
                .isIn(FrameType.SETUP, FrameType.KEEPALIVE);
            socket.getOutputStream().write(frames.payloadFrame(FrameType.REQUEST_RESPONSE, 1, 0, (byte)0,
                text.getBytes(StandardCharsets.UTF_8)));
            for (int i = 0; i < 16; i++)
            {
                final RawFrames.Frame frame = frames.read(in, MAX_FRAME_LENGTH);
                if (frame.type() == FrameType.PAYLOAD && frame.streamId() == 1)
                {
                    assertThat(frame.flags() & FrameFlags.NEXT).isNotZero();
                    return new String(frame.data(), StandardCharsets.UTF_8);
                }
                assertThat(frame.type()).as("before the reply: %s", frame).isIn(FrameType.SETUP, FrameType.KEEPALIVE);
            }
            throw new AssertionError("no reply among 16 frames");
        }
    }

    private Rivulet launch(final Rivulet.Context context)
    {
        final Rivulet node = Rivulet.launch(context.transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED));
        nodes.add(node);
        return node;
    }
}
