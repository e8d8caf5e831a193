package io.rivulet.protocol.datagram.multicast;

import io.rivulet.counters.MulticastReceiveCounters;
import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.spi.MulticastSettings;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;

import java.util.ArrayList;
import java.util.SplittableRandom;

/**
 * A node's receiving side of multicast: its one receiving {@link MulticastEndpoint}, the groups it listens to, and
 * the {@link MulticastReceiver} images of the streams it takes. It polls the endpoint and hands DATA and LOST to the
 * images of their session, but only when they come from that stream's publisher (where the endpoint names the
 * source), so a datagram forged by another host on the group is dropped; malformed datagrams are dropped and counted.
 * An image starts reporting once its group is joined; one whose group failed says so ({@link #failure}).
 *
 * <p>Threading: the conductor, for everything; the endpoint belongs to it.
 */
public final class MulticastReceivers implements DatagramEndpoint.DatagramHandler, AutoCloseable
{
    private final MulticastSettings settings;
    private final MulticastEndpoint endpoint;
    private final MulticastGroups groups;
    private final SplittableRandom random;
    private final Int2ObjectHashMap<ArrayList<Image>> bySession = new Int2ObjectHashMap<>();
    private final ArrayList<Image> images = new ArrayList<>();
    private final int maxPayload;
    private long nowNs;
    private long malformedDatagrams;
    private long unknownSessions;
    private long foreignDatagrams;
    private long unexpectedDatagrams;
    private int lastError;
    private boolean closed;
    private MulticastReceiveCounters counters;
    private long nextSampleNs;
    // Totals of the images that closed, so the counters never go back when one does.
    private long retiredDatagrams;
    private long retiredBytes;
    private long retiredNaks;
    private long retiredSuppressed;
    private long retiredRepairs;
    private long retiredDuplicates;
    private long retiredLostBytes;

    /** How often the images' statistics reach the counters. */
    private static final long SAMPLE_INTERVAL_NS = 100_000_000L;

    /** An image, with the group it came through. */
    private static final class Image
    {
        final MulticastReceiver receiver;
        final String group;
        final int handle;
        String failure;

        Image(final MulticastReceiver receiver, final String group, final int handle)
        {
            this.receiver = receiver;
            this.group = group;
            this.handle = handle;
        }
    }

    /**
     * @param settings the protocol's settings, validated.
     * @param endpoint the node's receiving endpoint; closed with this.
     * @param seed     of the NAK back-off draws (a test passes a fixed one).
     */
    public MulticastReceivers(final MulticastSettings settings, final MulticastEndpoint endpoint, final long seed)
    {
        this.settings = settings;
        this.endpoint = endpoint;
        this.groups = new MulticastGroups(endpoint, true);
        this.random = new SplittableRandom(seed);
        this.maxPayload = endpoint.maxDatagramLength() - MulticastHeader.DATA_HEADER_LENGTH;
    }

    /** @return the address this node's NAKs and status messages come from, as offered to publishers. */
    public String localAddress()
    {
        return endpoint.localAddress();
    }

    /**
     * Starts taking a stream: joins its group (if no image of this node listens to it yet) and makes its image.
     *
     * @param group            the group, in the endpoint's form.
     * @param publisherAddress the publisher's unicast address, its datagrams' source.
     * @param remoteHost       the connection's remote host, for a publisher address with a wildcard host.
     * @throws IllegalArgumentException when the group or the address is refused (nothing was joined then).
     */
    public MulticastReceiver open(
        final String group,
        final String publisherAddress,
        final String remoteHost,
        final int sessionId,
        final int receiverId,
        final int capacity,
        final long startPosition,
        final int maxFrameLength,
        final MulticastReceiver.Consumer consumer)
    {
        final int publisher = endpoint.resolve(publisherAddress, remoteHost);
        final MulticastReceiver receiver = new MulticastReceiver(settings, endpoint, publisher, sessionId, receiverId,
            capacity, startPosition, maxFrameLength, consumer, random.split());
        final int handle = groups.acquire(group);
        final Image image = new Image(receiver, group, handle);
        images.add(image);
        bySession.computeIfAbsent(sessionId, id -> new ArrayList<>(1)).add(image);
        return receiver;
    }

    /** The image is no longer wanted: its datagrams are dropped, its group left if it was the last. */
    public void close(final MulticastReceiver receiver)
    {
        for (int i = 0; i < images.size(); i++)
        {
            final Image image = images.get(i);
            if (image.receiver == receiver)
            {
                images.remove(i);
                final ArrayList<Image> session = bySession.get(receiver.sessionId());
                if (session != null)
                {
                    session.remove(image);
                    if (session.isEmpty())
                    {
                        bySession.remove(receiver.sessionId());
                    }
                }
                groups.release(image.group);
                retiredDatagrams += receiver.datagrams();
                retiredBytes += receiver.bytes();
                retiredNaks += receiver.naksSent();
                retiredSuppressed += receiver.naksSuppressed();
                retiredRepairs += receiver.repairsReceived();
                retiredDuplicates += receiver.duplicates();
                retiredLostBytes += receiver.lostBytes();
                return;
            }
        }
    }

