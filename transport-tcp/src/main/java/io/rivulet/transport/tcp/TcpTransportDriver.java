package io.rivulet.transport.tcp;

import io.rivulet.spi.ReadinessWatch;
import io.rivulet.spi.SocketAddresses;
import io.rivulet.spi.TransportDriver;
import io.rivulet.spi.TransportSettings;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.function.Consumer;

/**
 * One node's TCP transport: non-blocking listeners, connectors and {@link TcpLink}s sharing one
 * {@link Selector}, with no thread of its own and none per connection.
 *
 * <p>{@link #doWork(long)} polls the selector without blocking and only records which channels are
 * ready; the engine's later {@code accept}, {@code poll} and connector {@code poll} calls do the I/O,
 * so an idle link costs no system call. The few links of an engine that never waits in the selector are read on
 * every poll instead, out of the selector's interest ({@link #DIRECT_READ_LINKS}).
 *
 * <p>The direct buffers of its links and TLS sessions come from one {@link BufferMemory}: they start small, grow on
 * demand, are freed explicitly when a link closes, and their growth beyond one frame each is capped driver-wide by
 * {@link TcpTransport#maxBufferMemory()}. {@link #allocatedBufferBytes()} tells what they hold.
 *
 * <p>Not thread-safe: every method, and every method of the listeners, connectors and links it creates,
 * must be called from the one engine thread that owns it (a link's send half excepted: see {@link TcpLink}).
 */
public final class TcpTransportDriver implements TransportDriver
{
    /** Pending connections a listener queues before the engine accepts them (capped by the OS). */
    public static final int LISTEN_BACKLOG = 1024;

    /**
     * Most links a driver reads directly, on every poll, while its engine never waits in the selector; with more, all
     * go through the selector. Each link read directly adds an idle {@code read} (about 0.4 µs) to every idle duty
     * cycle, and takes the epoll callback out of every segment its peer sends, which cost a ping-pong about 2 µs a
     * round trip (issue 16; docs/ARCHITECTURE.md section 8: with 1, a ping-pong beside 1 or 3 idle connections took
     * 2–5 µs longer than alone; with 4, as long). Aeron's receiver likewise polls its first few UDP transports one by
     * one and only more of them through the selector.
     */
    static final int DIRECT_READ_LINKS = 4;
    /**
     * While the links are read directly, the selector (listeners, connect attempts, a new link before its first bytes)
     * is polled once in this many duty cycles, or once this long, whichever comes first: an idle {@code selectNow} is
     * a system call (about 0.2 µs) in every cycle, and accepting a connection a few µs later costs nothing.
     */
    static final int DIRECT_READ_SELECT_CYCLES = 16;
    /** See {@link #DIRECT_READ_SELECT_CYCLES}. */
    static final long DIRECT_READ_SELECT_INTERVAL_NS = 20_000;

    private static final SelectionKey[] NO_KEYS = new SelectionKey[0];

    private final TransportSettings settings;
    /** TLS configuration and its context, or null for plain TCP. */
    private final TlsSettings tlsSettings;
    private final SSLContext sslContext;
    private final Selector selector;
    /** Any thread: a wake-up asked for by {@link #wakeUp()} and not yet consumed by {@link #awaitWork}. */
    private volatile boolean wakeUpRequested;
    private final BufferMemory bufferMemory;
    /** Links closed by the conductor while another thread sent on them: their send side is freed next duty cycle. */
    private final ArrayList<TcpLink> sendSidesToFree = new ArrayList<>();
    // Held in a field so the selector poll allocates nothing per duty cycle.
    private final Consumer<SelectionKey> onSelectedKey = this::onSelectedKey;
    private boolean closing;
    private long nowNs = System.nanoTime();
    /** The open links, for the choice between direct reads and the selector. */
    private final ArrayList<TcpLink> links = new ArrayList<>();
    /** Links are read directly now ({@link #updateReadMode()}). */
    private boolean directReads;
    /** The engine has waited in the selector once: from then on every link stays in its interest. */
    private boolean awaitedWork;
    /** Duty cycles since the last {@code selectNow}, and when it ran: the selector's pace under direct reads. */
    private int cyclesSinceSelect;
    private long lastSelectNs;
    /** {@code selectNow} calls so far, for tests. */
    private long selects;

