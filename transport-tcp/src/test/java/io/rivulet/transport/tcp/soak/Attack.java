package io.rivulet.transport.tcp.soak;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One kind of hostile peer, many connections of it, driven by one thread over a {@link Selector}: opening
 * connections (each from the next of its loopback source addresses, so that a per-address defence cannot simply shut
 * one address out), writing what the kind writes, reading what the server sends (its ERROR and CLOSE texts are
 * counted by reason, {@link ServerReplies}), and noticing when the server closes a connection. Subclasses decide what to open and send in {@link #tick}.
 * Everything is bounded: connections open at a time and opened per second.
 *
 * <p>Threading: the attack's own thread does all the I/O; the counters are read by the test.
 */
abstract class Attack implements AutoCloseable
{
    private static final int READS_PER_WAKE_UP = 16;

    final String name;
    private final InetSocketAddress target;
    private final Thread thread;
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(64 * 1024);
    private final Set<Peer> peers = new LinkedHashSet<>();
    private final Map<String, AtomicLong> extra = new ConcurrentHashMap<>();
    /** The ERROR and CLOSE texts the server sent, by reason. */
    private final Map<String, Long> reasons = new ConcurrentHashMap<>();
    private volatile boolean stopping;
    private volatile Throwable failure;
    private final int firstSource;
    private final int lastSource;
    private Selector selector;
    private int nextSource;

    final AtomicLong opened = new AtomicLong();
    final AtomicLong connectFailures = new AtomicLong();
    final AtomicLong closedByServer = new AtomicLong();
    final AtomicLong bytesSent = new AtomicLong();
    final AtomicLong bytesReceived = new AtomicLong();
    final AtomicInteger open = new AtomicInteger();

    /** One connection of the attack. */
    static final class Peer
    {
        final SocketChannel channel;
        final long openedNs;
        final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
        final ServerReplies replies = new ServerReplies();
        SelectionKey key;
        boolean connected;
        /** What the subclass keeps per connection. */
        Object state;

        Peer(final SocketChannel channel, final long openedNs)
        {
            this.channel = channel;
            this.openedNs = openedNs;
        }

        /** @return bytes waiting to be written: the server is not reading them. */
        long pendingBytes()
        {
            long pending = 0;
            for (final ByteBuffer buffer : out)
            {
                pending += buffer.remaining();
            }
            return pending;
        }
    }

    /**
     * The loopback addresses an attack leaves from, 127.0.0.{@code first} to 127.0.0.{@code last}.
     *
     * @param first the lowest last byte, at least 2 (127.0.0.1 is the good client's).
     * @param last  the highest, at most 254.
     */
    record SourceRange(int first, int last)
    {
        SourceRange
        {
            if (first < 2 || last > 254 || last < first)
            {
                throw new IllegalArgumentException("source range 127.0.0." + first + "-" + last);
            }
        }

        /**
         * @param letter the attack's letter, a to f.
         * @return its share of 127.0.0.2 to 127.0.0.50: eight addresses each (the last nine), none shared, so that
         * one attack does not earn another a per-address penalty (a guesser's back-off refusing the hogs' SETUPs).
         */
        static SourceRange of(final char letter)
        {
            final int index = letter - 'a';
            final int first = 2 + 8 * index;
            return new SourceRange(first, letter == 'f' ? 50 : first + 7);
        }
    }

    /** A token bucket: at most {@code perSecond} events a second, bursts of at most a second's worth. */
    static final class Rate
    {
        private final double perSecond;
        private double tokens;
        private long lastNs = System.nanoTime();

        Rate(final double perSecond)
        {
            this.perSecond = perSecond;
        }

        /** @return how many events may happen now (consumed). */
        long take(final long nowNs, final long wanted)
        {
            tokens = Math.min(perSecond, tokens + (nowNs - lastNs) * perSecond / TimeUnit.SECONDS.toNanos(1));
            lastNs = nowNs;
            final long granted = Math.min(wanted, (long)tokens);
            tokens -= granted;
            return granted;
        }
    }

    /**
     * @param name    how the summary names it, e.g. "(c) silent sockets".
     * @param target  the server.
     * @param sources the last byte of its loopback source addresses, {@code 127.0.0.<first>} to {@code <last>}.
     */
    Attack(final String name, final InetSocketAddress target, final SourceRange sources)
    {
        this.name = name;
        this.target = target;
        this.firstSource = sources.first();
        this.lastSource = sources.last();
        this.nextSource = sources.first();
        this.thread = new Thread(this::run, "soak-attack " + name);
        this.thread.setDaemon(true);
    }

    /** Starts the attack's thread. */
    final void start()
    {
        thread.start();
    }

    /** Attack thread, every wake-up (at least every 5 ms): open, write, time out what the kind does. */
    abstract void tick(long nowNs);

    /** Attack thread: a connection is established. */
    void onConnected(final Peer peer, final long nowNs)
    {
    }

    /** Attack thread: bytes arrived from the server (the buffer is only valid during the call). */
    void onData(final Peer peer, final ByteBuffer data, final long nowNs)
    {
    }

    /** Attack thread: the server closed (or reset) the connection, before the attack did. */
    void onClosedByServer(final Peer peer, final long nowNs)
    {
    }

    /** @return the connections open now, oldest first: a copy, so the caller may close some (attack thread only). */
    final List<Peer> peers()
    {
        return new ArrayList<>(peers);
    }

    /** Adds to one of the attack's own counters, shown in its summary. */
    final void count(final String counter, final long delta)
    {
        extra.computeIfAbsent(counter, ignored -> new AtomicLong()).addAndGet(delta);
    }

    /** @return an attack-specific counter. */
    final long counter(final String counter)
    {
        final AtomicLong value = extra.get(counter);
        return value == null ? 0 : value.get();
    }

    /** Attack thread: opens a connection from the next source address; null when the connect failed at once. */
    final Peer open(final long nowNs)
    {
        final String source = "127.0.0." + nextSource;
        nextSource = nextSource == lastSource ? firstSource : nextSource + 1;
        SocketChannel channel = null;
        try
        {
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.bind(new InetSocketAddress(source, 0));
            final Peer peer = new Peer(channel, nowNs);
            final boolean connected = channel.connect(target);
            peer.key = channel.register(selector, connected ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, peer);
            peers.add(peer);
            opened.incrementAndGet();
            open.incrementAndGet();
            if (connected)
            {
                peer.connected = true;
                onConnected(peer, nowNs);
            }
            return peer;
        }
        catch (final IOException ex)
        {
            connectFailures.incrementAndGet();
            closeQuietly(channel);
            return null;
        }
    }

    /** Attack thread: queues bytes and writes what the socket takes now. */
    final void send(final Peer peer, final byte[] bytes)
    {
        peer.out.add(ByteBuffer.wrap(bytes));
        flush(peer);
    }

    /** Attack thread: closes a connection; {@code reset} sends RST instead of FIN. */
    final void close(final Peer peer, final boolean reset)
    {
        if (!peers.remove(peer))
        {
            return;
        }
        open.decrementAndGet();
        try
        {
            if (reset && peer.channel.isOpen())
            {
                peer.channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
        }
        catch (final IOException ignored)
        {
            // closing anyway
        }
        closeQuietly(peer.channel);
    }

    private void run()
    {
        try (Selector opened = Selector.open())
        {
            selector = opened;
            while (!stopping)
            {
                tick(System.nanoTime());
                selector.select(5);
                final long nowNs = System.nanoTime();
                final Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext())
                {
                    final SelectionKey key = keys.next();
                    keys.remove();
                    if (key.isValid())
                    {
                        onReady(key, (Peer)key.attachment(), nowNs);
                    }
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            failure = ex;
        }
        finally
        {
            for (final Peer peer : new ArrayList<>(peers))
            {
                close(peer, false);
            }
        }
    }

    private void onReady(final SelectionKey key, final Peer peer, final long nowNs)
    {
        try
        {
            if (key.isConnectable())
            {
                if (!peer.channel.finishConnect())
                {
                    return;
                }
                peer.connected = true;
                key.interestOps(SelectionKey.OP_READ);
                onConnected(peer, nowNs);
            }
            if (key.isValid() && key.isReadable())
            {
                for (int i = 0; i < READS_PER_WAKE_UP; i++)
                {
                    readBuffer.clear();
                    final int read = peer.channel.read(readBuffer);
                    if (read < 0)
                    {
                        serverClosed(peer, nowNs);
                        return;
                    }
                    if (read == 0)
                    {
                        break;
                    }
                    bytesReceived.addAndGet(read);
                    readBuffer.flip();
                    peer.replies.onData(readBuffer.duplicate(), reasons);
                    onData(peer, readBuffer, nowNs);
                    if (!peers.contains(peer))
                    {
                        return; // the subclass closed it
                    }
                }
            }
            if (key.isValid() && key.isWritable())
            {
                flush(peer);
            }
        }
        catch (final IOException ex)
        {
            if (peer.connected)
            {
                serverClosed(peer, nowNs); // reset by the server
            }
            else
            {
                connectFailures.incrementAndGet();
                close(peer, false);
            }
        }
    }

    private void serverClosed(final Peer peer, final long nowNs)
    {
        closedByServer.incrementAndGet();
        onClosedByServer(peer, nowNs);
        close(peer, false);
    }

    private void flush(final Peer peer)
    {
        if (!peer.connected || !peers.contains(peer))
        {
            return;
        }
        try
        {
            while (!peer.out.isEmpty())
            {
                final ByteBuffer buffer = peer.out.peek();
                bytesSent.addAndGet(peer.channel.write(buffer));
                if (buffer.hasRemaining())
                {
                    peer.key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                    return;
                }
                peer.out.poll();
            }
            peer.key.interestOps(SelectionKey.OP_READ);
        }
        catch (final IOException ex)
        {
            serverClosed(peer, System.nanoTime());
        }
    }

    /** @return one line: what the attack did and what the server did to it. */
    String summary()
    {
        final Map<String, Long> counters = new TreeMap<>();
        extra.forEach((key, value) -> counters.put(key, value.get()));
        return String.format("%-22s opened=%d connectFailures=%d closedByServer=%d openNow=%d sent=%.1fMiB " +
            "received=%.1fKiB %s%s serverSaid=%s%s", name, opened.get(), connectFailures.get(), closedByServer.get(),
            open.get(), bytesSent.get() / 1048576.0, bytesReceived.get() / 1024.0, counters, details(),
            ServerReplies.sorted(reasons), failure == null ? "" : " FAILED: " + failure);
    }

    /** @return what else the kind reports in its summary line. */
    String details()
    {
        return "";
    }

    /** @return what stopped the attack's thread, or null. */
    Throwable failure()
    {
        return failure;
    }

    /** Stops the attack and closes its connections. */
    @Override
    public void close()
    {
        stopping = true;
        try
        {
            thread.join(30_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(final SocketChannel channel)
    {
        if (channel != null)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignored)
            {
                // nothing to do
            }
        }
    }
}
