package io.rivulet.transport.tcp;

import io.rivulet.ConfigurationException;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * TLS for the TCP transport: where the certificates come from, whether clients must present one, which
 * protocol versions are allowed. Key material comes from a key store (PKCS12 or JKS) or from PEM files (a
 * certificate chain and an unencrypted PKCS#8 private key); trusted certificates from a trust store or a PEM
 * file of CA certificates, or else the JDK's default trust store.
 *
 * <pre>{@code
 * TlsSettings server = new TlsSettings().keyStore(Path.of("server.p12"), "secret")
 *     .trustStore(Path.of("ca.p12"), "secret").clientAuth(TlsSettings.ClientAuth.REQUIRED);
 * Rivulet.launch(new Rivulet.Context().transport(TcpTransport.tls(server)));
 * }</pre>
 *
 * <p>Every setting also has a system property, read by {@link #fromProperties()} (and so by the
 * {@code "tcp"} transport found through {@code ServiceLoader}): {@code rivulet.tcp.tls.keyStore},
 * {@code .keyStorePassword}, {@code .keyStoreType}, {@code .trustStore}, {@code .trustStorePassword},
 * {@code .trustStoreType}, {@code .certificateChain}, {@code .privateKey}, {@code .trustedCertificates},
 * {@code .clientAuth} (NONE, REQUIRED), {@code .protocols} (comma-separated), {@code .handshakeTimeout}
 * (milliseconds), {@code .maxHandshakesPerAddress} and {@code .verifyHostname}.
 *
 * <p>Not thread-safe while being configured; {@link #newSslContext()} reads the files each time it is called.
 */
public final class TlsSettings
{
    /** Whether a server asks connecting clients for a certificate. */
    public enum ClientAuth
    {
        /** Server-authenticated TLS: clients present no certificate. */
        NONE,
        /** Mutual TLS: a client without a certificate the trust material verifies is refused in the handshake. */
        REQUIRED
    }

    private static final String PREFIX = "rivulet.tcp.tls.";

    /** Property for {@link #handshakeTimeout(long, TimeUnit)}, in milliseconds. */
    public static final String HANDSHAKE_TIMEOUT_PROPERTY = PREFIX + "handshakeTimeout";

    /** Property for {@link #maxHandshakesPerAddress(int)}. */
    public static final String MAX_HANDSHAKES_PER_ADDRESS_PROPERTY = PREFIX + "maxHandshakesPerAddress";

    /** Default of {@link #handshakeTimeoutNs()}: 2 s. */
    public static final long DEFAULT_HANDSHAKE_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);

    /** Default of {@link #maxHandshakesPerAddress()}. */
    public static final int DEFAULT_MAX_HANDSHAKES_PER_ADDRESS = 8;

    private Path keyStore;
    private char[] keyStorePassword = new char[0];
    private String keyStoreType = "PKCS12";
    private Path trustStore;
    private char[] trustStorePassword = new char[0];
    private String trustStoreType = "PKCS12";
    private Path certificateChain;
    private Path privateKey;
    private Path trustedCertificates;
    private ClientAuth clientAuth = ClientAuth.NONE;
    private List<String> protocols = List.of("TLSv1.3", "TLSv1.2");
    private long handshakeTimeoutNs = DEFAULT_HANDSHAKE_TIMEOUT_NS;
    private int maxHandshakesPerAddress = DEFAULT_MAX_HANDSHAKES_PER_ADDRESS;
    private boolean verifyHostname = true;
    private SSLContext sslContext;

    /**
     * @return settings from {@code rivulet.tcp.tls.*} properties, or null when none of the certificate
     *         properties is set (plain TCP).
     * @throws ConfigurationException naming a bad property.
     */
    public static TlsSettings fromProperties()
    {
        final String keyStore = System.getProperty(PREFIX + "keyStore");
        final String trustStore = System.getProperty(PREFIX + "trustStore");
        final String chain = System.getProperty(PREFIX + "certificateChain");
        final String trusted = System.getProperty(PREFIX + "trustedCertificates");
        if (keyStore == null && trustStore == null && chain == null && trusted == null)
        {
            return null;
        }
        final TlsSettings settings = new TlsSettings();
        if (keyStore != null)
        {
            settings.keyStore(Path.of(keyStore), System.getProperty(PREFIX + "keyStorePassword", ""))
                .keyStoreType(System.getProperty(PREFIX + "keyStoreType", "PKCS12"));
        }
        if (trustStore != null)
        {
            settings.trustStore(Path.of(trustStore), System.getProperty(PREFIX + "trustStorePassword", ""))
                .trustStoreType(System.getProperty(PREFIX + "trustStoreType", "PKCS12"));
        }
        if (chain != null)
        {
            final String key = System.getProperty(PREFIX + "privateKey");
            if (key == null)
            {
                throw new ConfigurationException(PREFIX + "privateKey must be set with " + PREFIX + "certificateChain");
            }
            settings.pem(Path.of(chain), Path.of(key));
        }
        if (trusted != null)
        {
            settings.trustedCertificates(Path.of(trusted));
        }
        final String clientAuth = System.getProperty(PREFIX + "clientAuth");
        if (clientAuth != null)
        {
            try
            {
                settings.clientAuth(ClientAuth.valueOf(clientAuth.trim().toUpperCase()));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new ConfigurationException(PREFIX + "clientAuth: '" + clientAuth + "' is not NONE or REQUIRED");
            }
        }
        final String protocols = System.getProperty(PREFIX + "protocols");
        if (protocols != null)
        {
            settings.protocols(Arrays.stream(protocols.split(",")).map(String::trim).toArray(String[]::new));
        }
        final String timeout = System.getProperty(HANDSHAKE_TIMEOUT_PROPERTY);
        if (timeout != null)
        {
            try
            {
                settings.handshakeTimeout(Long.parseLong(timeout.trim()), TimeUnit.MILLISECONDS);
            }
            catch (final NumberFormatException ex)
            {
                throw new ConfigurationException(HANDSHAKE_TIMEOUT_PROPERTY + ": '" + timeout + "' is not milliseconds");
            }
        }
        final String perAddress = System.getProperty(MAX_HANDSHAKES_PER_ADDRESS_PROPERTY);
        if (perAddress != null)
        {
            try
            {
                settings.maxHandshakesPerAddress(Integer.parseInt(perAddress.trim()));
            }
            catch (final NumberFormatException ex)
            {
                throw new ConfigurationException(MAX_HANDSHAKES_PER_ADDRESS_PROPERTY + ": '" + perAddress +
                    "' is not a number");
            }
        }
        final String verify = System.getProperty(PREFIX + "verifyHostname");
        if (verify != null)
        {
            settings.verifyHostname(Boolean.parseBoolean(verify.trim()));
        }
        return settings;
    }

    /** This side's certificate and private key, from a key store (type PKCS12 unless {@link #keyStoreType}). */
    public TlsSettings keyStore(final Path path, final String password)
    {
        this.keyStore = path;
        this.keyStorePassword = password.toCharArray();
        return this;
    }

    public TlsSettings keyStoreType(final String type)
    {
        this.keyStoreType = type;
        return this;
    }

    /** Certificates this side trusts to sign the peer's, from a trust store (PKCS12 unless {@link #trustStoreType}). */
    public TlsSettings trustStore(final Path path, final String password)
    {
        this.trustStore = path;
        this.trustStorePassword = password.toCharArray();
        return this;
    }

    public TlsSettings trustStoreType(final String type)
    {
        this.trustStoreType = type;
        return this;
    }

    /**
     * This side's certificate and key as PEM: a file of {@code CERTIFICATE} blocks (own certificate first)
     * and a file with one unencrypted PKCS#8 {@code PRIVATE KEY} block (RSA or EC).
     */
    public TlsSettings pem(final Path certificateChain, final Path privateKey)
    {
        this.certificateChain = certificateChain;
        this.privateKey = privateKey;
        return this;
    }

    /** Trusted CA certificates as a PEM file of {@code CERTIFICATE} blocks. */
    public TlsSettings trustedCertificates(final Path pemFile)
    {
        this.trustedCertificates = pemFile;
        return this;
    }

    /**
     * A ready context instead of key and trust files: its key managers are this side's certificate, its trust
     * managers judge the peer's (Spring Boot's {@code SslBundle.createSslContext()}, for one). Protocols, client
     * authentication and hostname verification still come from these settings.
     *
     * @param sslContext an initialised context; not to be combined with key store, PEM or trust settings.
     * @return this.
     */
    public TlsSettings sslContext(final SSLContext sslContext)
    {
        this.sslContext = sslContext;
        return this;
    }

    /** Whether a server requires clients to present a certificate (mutual TLS); default NONE. */
    public TlsSettings clientAuth(final ClientAuth clientAuth)
    {
        this.clientAuth = clientAuth;
        return this;
    }

    public ClientAuth clientAuth()
    {
        return clientAuth;
    }

    /** Allowed protocol versions, default TLSv1.3 and TLSv1.2. */
    public TlsSettings protocols(final String... protocols)
    {
        this.protocols = List.of(protocols);
        return this;
    }

    public List<String> protocols()
    {
        return protocols;
    }

    /**
     * How long a server waits for an accepted connection to complete its handshake ({@code
     * rivulet.tcp.tls.handshakeTimeout}, default 2 s): a real client on loopback or a LAN needs milliseconds, and
     * every connection waiting holds a handshake slot.
     *
     * @throws ConfigurationException naming the property when not positive.
     */
    public TlsSettings handshakeTimeout(final long duration, final TimeUnit unit)
    {
        final long timeoutNs = unit.toNanos(duration);
        if (timeoutNs <= 0)
        {
            throw new ConfigurationException(HANDSHAKE_TIMEOUT_PROPERTY + " must be positive: " + duration + " " + unit);
        }
        this.handshakeTimeoutNs = timeoutNs;
        return this;
    }

    public long handshakeTimeoutNs()
    {
        return handshakeTimeoutNs;
    }

    /**
     * How many connections from one remote address (the IP, not the port) a server keeps in their TLS handshake at
     * once ({@code rivulet.tcp.tls.maxHandshakesPerAddress}, default 8); a further one is closed at once and reported.
     * Stops one host from taking all of the listener's handshake slots; clients behind one NAT address share it.
     *
     * @throws ConfigurationException naming the property when below 1.
     */
    public TlsSettings maxHandshakesPerAddress(final int maxHandshakesPerAddress)
    {
        if (maxHandshakesPerAddress < 1)
        {
            throw new ConfigurationException(MAX_HANDSHAKES_PER_ADDRESS_PROPERTY + " must be at least 1: " +
                maxHandshakesPerAddress);
        }
        this.maxHandshakesPerAddress = maxHandshakesPerAddress;
        return this;
    }

    public int maxHandshakesPerAddress()
    {
        return maxHandshakesPerAddress;
    }

    /**
     * Whether a client checks that the server's certificate names the host it connected to (its subject
     * alternative names); default true. Turn off only for tests.
     */
    public TlsSettings verifyHostname(final boolean verifyHostname)
    {
        this.verifyHostname = verifyHostname;
        return this;
    }

    public boolean verifyHostname()
    {
        return verifyHostname;
    }

    /**
     * @return true when this side has a certificate to present (a server needs one); a given
     *         {@link #sslContext(SSLContext)} is taken to have one.
     */
    public boolean hasKeyMaterial()
    {
        return keyStore != null || certificateChain != null || sslContext != null;
    }

    /**
     * Loads the key and trust material.
     *
     * @return a context for the configured protocols.
     * @throws ConfigurationException naming the file or setting that is wrong.
     */
    public SSLContext newSslContext()
    {
        if (protocols.isEmpty())
        {
            throw new ConfigurationException("TLS protocols must not be empty");
        }
        if (keyStore != null && certificateChain != null)
        {
            throw new ConfigurationException("TLS key material: give a key store or PEM files, not both");
        }
        if (trustStore != null && trustedCertificates != null)
        {
            throw new ConfigurationException("TLS trust material: give a trust store or a PEM file, not both");
        }
        if (sslContext != null)
        {
            if (keyStore != null || certificateChain != null || trustStore != null || trustedCertificates != null)
            {
                throw new ConfigurationException("TLS: give an SSLContext or key and trust files, not both");
            }
            return sslContext;
        }
        try
        {
            final SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers(), trustManagers(), null);
            return context;
        }
        catch (final GeneralSecurityException ex)
        {
            throw new ConfigurationException("TLS: " + ex.getMessage());
        }
    }

    private KeyManager[] keyManagers() throws GeneralSecurityException
    {
        final KeyStore store;
        final char[] password;
        if (keyStore != null)
        {
            store = load(keyStore, keyStoreType, keyStorePassword, "key store");
            password = keyStorePassword;
        }
        else if (certificateChain != null)
        {
            final Collection<? extends Certificate> chain = readCertificates(certificateChain);
            if (chain.isEmpty())
            {
                throw new ConfigurationException("TLS certificate chain " + certificateChain + " has no CERTIFICATE");
            }
            store = emptyStore();
            password = new char[0];
            store.setKeyEntry("key", readPrivateKey(privateKey), password, chain.toArray(new Certificate[0]));
        }
        else
        {
            return null; // a client without a certificate
        }
        final KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(store, password);
        return factory.getKeyManagers();
    }

    private TrustManager[] trustManagers() throws GeneralSecurityException
    {
        final KeyStore store;
        if (trustStore != null)
        {
            store = load(trustStore, trustStoreType, trustStorePassword, "trust store");
        }
        else if (trustedCertificates != null)
        {
            store = emptyStore();
            int i = 0;
            for (final Certificate certificate : readCertificates(trustedCertificates))
            {
                store.setCertificateEntry("ca-" + i++, certificate);
            }
            if (i == 0)
            {
                throw new ConfigurationException("TLS trusted certificates " + trustedCertificates + " has no CERTIFICATE");
            }
        }
        else
        {
            return null; // the JDK's default trust store
        }
        final TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory.getTrustManagers();
    }

    private static KeyStore load(final Path path, final String type, final char[] password, final String what)
    {
        try (InputStream in = Files.newInputStream(path))
        {
            final KeyStore store = KeyStore.getInstance(type);
            store.load(in, password);
            return store;
        }
        catch (final IOException | GeneralSecurityException ex)
        {
            throw new ConfigurationException("TLS " + what + " " + path + " (" + type + "): cannot load: " + ex.getMessage());
        }
    }

    private static KeyStore emptyStore() throws GeneralSecurityException
    {
        final KeyStore store = KeyStore.getInstance("PKCS12");
        try
        {
            store.load(null, null);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex); // no stream: cannot happen
        }
        return store;
    }

    private static Collection<? extends Certificate> readCertificates(final Path path)
    {
        try (InputStream in = Files.newInputStream(path))
        {
            return CertificateFactory.getInstance("X.509").generateCertificates(in);
        }
        catch (final IOException | GeneralSecurityException ex)
        {
            throw new ConfigurationException("TLS certificates " + path + ": cannot read: " + ex.getMessage());
        }
    }

    private static PrivateKey readPrivateKey(final Path path)
    {
        final String text;
        try
        {
            text = Files.readString(path, StandardCharsets.US_ASCII);
        }
        catch (final IOException ex)
        {
            throw new ConfigurationException("TLS private key " + path + ": cannot read: " + ex.getMessage());
        }
        final String begin = "-----BEGIN PRIVATE KEY-----";
        final String end = "-----END PRIVATE KEY-----";
        final int from = text.indexOf(begin);
        final int to = text.indexOf(end);
        if (from < 0 || to < from)
        {
            throw new ConfigurationException("TLS private key " + path +
                ": no unencrypted PKCS#8 block (" + begin + ")");
        }
        final byte[] der;
        try
        {
            der = Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigurationException("TLS private key " + path + ": bad base64: " + ex.getMessage());
        }
        for (final String algorithm : new String[]{"RSA", "EC", "Ed25519", "RSASSA-PSS"})
        {
            try
            {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            }
            catch (final GeneralSecurityException ignore)
            {
                // Try the next algorithm: PKCS#8 names it inside, but KeyFactory needs it up front.
            }
        }
        throw new ConfigurationException("TLS private key " + path + ": not an RSA, EC or Ed25519 PKCS#8 key");
    }

    @Override
    public String toString()
    {
        if (sslContext != null)
        {
            return "TlsSettings{sslContext=" + sslContext.getProtocol() + ", clientAuth=" + clientAuth + ", protocols=" +
                protocols + "}";
        }
        return "TlsSettings{" + (keyStore != null ? "keyStore=" + keyStore : certificateChain != null ?
            "certificateChain=" + certificateChain : "no key") + ", " + (trustStore != null ? "trustStore=" + trustStore :
            trustedCertificates != null ? "trustedCertificates=" + trustedCertificates : "default trust") +
            ", clientAuth=" + clientAuth + ", protocols=" + protocols + "}";
    }
}