    TcpTransportDriver(final TransportSettings settings) throws IOException
    {
        this(settings, null, TcpTransport.DEFAULT_MAX_BUFFER_MEMORY);
    }

    /**
     * @param settings        buffer sizes and frame limit.
     * @param tlsSettings     TLS for every link of this driver, or null for plain TCP.
     * @param maxBufferMemory bytes all buffers together may hold beyond one frame (or TLS record) each.
     * @throws io.rivulet.ConfigurationException when the TLS key or trust material cannot be loaded.
     */
    TcpTransportDriver(final TransportSettings settings, final TlsSettings tlsSettings, final long maxBufferMemory)
        throws IOException
    {
        this.settings = settings;
        this.tlsSettings = tlsSettings;
        this.sslContext = tlsSettings == null ? null : tlsSettings.newSslContext();
        this.bufferMemory = new BufferMemory(maxBufferMemory);
        this.selector = Selector.open();
    }

    /**
     * @return direct bytes the driver's links, TLS sessions and handshakes hold now. Any thread.
     */
    public long allocatedBufferBytes()
    {
        return bufferMemory.allocatedBytes();
    }

    /**
     * @return of {@link #allocatedBufferBytes()}, the bytes beyond one frame (or TLS record) per buffer, which
     *         {@link TcpTransport#maxBufferMemory()} caps. Any thread.
     */
    public long grownBufferBytes()
    {
        return bufferMemory.growthBytes();
    }

    /**
     * @return buffers that stayed at one frame (or TLS record) because {@link TcpTransport#maxBufferMemory()} was
     *         reached when they would have grown past it; each counted once, and its link kept working, with fewer
     *         bytes per system call. Any thread.
     */
    public long bufferGrowthsRefused()
    {
        return bufferMemory.growthsRefused();
    }

    /**
     * @return the TLS settings, or null when links are plain TCP.
     */
    public TlsSettings tlsSettings()
    {
        return tlsSettings;
    }

