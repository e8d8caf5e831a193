package io.rivulet.spring.boot;

import io.rivulet.Message;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.tcp.TcpTransport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code rivulet.ssl.bundle}: a server and a client application take their TLS from a Spring Boot SSL bundle (a
 * self-signed certificate for 127.0.0.1 made here with keytool) and talk over it on loopback; a plaintext client
 * is refused, so TLS was really on.
 */
class SslBundleTlsTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final String PASSWORD = "secret";

    @TempDir
    static Path directory;

    private static Path keyStore;
    private static Path trustStore;

    @BeforeAll
    static void makeCertificate() throws Exception
    {
        keyStore = directory.resolve("server.p12");
        trustStore = directory.resolve("trust.p12");
        final Path certificate = directory.resolve("server.crt");
        keytool("-genkeypair", "-alias", "rivulet", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
            "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
            "-keystore", keyStore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "rivulet", "-keystore", keyStore.toString(), "-storepass", PASSWORD,
            "-file", certificate.toString());
        keytool("-importcert", "-noprompt", "-alias", "rivulet-ca", "-file", certificate.toString(), "-storetype",
            "PKCS12", "-keystore", trustStore.toString(), "-storepass", PASSWORD);
    }

    @Test
    void serverAndClientTakeTlsFromTheBundle()
    {
        final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RivuletAutoConfiguration.class))
            .withPropertyValues("rivulet.counters-file=false", "rivulet.ssl.bundle=rivulet",
                "spring.ssl.bundle.jks.rivulet.truststore.location=file:" + trustStore,
                "spring.ssl.bundle.jks.rivulet.truststore.password=" + PASSWORD,
                "spring.ssl.bundle.jks.rivulet.truststore.type=PKCS12");

        runner.withPropertyValues("rivulet.server.port=0",
                "spring.ssl.bundle.jks.rivulet.keystore.location=file:" + keyStore,
                "spring.ssl.bundle.jks.rivulet.keystore.password=" + PASSWORD,
                "spring.ssl.bundle.jks.rivulet.keystore.type=PKCS12")
            .withBean(Responder.class, () -> Responder.builder()
                .requestResponse(request -> Mono.just(Message.of("tls:" + request.dataUtf8()))).build())
            .run(server ->
            {
                assertThat(server).hasNotFailed();
                assertThat(server.getBean(Rivulet.class).context().transport()).isInstanceOf(TcpTransport.class);
                assertThat(((TcpTransport)server.getBean(Rivulet.class).context().transport()).tlsSettings())
                    .isNotNull();
                final String address = "127.0.0.1:" + server.getBean(RivuletServer.class).port();

                runner.run(client ->
                {
                    final RivuletConnection connection = client.getBean(RivuletConnections.class).connect(address);
                    assertThat(connection.requestResponse(Message.of("hello")).map(Message::dataUtf8).block(TIMEOUT))
                        .isEqualTo("tls:hello");
                });

                try (Rivulet plain = Rivulet.launch(new Rivulet.Context().transport(TcpTransport.plain())
                    .countersFile(false).setupTimeout(1, TimeUnit.MINUTES)))
                {
                    assertThatThrownBy(() -> plain.connect(address).block(TIMEOUT))
                        .isInstanceOf(RejectedException.class).hasMessageContaining("requires TLS");
                }
            });
    }

    @Test
    void mutualTlsWhenTheServerRequiresClientCertificates()
    {
        final String[] trust = {"rivulet.counters-file=false", "rivulet.ssl.bundle=rivulet",
            "spring.ssl.bundle.jks.rivulet.truststore.location=file:" + trustStore,
            "spring.ssl.bundle.jks.rivulet.truststore.password=" + PASSWORD,
            "spring.ssl.bundle.jks.rivulet.truststore.type=PKCS12"};
        final String[] key = {"spring.ssl.bundle.jks.rivulet.keystore.location=file:" + keyStore,
            "spring.ssl.bundle.jks.rivulet.keystore.password=" + PASSWORD,
            "spring.ssl.bundle.jks.rivulet.keystore.type=PKCS12"};
        final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RivuletAutoConfiguration.class))
            .withPropertyValues(trust);

        runner.withPropertyValues(key).withPropertyValues("rivulet.server.port=0", "rivulet.ssl.client-auth=required")
            .withBean(Responder.class, () -> Responder.builder()
                .requestResponse(request -> Mono.just(Message.of("mtls:" + request.dataUtf8()))).build())
            .run(server ->
            {
                assertThat(server).hasNotFailed();
                final String address = "127.0.0.1:" + server.getBean(RivuletServer.class).port();

                // No certificate of its own: refused in the handshake (one attempt, no retries).
                runner.withPropertyValues("rivulet.client.max-attempts=0").run(client ->
                    assertThatThrownBy(() -> client.getBean(RivuletConnections.class).connect(address)
                        .requestResponse(Message.of("anonymous")).block(TIMEOUT))
                        .hasMessageContaining("Retries exhausted")
                        .cause().hasMessageContaining("TLS handshake")); // the handshake's error, not a timeout

                // The bundle's key store as the client's certificate, which the server's trust store holds.
                runner.withPropertyValues(key).run(client ->
                    assertThat(client.getBean(RivuletConnections.class).connect(address)
                        .requestResponse(Message.of("signed")).map(Message::dataUtf8).block(TIMEOUT))
                        .isEqualTo("mtls:signed"));
            });
    }

    private static void keytool(final String... arguments) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(arguments));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("keytool finished").isTrue();
        assertThat(process.exitValue()).as("keytool %s: %s", arguments[0], output).isZero();
    }
}
