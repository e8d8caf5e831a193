package io.rivulet.transport.udp;

import io.rivulet.spi.DatagramProvider;
import io.rivulet.spi.TransportSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code "udp"} datagram network ({@code rivulet.datagrams=udp}), found through {@link java.util.ServiceLoader}:
 * the reliable-datagram protocols over UDP unicast (topic data per path, {@code rivulet.topicDatagrams}) and UDP
 * multicast groups, beside connections that stay on their transport (TCP). Hosts without RDMA get the datagram SPI
 * that RDMA's UD queue pairs give.
 *
 * <p>Settings: the ones given to the constructor, else {@code rivulet.udp.*} read when {@link #open} is called (see
 * {@link UdpSettings}).
 *
 * <p>Thread-safe: immutable; each {@link #open} gives an independent {@link UdpDatagramTransport}.
 */
public final class UdpDatagrams implements DatagramProvider
{
    /** The name users give in {@code rivulet.datagrams}. */
    public static final String NAME = "udp";

    private static final Logger LOG = LoggerFactory.getLogger(UdpDatagrams.class);

    private final UdpSettings settings;

    /** Public for {@link java.util.ServiceLoader}: settings from {@code rivulet.udp.*} at each {@link #open}. */
    public UdpDatagrams()
    {
        this.settings = null;
    }

    /**
     * @param settings the settings every {@link #open} uses (copied now, validated at open).
     */
    public UdpDatagrams(final UdpSettings settings)
    {
        this.settings = settings.copy();
    }

    @Override
    public String name()
    {
        return NAME;
    }

    /**
     * @param settings the node's; UDP takes its own socket sizes from {@link UdpSettings}.
     * @throws io.rivulet.ConfigurationException naming a bad {@code rivulet.udp.*} value.
     */
    @Override
    public UdpDatagramTransport open(final TransportSettings settings)
    {
        final UdpSettings udp = (null == this.settings ? new UdpSettings() : this.settings.copy()).validate();
        LOG.info("datagrams over UDP: {}", udp);
        return new UdpDatagramTransport(udp);
    }

    @Override
    public String toString()
    {
        return "UdpDatagrams{" + (null == settings ? "rivulet.udp.*" : settings.toString()) + "}";
    }
}
