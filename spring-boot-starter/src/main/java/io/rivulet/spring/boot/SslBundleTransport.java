package io.rivulet.spring.boot;

import io.rivulet.ConfigurationException;
import io.rivulet.transport.tcp.TcpTransport;
import io.rivulet.transport.tcp.TlsSettings;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * The TCP transport with TLS from a Spring Boot {@link SslBundle}: the bundle's {@code SSLContext} is the node's
 * certificate and trust, for its servers and its connections alike; its enabled protocols, if it names any,
 * replace the transport's default (TLSv1.3, TLSv1.2).
 *
 * <p>Stateless; thread-safe.
 */
final class SslBundleTransport
{
    private SslBundleTransport()
    {
    }

    /**
     * @param bundles    Spring Boot's bundles, or null when the application has none.
     * @param ssl        the {@code rivulet.ssl.*} properties, with a bundle name.
     * @param transport  the {@code rivulet.transport} property, or null.
     * @return TCP over TLS.
     * @throws ConfigurationException naming the property when the bundle or transport does not fit.
     */
    static TcpTransport transport(final SslBundles bundles, final RivuletProperties.Ssl ssl, final String transport)
    {
        final String name = ssl.getBundle();
        if (transport != null && !TcpTransport.NAME.equals(transport))
        {
            throw new ConfigurationException("rivulet.ssl.bundle: TLS is for the tcp transport; rivulet.transport is " +
                transport);
        }
        if (bundles == null)
        {
            throw new ConfigurationException("rivulet.ssl.bundle=" + name + ": the application has no SslBundles " +
                "(spring.ssl.bundle.* properties or an SslBundles bean)");
        }
        final SslBundle bundle;
        try
        {
            bundle = bundles.getBundle(name);
        }
        catch (final NoSuchSslBundleException ex)
        {
            throw new ConfigurationException("rivulet.ssl.bundle: " + ex.getMessage());
        }
        final TlsSettings settings = new TlsSettings()
            .sslContext(bundle.createSslContext())
            .clientAuth(ssl.getClientAuth())
            .verifyHostname(ssl.isVerifyHostname());
        final String[] protocols = bundle.getOptions().getEnabledProtocols();
        if (protocols != null && protocols.length > 0)
        {
            settings.protocols(protocols);
        }
        return TcpTransport.tls(settings);
    }
}