    /**
     * @return the settings the driver's links honour.
     */
    public TransportSettings settings()
    {
        return settings;
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException when the address is malformed.
     */
    @Override
    public TcpLinkListener listen(final String address) throws IOException
    {
        ensureOpen();
        if (tlsSettings != null && !tlsSettings.hasKeyMaterial())
        {
            throw new IOException("cannot listen on " + address + " with TLS: no certificate and key " +
                "(TlsSettings.keyStore or pem)");
        }
        final InetSocketAddress socketAddress = SocketAddresses.resolve(address);
        final ServerSocketChannel channel = ServerSocketChannel.open();
        try
        {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, Boolean.TRUE);
            if (settings.socketReceiveBufferLength() > 0)
            {
                // Inherited by accepted sockets, and only effective on the window when set before listen.
                channel.setOption(StandardSocketOptions.SO_RCVBUF, settings.socketReceiveBufferLength());
            }
            channel.bind(socketAddress, LISTEN_BACKLOG);

            return new TcpLinkListener(this, selector, channel);
        }
        catch (final IOException ex)
        {
            closeQuietly(channel);
            throw new IOException("cannot listen on " + address + ": " + ex.getMessage(), ex);
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(channel);
            throw ex;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>A refusal the OS reports at once is reported by the connector's {@code poll()}, like a later one.
     *
     * @throws IllegalArgumentException when the address is malformed.
     */
    @Override
    public TcpLinkConnector connect(final String address) throws IOException
    {
        ensureOpen();
        final InetSocketAddress socketAddress = SocketAddresses.resolve(address);
        final SocketChannel channel = SocketChannel.open();
        try
        {
            TcpLink.configure(channel, settings);
            final boolean connected = channel.connect(socketAddress);

            return new TcpLinkConnector(this, selector, channel, address, connected);
        }
        catch (final ConnectException ex)
        {
            closeQuietly(channel);
            return new TcpLinkConnector(this, address, TcpLinkConnector.connectFailure(address, ex));
        }
        catch (final IOException ex)
        {
            closeQuietly(channel);
            throw TcpLinkConnector.connectFailure(address, ex);
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(channel);
            throw ex;
        }
    }

    /**
     * Polls the selector without blocking and flags the ready listeners, connectors and links; frees the send side
     * of links closed in an earlier cycle. While the links are read directly the poll runs only every
     * {@link #DIRECT_READ_SELECT_CYCLES} cycles or {@link #DIRECT_READ_SELECT_INTERVAL_NS}.
     *
     * @param nowNs the cycle's clock, for TLS handshake deadlines.
     * @return the number of channels found ready.
     */
    @Override
    public int doWork(final long nowNs)
    {
        this.nowNs = nowNs;
        if (!selector.isOpen())
        {
            return 0;
        }
        if (!sendSidesToFree.isEmpty())
        {
            for (int i = 0; i < sendSidesToFree.size(); i++)
            {
                sendSidesToFree.get(i).freeSendSide();
            }
            sendSidesToFree.clear();
        }

        if (directReads && ++cyclesSinceSelect < DIRECT_READ_SELECT_CYCLES &&
            nowNs - lastSelectNs < DIRECT_READ_SELECT_INTERVAL_NS)
        {
            return 0;
        }
        cyclesSinceSelect = 0;
        lastSelectNs = nowNs;
        selects++;
        try
        {
            return selector.selectNow(onSelectedKey);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public boolean canAwaitWork()
    {
        return true;
    }

    /**
     * Waits in the selector ({@code epoll_wait} on Linux) until a channel is ready, {@link #wakeUp()} or the timeout.
     * The wake-up request is a flag of its own as well as {@code Selector.wakeup()}: the conductor's next
     * {@code selectNow} would clear the selector's own, and the request with it.
     */
    @Override
    public int awaitWork(final long timeoutMs)
    {
        if (wakeUpRequested)
        {
            wakeUpRequested = false;
            return 0;
        }
        if (!selector.isOpen())
        {
            return 0;
        }
        if (!awaitedWork)
        {
            // A directly read link is in no epoll set: back into the selector's interest before sleeping in it.
            awaitedWork = true;
            updateReadMode();
        }
        try
        {
            return selector.select(onSelectedKey, Math.max(1, timeoutMs));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        finally
        {
            wakeUpRequested = false;
        }
    }

    /**
     * Datagram sockets beside the links (UDP) wake {@link #awaitWork} too: each is registered for reads with a
     * {@link Watched} attachment, which records nothing (the endpoint reads its own sockets) and closes nothing.
     */
    @Override
    public ReadinessWatch readinessWatch()
    {
        return this::watch;
    }

    private void watch(final SelectableChannel channel)
    {
        try
        {
            channel.register(selector, SelectionKey.OP_READ, Watched.INSTANCE);
        }
        catch (final ClosedChannelException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** A datagram endpoint's socket in this selector: readiness only ends a sleep; its endpoint reads and closes it. */
    private enum Watched implements Selectable
    {
        INSTANCE;

        @Override
        public void onReady(final int readyOps)
        {
        }

        @Override
        public void close()
        {
        }
    }

    @Override
    public void wakeUp()
    {
        wakeUpRequested = true;
        selector.wakeup();
    }

    /**
     * @return true until {@link #close()}.
     */
    public boolean isOpen()
    {
        return selector.isOpen();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        if (!selector.isOpen())
        {
            return;
        }

        closing = true;
        for (final SelectionKey key : selector.keys().toArray(NO_KEYS))
        {
            final Object attachment = key.attachment();
            if (attachment instanceof Selectable)
            {
                ((Selectable)attachment).close();
            }
        }

        try
        {
            selector.close();
        }
        catch (final IOException ignore)
        {
            // Nothing left to release that the caller could act on.
        }
        // Not safe to free yet: a sender the engine did not stop first may still be inside them.
        for (int i = 0; i < sendSidesToFree.size(); i++)
        {
            sendSidesToFree.get(i).abandonSendSide();
        }
        sendSidesToFree.clear();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "TcpTransportDriver{" + (selector.isOpen() ? "open}" : "closed}");
    }

    TcpLink newLink(final SocketChannel channel) throws IOException
    {
        return added(new TcpLink(this, selector, channel, settings, null));
    }

    TcpLink newLink(final SocketChannel channel, final TlsSession tls) throws IOException
    {
        return added(new TcpLink(this, selector, channel, settings, tls));
    }

    /** @return how many times {@link #doWork(long)} has polled the selector. */
    long selects()
    {
        return selects;
    }

    /** @return true while the driver's links are read on every poll instead of through the selector. */
    boolean readsLinksDirectly()
    {
        return directReads;
    }

    private TcpLink added(final TcpLink link)
    {
        links.add(link);
        updateReadMode();
        link.readDirectly(directReads);
        return link;
    }

    /** A link closed: it leaves the list, and the selector deregisters its key. */
    void onLinkClosed(final TcpLink link)
    {
        links.remove(link);
        if (!closing)
        {
            updateReadMode();
        }
        onChannelClosed();
    }

    /**
     * Reads the links directly, on every poll and outside the selector's interest, while there are at most
     * {@link #DIRECT_READ_LINKS} and the engine has never waited in the selector (a busy-spin or INVOKER engine, or
     * one with an idle strategy of its own). A socket in an epoll set makes every write that lands in it run the epoll
     * callback, which a busy-polling reader does not need: without it a ping-pong between two busy nodes took about
     * 2 µs less per round trip (issue 16). With more links an idle cycle would read each of them, so they go back to
     * the selector; and an engine that sleeps in the selector needs every socket there.
     */
    private void updateReadMode()
    {
        final boolean direct = !awaitedWork && !closing && links.size() <= DIRECT_READ_LINKS;
        if (direct != directReads)
        {
            directReads = direct;
            for (int i = 0; i < links.size(); i++)
            {
                links.get(i).readDirectly(direct);
            }
        }
    }

    /** @return where the driver's links and TLS sessions take their buffers from. */
    BufferMemory bufferMemory()
    {
        return bufferMemory;
    }

    /**
     * A link closed by the conductor while another thread sent on it: its send side is freed at the next duty
     * cycle, by when that thread has released the link (the engine closes a link only after its sender released it).
     */
    void freeSendSideLater(final TcpLink link)
    {
        if (selector.isOpen() && !closing)
        {
            sendSidesToFree.add(link);
        }
        else
        {
            link.abandonSendSide();
        }
    }

    /** @return true when links of this driver handshake TLS before they come up. */
    boolean isTls()
    {
        return sslContext != null;
    }

    /** @return the clock of the last duty cycle, for handshake deadlines. */
    long nowNs()
    {
        return nowNs;
    }

    /**
     * A TLS session for a connected channel, client or server side.
     *
     * @param host the name or address connected to (client), checked against the server's certificate.
     * @param port the port connected to (client), or -1 on the server side.
     */
    TlsSession newTlsSession(final SocketChannel channel, final boolean client, final String host, final int port,
        final String peer)
    {
        final SSLEngine engine = client ? sslContext.createSSLEngine(host, port) : sslContext.createSSLEngine();
        engine.setUseClientMode(client);
        final SSLParameters parameters = engine.getSSLParameters();
        parameters.setProtocols(tlsSettings.protocols().toArray(new String[0]));
        if (client && tlsSettings.verifyHostname())
        {
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
        }
        if (!client)
        {
            parameters.setNeedClientAuth(tlsSettings.clientAuth() == TlsSettings.ClientAuth.REQUIRED);
        }
        engine.setSSLParameters(parameters);
        return new TlsSession(engine, channel, peer, bufferMemory);
    }

    /**
     * A registered channel is only really closed (its port released, its FIN sent) when the selector
     * deregisters its cancelled key, so select once now rather than wait for the next duty cycle.
     */
    void onChannelClosed()
    {
        if (!closing && selector.isOpen())
        {
            try
            {
                selector.selectNow(onSelectedKey);
            }
            catch (final IOException ignore)
            {
                // The next doWork reports a broken selector.
            }
        }
    }

    static void closeQuietly(final AutoCloseable closeable)
    {
        if (null != closeable)
        {
            try
            {
                closeable.close();
            }
            catch (final Exception ignore)
            {
                // Closing is best effort; the channel is unusable either way.
            }
        }
    }

    private void ensureOpen()
    {
        if (!selector.isOpen())
        {
            throw new IllegalStateException("TcpTransportDriver is closed");
        }
    }

    private void onSelectedKey(final SelectionKey key)
    {
        ((Selectable)key.attachment()).onReady(key.readyOps());
    }
}