    /**
     * @return why the image's group could not be joined, or null while it has not failed.
     */
    public String failure(final MulticastReceiver receiver)
    {
        for (int i = 0; i < images.size(); i++)
        {
            if (images.get(i).receiver == receiver)
            {
                return images.get(i).failure;
            }
        }
        return null;
    }

    /**
     * Receives, then lets every image deliver, NAK and report.
     *
     * @return work done.
     */
    public int doWork(final long nowNs)
    {
        if (closed)
        {
            return 0;
        }
        this.nowNs = nowNs;
        int work = endpoint.poll(this, 1024);
        for (int i = 0, size = images.size(); i < size; i++)
        {
            final Image image = images.get(i);
            if (!image.receiver.isActive() && image.failure == null)
            {
                final int state = endpoint.groupState(image.handle);
                if (state == MulticastEndpoint.GROUP_JOINED)
                {
                    image.receiver.activate(nowNs);
                }
                else if (state == MulticastEndpoint.GROUP_FAILED)
                {
                    image.failure = endpoint.groupFailure(image.handle);
                    work++;
                    continue;
                }
            }
            work += image.receiver.doWork(nowNs);
        }
        if (counters != null && nowNs - nextSampleNs >= 0)
        {
            nextSampleNs = nowNs + SAMPLE_INTERVAL_NS;
            sampleCounters();
        }
        return work;
    }

    @Override
    public void onDatagram(final int peer, final DirectBuffer buffer, final int offset, final int length)
    {
        final int type = MulticastHeader.validate(buffer, offset, length, maxPayload);
        if (type < 0)
        {
            malformedDatagrams++;
            lastError = type;
            return;
        }
        if (type != MulticastHeader.TYPE_DATA && type != MulticastHeader.TYPE_LOST)
        {
            unexpectedDatagrams++;
            return;
        }
        final ArrayList<Image> session = bySession.get(MulticastHeader.sessionId(buffer, offset));
        if (session == null)
        {
            unknownSessions++; // another topic on the same group, or a stream this node left
            return;
        }
        for (int i = 0, size = session.size(); i < size; i++)
        {
            final MulticastReceiver receiver = session.get(i).receiver;
            if (peer != receiver.publisherPeer())
            {
                foreignDatagrams++; // not from the stream's publisher: forged or misrouted
                continue;
            }
            if (type == MulticastHeader.TYPE_DATA)
            {
                receiver.onData(buffer, offset, length, nowNs);
            }
            else if (MulticastHeader.receiverId(buffer, offset) == receiver.receiverId())
            {
                receiver.onLost(MulticastHeader.position(buffer, offset), nowNs);
            }
        }
    }

    /**
     * Gives the plane its counters, which it fills about every 100 ms from its work cycles and closes with itself.
     */
    public void counters(final MulticastReceiveCounters counters)
    {
        this.counters = counters;
    }

    private void sampleCounters()
    {
        long datagrams = retiredDatagrams;
        long bytes = retiredBytes;
        long naks = retiredNaks;
        long suppressed = retiredSuppressed;
        long repairs = retiredRepairs;
        long duplicates = retiredDuplicates;
        long lostBytes = retiredLostBytes;
        for (int i = 0, size = images.size(); i < size; i++)
        {
            final MulticastReceiver receiver = images.get(i).receiver;
            datagrams += receiver.datagrams();
            bytes += receiver.bytes();
            naks += receiver.naksSent();
            suppressed += receiver.naksSuppressed();
            repairs += receiver.repairsReceived();
            duplicates += receiver.duplicates();
            lostBytes += receiver.lostBytes();
        }
        counters.datagramsReceived.setRelease(datagrams);
        counters.bytesReceived.setRelease(bytes);
        counters.naksSent.setRelease(naks);
        counters.naksSuppressed.setRelease(suppressed);
        counters.repairsReceived.setRelease(repairs);
        counters.duplicates.setRelease(duplicates);
        counters.lostBytes.setRelease(lostBytes);
        counters.images.setRelease(images.size());
        counters.refused.setRelease(malformedDatagrams + foreignDatagrams);
    }

    /** @return images open. */
    public int imageCount()
    {
        return images.size();
    }

    /** @return groups listened to. */
    public int groupCount()
    {
        return groups.size();
    }

    public long malformedDatagrams()
    {
        return malformedDatagrams;
    }

    /** @return why the last malformed datagram was refused. */
    public String lastError()
    {
        return MulticastHeader.describe(lastError);
    }

    /** @return datagrams of no stream this node takes (other topics on a shared group included). */
    public long unknownSessions()
    {
        return unknownSessions;
    }

    /** @return datagrams of a known stream that did not come from its publisher. */
    public long foreignDatagrams()
    {
        return foreignDatagrams;
    }

    /** @return well-formed datagrams a receiver never takes (NAK, STATUS). */
    public long unexpectedDatagrams()
    {
        return unexpectedDatagrams;
    }

    /** @return the endpoint, for counters and tests. */
    public MulticastEndpoint endpoint()
    {
        return endpoint;
    }

    /** Closes the endpoint; every image stops. Idempotent. */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            if (counters != null)
            {
                sampleCounters();
                counters.close();
            }
            images.clear();
            bySession.clear();
            endpoint.close();
        }
    }
}
