package io.rivulet.transport.rdma;

import io.rivulet.Transports;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;

import static io.rivulet.transport.rdma.RdmaTestSupport.SETTINGS;
import static io.rivulet.transport.rdma.RdmaTestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Finding, opening and closing the RDMA transport; listening and connecting by address. */
class RdmaTransportTest
{
    @Test
    void shouldBeFoundByName()
    {
        assertThat(Transports.byName("rdma")).isInstanceOf(RdmaTransport.class);
        assertThat(new RdmaTransport().name()).isEqualTo("rdma");
    }

    @Test
    void shouldUseTheProviderNamedBySystemProperty() throws IOException
    {
        final String previous = System.setProperty(RdmaTransport.PROVIDER_PROPERTY, "soft");
        try (RdmaTransportDriver driver = new RdmaTransport().open(SETTINGS))
        {
            assertThat(driver.providerName()).isEqualTo("soft");
        }
        finally
        {
            restore(previous);
        }
    }

    @Test
    void shouldPickAProviderAutomaticallyByDefault() throws IOException
    {
        final String previous = System.clearProperty(RdmaTransport.PROVIDER_PROPERTY);
        try (RdmaTransportDriver driver = new RdmaTransport().open(SETTINGS))
        {
            // disni where a device and libdisni are present, else soft.
            assertThat(driver.providerName()).isIn("soft", "disni");
            assertThat(driver.memoryPool().registrations()).isPositive();
        }
        finally
        {
            restore(previous);
        }
    }

    @Test
    void shouldRefuseAnUnknownProviderNamingTheProperty()
    {
        final String previous = System.setProperty(RdmaTransport.PROVIDER_PROPERTY, "carrier-pigeon");
        try
        {
            assertThatThrownBy(() -> new RdmaTransport().open(SETTINGS))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(RdmaTransport.PROVIDER_PROPERTY)
                .hasMessageContaining("carrier-pigeon");
        }
        finally
        {
            restore(previous);
        }
    }

    @Test
    void shouldRefuseAnUnavailableProviderSayingWhy()
    {
        final VerbsProvider missing = new VerbsProvider()
        {
            @Override
            public String name()
            {
                return "missing";
            }

            @Override
            public Availability availability()
            {
                return Availability.no("no device; install one");
            }

            @Override
            public VerbsContext open(final InetAddress localAddress) throws IOException
            {
                throw new IOException("unreachable");
            }
        };

        assertThatThrownBy(() -> new RdmaTransport(missing).open(SETTINGS))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("missing")
            .hasMessageContaining("no device; install one");
    }

    @Test
    void shouldListenOnAnEphemeralPortAndRejectMalformedAddresses() throws IOException
    {
        final RdmaTransport transport = new RdmaTransport(RdmaTestSupport.provider());
        try (RdmaTransportDriver driver = transport.open(SETTINGS))
        {
            assertThat(transport.drivers()).containsExactly(driver);
            final RdmaLinkListener listener = driver.listen("127.0.0.1:0");
            assertThat(listener.localAddress()).startsWith("127.0.0.1:").isNotEqualTo("127.0.0.1:0");
            assertThatThrownBy(() -> driver.listen("nonsense")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nonsense");
            assertThatThrownBy(() -> driver.connect("127.0.0.1:99999")).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(transport.drivers()).isEmpty();
    }

    @Test
    void shouldFailToConnectToAClosedPortNamingTheAddress() throws IOException
    {
        final RdmaTransport transport = new RdmaTransport(RdmaTestSupport.provider());
        try (RdmaTransportDriver server = transport.open(SETTINGS);
            RdmaTransportDriver client = transport.open(SETTINGS))
        {
            final RdmaLinkListener listener = server.listen("127.0.0.1:0");
            final String address = listener.localAddress();
            listener.close();

            final RdmaLinkConnector connector = client.connect(address);
            final IOException[] failure = new IOException[1];
            await("refused", () ->
            {
                try
                {
                    connector.poll();
                }
                catch (final IOException ex)
                {
                    failure[0] = ex;
                }
                return null != failure[0];
            }, server, client);
            assertThat(failure[0]).hasMessageContaining(address);
            assertThat(client.memoryPool().linksInUse()).isZero();
            assertThat(client.linkCount()).isZero();
        }
    }

    @Test
    void shouldReleaseEverythingOnClose() throws IOException
    {
        final RdmaTestSupport.LinkPair pair = new RdmaTestSupport.LinkPair();
        final MemoryPool pool = pair.serverDriver.memoryPool();
        assertThat(pool.linksInUse()).isEqualTo(1);
        pair.close();

        assertThat(pair.server.isClosed()).isTrue();
        assertThat(pair.client.isClosed()).isTrue();
        assertThat(pool.liveRegistrations()).isZero();
        assertThat(pair.serverDriver.isOpen()).isFalse();
        assertThat(pair.transport.drivers()).isEmpty();
        assertThatThrownBy(() -> pair.serverDriver.listen("127.0.0.1:0")).isInstanceOf(IllegalStateException.class);
    }

    private static void restore(final String previous)
    {
        if (null == previous)
        {
            System.clearProperty(RdmaTransport.PROVIDER_PROPERTY);
        }
        else
        {
            System.setProperty(RdmaTransport.PROVIDER_PROPERTY, previous);
        }
    }
}
