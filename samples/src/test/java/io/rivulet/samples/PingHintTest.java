package io.rivulet.samples;

import io.rivulet.ConnectionLostException;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import io.rivulet.security.Authenticator;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ping's "is pong running?" hint appears only when nothing answered (connection refused, a timeout), never after a
 * server refused the connection (authentication, TLS): then the server is running, and the hint would mislead.
 */
class PingHintTest
{
    private static final String HINT = "is pong running?";

    @Test
    void shouldHintWhenNothingAnswers()
    {
        assertThat(Ping.nothingAnswered(new RivuletException("cannot connect to 127.0.0.1:7070: Connection refused",
            new ConnectException("Connection refused: 127.0.0.1:7070")))).isTrue();
        assertThat(Ping.nothingAnswered(new RivuletException("cannot connect to 10.0.0.9:7070: timed out after 5000 ms")))
            .isTrue();
        final RuntimeException blockTimeout = new IllegalStateException("Timeout on blocking read for 10000 MILLISECONDS",
            new TimeoutException("Timeout on blocking read for 10000 MILLISECONDS"));
        assertThat(Ping.nothingAnswered(blockTimeout)).isTrue();
    }

    @Test
    void shouldNotHintWhenTheServerAnswered()
    {
        assertThat(Ping.nothingAnswered(new RejectedException(
            "connection rejected by 127.0.0.1:7070: authentication failed: token not accepted"))).isFalse();
        assertThat(Ping.nothingAnswered(new RejectedException("connection rejected by 127.0.0.1:7070: too many failed " +
            "authentications from 127.0.0.1; retry after 100 ms"))).isFalse();
        assertThat(Ping.nothingAnswered(new RivuletException("cannot connect to 127.0.0.1:7070: TLS handshake with " +
            "127.0.0.1:7070 failed: Received fatal alert: bad_certificate",
            new IOException("TLS handshake with 127.0.0.1:7070 failed: Received fatal alert: bad_certificate",
                new javax.net.ssl.SSLHandshakeException("Received fatal alert: bad_certificate"))))).isFalse();
        assertThat(Ping.nothingAnswered(new RivuletException("cannot connect to 127.0.0.1:7070: TLS handshake with " +
            "127.0.0.1:7070 failed: the server did not answer with TLS (a plaintext server?)",
            new IOException("TLS handshake with 127.0.0.1:7070 failed: the server did not answer with TLS")))).isFalse();
        // A TLS handshake that timed out: something accepted the connection, so pong may well be running.
        assertThat(Ping.nothingAnswered(new RivuletException("cannot connect to 127.0.0.1:7070: TLS handshake with " +
            "127.0.0.1:7070 failed: not complete within 10000 ms", new IOException("TLS handshake with 127.0.0.1:7070 " +
            "failed: not complete within 10000 ms")))).isFalse();
        assertThat(Ping.nothingAnswered(new ConnectionLostException("server 127.0.0.1:7070 did not answer SETUP " +
            "within 5000 ms"))).isFalse();
    }

    @Test
    void shouldHintWhenNothingListens() throws IOException
    {
        final int port;
        try (ServerSocket socket = new ServerSocket())
        {
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            port = socket.getLocalPort(); // closed again: nothing listens there now
        }

        final Run run = Run.of(new Ping(), "--port", Integer.toString(port), "--count", "1", "--warmup", "0");

        assertThat(run.exitCode).isEqualTo(1);
        assertThat(run.err).contains("ping: ").contains(Integer.toString(port)).contains(HINT)
            .contains("./rivulet-demo pong --port " + port);
    }

    @Test
    void shouldNotHintWhenPongRefusesTheConnection()
    {
        try (Rivulet pong = Rivulet.launch(new Rivulet.Context().authenticator(Authenticator.tokens("s3cret"))))
        {
            final Server server = pong.bind("127.0.0.1:0", Responder.none()).block(Duration.ofSeconds(30));
            final String address = server.localAddress();
            final String port = address.substring(address.lastIndexOf(':') + 1);

            final Run run = Run.of(new Ping(), "--port", port, "--count", "1", "--warmup", "0");

            assertThat(run.exitCode).isEqualTo(1);
            assertThat(run.err).contains("connection rejected by").contains("no token in SETUP").doesNotContain(HINT);
        }
    }

    /** One in-process run of a command line: exit code and what it printed. */
    private record Run(int exitCode, String out, String err)
    {
        static Run of(final Object command, final String... args)
        {
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            final CommandLine commandLine = SampleCli.commandLine(command);
            commandLine.setOut(new PrintWriter(out, true));
            commandLine.setErr(new PrintWriter(err, true));
            final int exitCode = commandLine.execute(args);
            return new Run(exitCode, out.toString(), err.toString());
        }
    }
}
