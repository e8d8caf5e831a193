package io.rivulet.transport.tcp;

import io.rivulet.spi.Transport;
import io.rivulet.tck.TestTime;
import io.rivulet.topic.TopicFanOutSuite;

import java.util.concurrent.TimeUnit;

/**
 * The topic fan-out suite over TLS on 127.0.0.1: runs of log records go into the link's send buffer whole and are
 * sealed from there, as single frames are.
 */
class TlsTopicFanOutTest extends TopicFanOutSuite
{
    private final TestCertificates certificates = TestCertificates.get();

    @Override
    protected Transport transport()
    {
        // Each node serves with the server's key and trusts the test CA, so it may also connect.
        return TcpTransport.tls(new TlsSettings().keyStore(certificates.serverKeyStore, TestCertificates.PASSWORD)
            .trustStore(certificates.trustStore, TestCertificates.PASSWORD)
            .handshakeTimeout(TestTime.millis(10_000), TimeUnit.MILLISECONDS));
    }
}
