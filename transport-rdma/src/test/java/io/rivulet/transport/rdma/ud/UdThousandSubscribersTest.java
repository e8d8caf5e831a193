package io.rivulet.transport.rdma.ud;

import io.rivulet.transport.rdma.ForwardingVerbsContext;
import io.rivulet.protocol.datagram.DatagramPublisher;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.protocol.datagram.DatagramSubscriber;
import io.rivulet.spi.SwiftSettings;
import io.rivulet.transport.rdma.soft.SoftFabric;
import io.rivulet.transport.rdma.soft.SoftVerbsContext;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The point of UD: 1,000 subscriber paths from one publisher node that owns exactly one queue pair (and one
 * address handle per subscriber), where RC would need 1,000 queue pairs. Every subscriber gets every message.
 */
class UdThousandSubscribersTest
{
    private static final int SUBSCRIBERS = 1_000;
    private static final int MESSAGES = 3;
    private static final int PAYLOAD = 16;
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(25);

    @Test
    void onePublisherQueuePairReachesAThousandSubscribers() throws IOException
    {
        final DatagramSettings settings = new DatagramSettings()
            .window(64)
            .ringLength(64)
            .maxPayload(PAYLOAD)
            .ackEvery(1)
            .ackIntervalNs(TimeUnit.MILLISECONDS.toNanos(1))
            .nakDelayNs(TimeUnit.MILLISECONDS.toNanos(2))
            .nakRetryNs(TimeUnit.MILLISECONDS.toNanos(20))
            .nakRetryMaxNs(TimeUnit.MILLISECONDS.toNanos(200))
            .rtoInitialNs(TimeUnit.MILLISECONDS.toNanos(200))
            .rtoMinNs(TimeUnit.MILLISECONDS.toNanos(50))
            .rtoMaxNs(TimeUnit.SECONDS.toNanos(1))
            .swift(new SwiftSettings().targetDelayNs(TimeUnit.MILLISECONDS.toNanos(50)).initialWindow(8).maxWindow(64))
            .validate();
        final SoftVerbsProvider provider = new SoftVerbsProvider(new SoftFabric());
        final List<UdDatagramEndpoint> endpoints = new ArrayList<>();
        try (SoftVerbsContext publisherDevice = provider.open(InetAddress.getLoopbackAddress());
            SoftVerbsContext subscriberDevice = provider.open(InetAddress.getLoopbackAddress()))
        {
            final CountingContext publisherContext = new CountingContext(publisherDevice);
            final UdDatagramEndpoint publisherEndpoint = new UdDatagramEndpoint(
                publisherContext, settings.maxDatagramLength(), 2048, 256, UdDatagramEndpointTest.QKEY);
            endpoints.add(publisherEndpoint);
            final DatagramPublisher publisher = new DatagramPublisher(settings, publisherEndpoint);

            final DatagramSubscriber[] subscribers = new DatagramSubscriber[SUBSCRIBERS];
            final long[] received = new long[SUBSCRIBERS];
            final long[] orderErrors = new long[1];
            for (int i = 0; i < SUBSCRIBERS; i++)
            {
                final UdDatagramEndpoint endpoint = new UdDatagramEndpoint(
                    subscriberDevice, settings.maxDatagramLength(), 16, 4, UdDatagramEndpointTest.QKEY);
                endpoints.add(endpoint);
                final int index = i;
                subscribers[i] = new DatagramSubscriber(settings, endpoint, (sessionId, buffer, offset, length) ->
                {
                    if (sessionId != index || length != PAYLOAD || buffer.getLong(offset) != received[index])
                    {
                        orderErrors[0]++;
                    }
                    received[index]++;
                });
                subscribers[i].addPublisher(endpoint.resolve(publisherEndpoint.localAddress()), i, 0);
                publisher.addSubscriber(publisherEndpoint.resolve(endpoint.localAddress()), i, 0);
            }
            assertThat(publisherContext.udQueuePairs).isEqualTo(1);
            assertThat(publisherContext.addressHandles).isEqualTo(SUBSCRIBERS);
            assertThat(publisherEndpoint.peerCount()).isEqualTo(SUBSCRIBERS);

            final UnsafeBuffer message = new UnsafeBuffer(new byte[PAYLOAD]);
            final BackoffIdleStrategy idle = new BackoffIdleStrategy(10, 20, 1_000, 200_000);
            final long startNs = System.nanoTime();
            int offered = 0;
            while (!(offered == MESSAGES && publisher.ring().releasedPosition() == MESSAGES))
            {
                if (offered < MESSAGES)
                {
                    message.putLong(0, offered);
                    if (publisher.offer(message, 0, PAYLOAD) >= 0)
                    {
                        offered++;
                    }
                }
                final long nowNs = System.nanoTime();
                int work = publisher.doWork(nowNs);
                for (final DatagramSubscriber subscriber : subscribers)
                {
                    work += subscriber.doWork(nowNs);
                }
                idle.idle(work);
                if (nowNs - startNs > DEADLINE_NS)
                {
                    throw new AssertionError("deadline, offered " + offered + ", released " +
                        publisher.ring().releasedPosition());
                }
            }
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            for (int i = 0; i < SUBSCRIBERS; i++)
            {
                assertThat(received[i]).as("subscriber " + i).isEqualTo(MESSAGES);
                assertThat(publisher.subscriber(i).isFailed()).isFalse();
            }
            assertThat(orderErrors[0]).isZero();
            // Every ACK came from a resolved subscriber and was attributed to it.
            assertThat(publisherEndpoint.unknownPeerDatagrams()).isZero();
            assertThat(publisher.malformedDatagrams()).isZero();
            assertThat(publisherContext.udQueuePairs).isEqualTo(1);
            // Stored once: the ring is the endpoint's registered send region and every datagram's payload was
            // posted from it (only each path's header is copied).
            assertThat(publisher.ring().isSentInPlace()).isTrue();
            assertThat(publisherEndpoint.regionSends()).isEqualTo(publisherEndpoint.datagramsSent()).isPositive();
            System.out.printf("ud: %,d subscribers x %d messages from one UD queue pair in %,d ms; publisher sent %,d " +
                "datagrams, received %,d; no-receive drops at the publisher %,d%n", SUBSCRIBERS, MESSAGES, elapsedMs,
                publisherEndpoint.datagramsSent(), publisherEndpoint.datagramsReceived(),
                publisherDevice.datagramsDroppedNoReceive());
        }
        finally
        {
            endpoints.forEach(UdDatagramEndpoint::close);
        }
    }

    /** Counts the queue pairs and address handles made through it; everything else is passed through. */
    private static final class CountingContext extends ForwardingVerbsContext
    {
        int udQueuePairs;
        int addressHandles;

        CountingContext(final VerbsContext delegate)
        {
            super(delegate);
        }

        @Override
        public CmListener listen(final InetSocketAddress address, final int backlog)
        {
            throw new AssertionError("a UD endpoint must not listen");
        }

        @Override
        public CmConnection connect(final InetSocketAddress remote, final QueuePairConfig config)
        {
            throw new AssertionError("a UD endpoint must not make RC connections");
        }

        @Override
        public QueuePair createUdQueuePair(final QueuePairConfig config) throws IOException
        {
            udQueuePairs++;
            return delegate.createUdQueuePair(config);
        }

        @Override
        public AddressHandle createAddressHandle(final ProtectionDomain pd, final UdAddress remote) throws IOException
        {
            addressHandles++;
            return delegate.createAddressHandle(pd, remote);
        }

        @Override
        public void close()
        {
            delegate.close();
        }
    }
}
