package io.rivulet.spring.boot;

import io.rivulet.RivuletException;
import io.rivulet.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;

/**
 * The auto-configured server ({@code rivulet.server.port}): binds when the application context starts, after every
 * singleton exists, and closes first when it stops, so nothing is served by a half-built or half-closed
 * application. {@link #port()} gives the bound port, the real one when 0 was asked for. While it listens, one
 * non-daemon thread keeps the JVM alive, so an application that only serves does not end with its main method.
 *
 * <p>Thread-safe: the lifecycle methods are serialised; the accessors may be called from any thread.
 */
public final class RivuletServer implements SmartLifecycle
{
    /** Like Spring's web servers: start after ordinary lifecycle beans, stop before them. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;
    private static final Duration BIND_TIMEOUT = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(RivuletServer.class);

    private final String address;
    private final Function<String, Mono<Server>> bind;
    private volatile Server server;
    private CountDownLatch stopped;

    /**
     * @param address {@code host:port} to bind.
     * @param bind    binds an address, serving what the application serves (its Acceptor, or its Responder).
     */
    public RivuletServer(final String address, final Function<String, Mono<Server>> bind)
    {
        this.address = address;
        this.bind = bind;
    }

    @Override
    public synchronized void start()
    {
        if (server != null)
        {
            return;
        }
        final Server bound;
        try
        {
            bound = bind.apply(address).block(BIND_TIMEOUT);
        }
        catch (final RuntimeException ex)
        {
            throw new RivuletException("rivulet.server: cannot listen on " + address + ": " + ex.getMessage(), ex);
        }
        if (bound == null)
        {
            throw new RivuletException("rivulet.server: binding " + address + " gave no server");
        }
        server = bound;
        // The engine's threads are daemons: without one ordinary thread, an application that only serves would
        // end as soon as its main method returned (Spring's web servers keep one for the same reason).
        // It ends when the context stops the server, or when the server closes on its own (the node failed).
        final CountDownLatch latch = new CountDownLatch(1);
        stopped = latch;
        bound.onClose().subscribe(null, error -> latch.countDown(), latch::countDown);
        final Thread awaitThread = new Thread(() ->
        {
            try
            {
                latch.await();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }, "rivulet-server-" + port());
        awaitThread.setDaemon(false);
        awaitThread.start();
        LOG.info("Rivulet server listening on {}", bound.localAddress());
    }

    @Override
    public synchronized void stop()
    {
        final Server bound = server;
        if (bound != null)
        {
            server = null;
            bound.close();
            stopped.countDown();
        }
    }

    @Override
    public boolean isRunning()
    {
        return server != null;
    }

    @Override
    public int getPhase()
    {
        return PHASE;
    }

    /**
     * @return the bound address as {@code host:port}.
     * @throws IllegalStateException when the server is not running.
     */
    public String localAddress()
    {
        final Server bound = server;
        if (bound == null)
        {
            throw new IllegalStateException("the Rivulet server is not running (" + address + ")");
        }
        return bound.localAddress();
    }

    /**
     * @return the bound port, the real one when port 0 was asked for.
     * @throws IllegalStateException when the server is not running.
     */
    public int port()
    {
        final String local = localAddress();
        return Integer.parseInt(local.substring(local.lastIndexOf(':') + 1));
    }

    @Override
    public String toString()
    {
        final Server bound = server;
        return "RivuletServer{" + (bound == null ? address + ", stopped" : bound.localAddress()) + "}";
    }
}
