package io.rivulet.transport.tcp;
import io.rivulet.tck.TestTime;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Certificates made at test time with the JDK's {@code keytool} (no private key is committed): a test CA, a
 * server certificate for 127.0.0.1/localhost and a client certificate ({@code CN=client}) both issued by it,
 * and a self-signed "rogue" client the CA did not issue. Generated once per test JVM into a temporary
 * directory that is deleted when the JVM exits.
 *
 * <p>keytool runs as a process so that no JDK-internal API (and no extra {@code --add-exports}) is needed;
 * {@code -genkeypair -signer} (JDK 16+) issues a certificate from the CA in one step. Key stores are then
 * split and exported with the public {@link KeyStore} API.
 */
final class TestCertificates
{
    static final String PASSWORD = "changeit";

    /** Server identity: key store with only the server's key and chain (PKCS12). */
    final Path serverKeyStore;
    /** Client identity ({@code CN=client}), issued by the test CA. */
    final Path clientKeyStore;
    /** A client identity ({@code CN=rogue}) no trusted CA issued. */
    final Path rogueKeyStore;
    /** Trust store holding only the test CA. */
    final Path trustStore;
    /** The test CA certificate as PEM. */
    final Path caPem;
    /** The server's chain and PKCS#8 key as PEM. */
    final Path serverChainPem;
    final Path serverKeyPem;

    private static TestCertificates instance;

    /** @return the JVM-wide certificates, generating them on first use. */
    static synchronized TestCertificates get()
    {
        if (instance == null)
        {
            try
            {
                instance = new TestCertificates(Files.createTempDirectory("rivulet-tls-"));
            }
            catch (final IOException | GeneralSecurityException ex)
            {
                throw new IllegalStateException("cannot generate test certificates: " + ex, ex);
            }
        }
        return instance;
    }

    private TestCertificates(final Path dir) throws IOException, GeneralSecurityException
    {
        deleteOnExit(dir);
        final Path ca = dir.resolve("ca.p12");
        final Path rogue = dir.resolve("rogue.p12");
        run(keytool("-genkeypair", "-keystore", ca, "-alias", "ca", "-dname", "CN=Rivulet Test CA", "-ext", "bc:c"),
            keytool("-genkeypair", "-keystore", rogue, "-alias", "rogue", "-dname", "CN=rogue"));
        final Path serverAll = dir.resolve("server-all.p12");
        final Path clientAll = dir.resolve("client-all.p12");
        Files.copy(ca, serverAll);
        Files.copy(ca, clientAll);
        run(keytool("-genkeypair", "-keystore", serverAll, "-alias", "server", "-dname", "CN=server", "-signer", "ca",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost"),
            keytool("-genkeypair", "-keystore", clientAll, "-alias", "client", "-dname", "CN=client", "-signer", "ca"));

        serverKeyStore = extract(serverAll, "server", dir.resolve("server.p12"));
        clientKeyStore = extract(clientAll, "client", dir.resolve("client.p12"));
        rogueKeyStore = rogue;

        final KeyStore caStore = load(ca);
        final Certificate caCertificate = caStore.getCertificate("ca");
        final KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", caCertificate);
        trustStore = store(trust, dir.resolve("trust.p12"));
        caPem = dir.resolve("ca.pem");
        Files.writeString(caPem, pem("CERTIFICATE", caCertificate.getEncoded()), StandardCharsets.US_ASCII);

        final KeyStore server = load(serverKeyStore);
        final StringBuilder chain = new StringBuilder();
        for (final Certificate certificate : server.getCertificateChain("server"))
        {
            chain.append(pem("CERTIFICATE", certificate.getEncoded()));
        }
        serverChainPem = dir.resolve("server-chain.pem");
        Files.writeString(serverChainPem, chain, StandardCharsets.US_ASCII);
        final Key key = server.getKey("server", PASSWORD.toCharArray());
        serverKeyPem = dir.resolve("server-key.pem");
        Files.writeString(serverKeyPem, pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII); // PKCS#8
    }

    private static List<String> keytool(final Object... arguments)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        // Short-lived JVMs: skip the optimising compiler.
        command.add("-J-XX:TieredStopAtLevel=1");
        command.add("-J-XX:+UseSerialGC");
        for (final Object argument : arguments)
        {
            command.add(argument.toString());
        }
        command.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD, "-keyalg", "EC",
            "-groupname", "secp256r1", "-validity", "2", "-noprompt"));
        return command;
    }

    /** Runs keytool commands in parallel and waits for all of them. */
    @SafeVarargs
    private static void run(final List<String>... commands) throws IOException
    {
        final List<Process> processes = new ArrayList<>();
        for (final List<String> command : commands)
        {
            processes.add(new ProcessBuilder(command).redirectErrorStream(true).start());
        }
        for (int i = 0; i < processes.size(); i++)
        {
            final Process process = processes.get(i);
            try
            {
                final byte[] output = process.getInputStream().readAllBytes();
                if (!process.waitFor(TestTime.millis(120, TimeUnit.SECONDS), TimeUnit.MILLISECONDS) || process.exitValue() != 0)
                {
                    process.destroyForcibly();
                    throw new IOException("keytool failed: " + commands[i] + "\n" +
                        new String(output, StandardCharsets.UTF_8));
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted waiting for keytool", ex);
            }
        }
    }

    private static Path extract(final Path from, final String alias, final Path to)
        throws IOException, GeneralSecurityException
    {
        final KeyStore source = load(from);
        final KeyStore target = KeyStore.getInstance("PKCS12");
        target.load(null, null);
        target.setKeyEntry(alias, source.getKey(alias, PASSWORD.toCharArray()), PASSWORD.toCharArray(),
            source.getCertificateChain(alias));
        return store(target, to);
    }

    private static KeyStore load(final Path path) throws IOException, GeneralSecurityException
    {
        try (InputStream in = Files.newInputStream(path))
        {
            final KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, PASSWORD.toCharArray());
            return store;
        }
    }

    private static Path store(final KeyStore store, final Path path) throws IOException, GeneralSecurityException
    {
        try (OutputStream out = Files.newOutputStream(path))
        {
            store.store(out, PASSWORD.toCharArray());
        }
        return path;
    }

    private static String pem(final String type, final byte[] der)
    {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[]{'\n'}).encodeToString(der) +
            "\n-----END " + type + "-----\n";
    }

    private static void deleteOnExit(final Path dir)
    {
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }));
    }
}
