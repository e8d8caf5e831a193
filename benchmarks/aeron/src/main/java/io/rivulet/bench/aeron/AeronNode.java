package io.rivulet.bench.aeron;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.rivulet.bench.harness.Waits;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.File;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One process's Aeron: an embedded media driver in SHARED threading mode (conductor, sender and receiver
 * on one thread) in a directory of its own, or the driver of another process, and a client connected to
 * it. Default term lengths and MTU.
 *
 * <p>Options: {@code --driver-idle} (the driver thread's idle strategy), {@code --idle} (the application
 * threads' idle strategy while polling): busy, yield, backoff, noop, sleep.
 */
final class AeronNode implements AutoCloseable
{
    static final int PING_STREAM = 1001;
    static final int PONG_STREAM = 1002;

    final MediaDriver driver;
    final Aeron aeron;
    final String driverIdle;

    /**
     * Launches an embedded driver, or with {@code --dir} connects to the one another process of this
     * benchmark launched (one media driver per host, as Aeron is deployed).
     */
    AeronNode(final Options options, final String role)
    {
        driverIdle = options.driverIdle;
        final String existing = options.dir;
        if (existing != null)
        {
            driver = null;
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(existing));
            return;
        }
        final File base = new File("/dev/shm").isDirectory() ? new File("/dev/shm") :
            new File(System.getProperty("java.io.tmpdir"));
        final String dir = new File(base, "rivulet-bench-aeron-" + role + "-" + ProcessHandle.current().pid())
            .getAbsolutePath();
        driver = MediaDriver.launchEmbedded(new MediaDriver.Context()
            .aeronDirectoryName(dir)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(idleStrategy(driverIdle))
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true));
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
    }

    String directory()
    {
        return aeron.context().aeronDirectoryName();
    }

    static IdleStrategy idleStrategy(final String name)
    {
        switch (name)
        {
            case "busy":
                return new BusySpinIdleStrategy();
            case "yield":
                return new YieldingIdleStrategy();
            case "backoff":
                return new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1));
            case "noop":
                return new NoOpIdleStrategy();
            case "sleep":
                return new SleepingMillisIdleStrategy(1);
            default:
                throw new IllegalArgumentException("unknown idle strategy " + name);
        }
    }

    /** Offers a whole message, spinning (with the idle strategy) while back-pressured or not yet connected. */
    static void offer(
        final ExclusivePublication publication,
        final DirectBuffer buffer,
        final int length,
        final IdleStrategy idle) throws TimeoutException
    {
        long result;
        long deadlineNs = 0;
        while ((result = publication.offer(buffer, 0, length)) < 0)
        {
            if (result == io.aeron.Publication.CLOSED || result == io.aeron.Publication.MAX_POSITION_EXCEEDED)
            {
                throw new IllegalStateException("publication " + (result == io.aeron.Publication.CLOSED ? "closed" :
                    "at its maximum position"));
            }
            if (deadlineNs == 0)
            {
                deadlineNs = Waits.deadline();
            }
            else
            {
                Waits.check(deadlineNs, "room in the publication");
            }
            idle.idle();
        }
        idle.reset();
    }

    static int kind(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public void close()
    {
        CloseHelper.closeAll(aeron, driver);
    }

    /** The options of an Aeron process: the server's, and the client's own node. */
    @Command(name = "AeronServerMain",
        description = "Aeron's serving process for UDP: the host's media driver and the pong thread.")
    static class Options
    {
        @Option(names = "--idle", paramLabel = "STRATEGY", defaultValue = "busy",
            description = "idle strategy of the ping and pong threads: busy, backoff, yield, sleep, noop " +
                "(default ${DEFAULT-VALUE})")
        String idle;

        @Option(names = "--driver-idle", paramLabel = "STRATEGY", defaultValue = "backoff",
            description = "the embedded media driver's idle strategy (default ${DEFAULT-VALUE})")
        String driverIdle;

        @Option(names = "--dir", paramLabel = "DIR",
            description = "connect to the media driver in DIR instead of launching one (the server's READY line " +
                "gives it)")
        String dir;
    }

    /** The client's options: its node's, the channel, and the server's ports. */
    @Command(name = "AeronClientMain",
        description = "Aeron's benchmark client: the harness's workloads over IPC in this process, or over UDP " +
            "against an AeronServerMain.")
    static final class ClientOptions extends Options
    {
        @Option(names = "--channel", paramLabel = "CHANNEL", defaultValue = "ipc",
            description = "ipc (both sides in this process) or udp (default ${DEFAULT-VALUE})")
        String channel;

        @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "udp: the server's subscription port, from its READY line (default ${DEFAULT-VALUE})")
        int port;

        @Option(names = "--port2", paramLabel = "PORT", defaultValue = "0",
            description = "udp: the port the server publishes replies to (default ${DEFAULT-VALUE})")
        int port2;
    }
}
