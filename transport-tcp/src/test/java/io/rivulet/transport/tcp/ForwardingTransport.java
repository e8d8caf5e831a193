package io.rivulet.transport.tcp;

import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.LinkConnector;
import io.rivulet.spi.LinkListener;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.Transport;
import io.rivulet.spi.TransportDriver;
import io.rivulet.spi.TransportSettings;
import org.agrona.DirectBuffer;

import java.io.IOException;
import java.util.function.UnaryOperator;

/**
 * A transport that hands a node its delegate's drivers, with every link the node connects wrapped by a test's
 * {@link ForwardingLink}: a seam for watching or breaking what the engine does with its outgoing links.
 */
final class ForwardingTransport implements Transport
{
    private final Transport delegate;
    private final UnaryOperator<ReliableLink> wrapOutgoing;

    /**
     * @param delegate     the transport that does the work.
     * @param wrapOutgoing wraps each link a connect attempt yields.
     */
    ForwardingTransport(final Transport delegate, final UnaryOperator<ReliableLink> wrapOutgoing)
    {
        this.delegate = delegate;
        this.wrapOutgoing = wrapOutgoing;
    }

    @Override
    public String name()
    {
        return "forwarding-" + delegate.name();
    }

    @Override
    public TransportDriver open(final TransportSettings settings) throws IOException
    {
        final TransportDriver driver = delegate.open(settings);
        return new TransportDriver()
        {
            @Override
            public LinkListener listen(final String address) throws IOException
            {
                return driver.listen(address);
            }

            @Override
            public LinkConnector connect(final String address) throws IOException
            {
                final LinkConnector connector = driver.connect(address);
                return new LinkConnector()
                {
                    @Override
                    public ReliableLink poll() throws IOException
                    {
                        final ReliableLink link = connector.poll();
                        return link == null ? null : wrapOutgoing.apply(link);
                    }

                    @Override
                    public void close()
                    {
                        connector.close();
                    }
                };
            }

            @Override
            public int doWork(final long nowNs)
            {
                return driver.doWork(nowNs);
            }

            @Override
            public void close()
            {
                driver.close();
            }
        };
    }

    /** A link that passes every call to its delegate; tests override what they watch. */
    static class ForwardingLink implements ReliableLink
    {
        private final ReliableLink link;

        ForwardingLink(final ReliableLink link)
        {
            this.link = link;
        }

        @Override
        public boolean offer(final DirectBuffer buffer, final int offset, final int length)
        {
            return link.offer(buffer, offset, length);
        }

        @Override
        public int flush() throws IOException
        {
            return link.flush();
        }

        @Override
        public boolean isFlushed()
        {
            return link.isFlushed();
        }

        @Override
        public int poll(final FrameHandler handler, final int frameLimit) throws IOException
        {
            return link.poll(handler, frameLimit);
        }

        @Override
        public boolean needsFlushAfterPoll(final int framesDelivered)
        {
            return link.needsFlushAfterPoll(framesDelivered);
        }

        @Override
        public String peerPrincipal()
        {
            return link.peerPrincipal();
        }

        @Override
        public String remoteAddress()
        {
            return link.remoteAddress();
        }

        @Override
        public String localAddress()
        {
            return link.localAddress();
        }

        @Override
        public void close()
        {
            link.close();
        }
    }
}
