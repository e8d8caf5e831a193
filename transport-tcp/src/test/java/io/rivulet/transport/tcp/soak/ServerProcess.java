package io.rivulet.transport.tcp.soak;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The attacked node's JVM ({@link SoakServerMain}): started with a fixed heap and every GC and compiler thread
 * created at start (so its thread count moves only with what the node does), watched through its output (the READY
 * line, the latest STATS line, the last lines of anything else, such as an OutOfMemoryError) and {@code /proc}.
 * Closing it closes the child's input, which ends it; a child that does not end is killed.
 */
final class ServerProcess implements AutoCloseable
{
    private static final int KEPT_LINES = 40;

    private final Process process;
    private final int port;
    private final long pid;
    private final ArrayDeque<String> otherLines = new ArrayDeque<>();
    private final AtomicInteger outOfMemoryErrors = new AtomicInteger();
    private volatile String lastStats = "none";

    private ServerProcess(final Process process, final int port, final long pid)
    {
        this.process = process;
        this.port = port;
        this.pid = pid;
    }

    /**
     * @param token       the token the server accepts.
     * @param lifetimeSec the longest the child lives if nobody closes it.
     * @param jvmArgs     more flags for its JVM.
     * @return the started server, listening.
     */
    static ServerProcess start(final String token, final long lifetimeSec, final List<String> jvmArgs)
        throws IOException, InterruptedException
    {
        final String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        final List<String> command = new ArrayList<>(List.of(java,
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
            SoakSettings.SERVER_HEAP,
            "-XX:-UseDynamicNumberOfGCThreads", "-XX:-UseDynamicNumberOfCompilerThreads",
            "-Drivulet.countersFile=false"));
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
            SoakServerMain.class.getName(), token, Long.toString(lifetimeSec)));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final BlockingQueue<String> ready = new LinkedBlockingQueue<>();
        final ServerProcess[] started = new ServerProcess[1];
        final ArrayDeque<String> early = new ArrayDeque<>();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)))
            {
                for (String line = in.readLine(); line != null; line = in.readLine())
                {
                    final ServerProcess server;
                    synchronized (early)
                    {
                        server = started[0];
                        if (server == null)
                        {
                            early.add(line);
                        }
                    }
                    if (line.startsWith("READY "))
                    {
                        ready.add(line);
                    }
                    else if (server != null)
                    {
                        server.onLine(line);
                    }
                }
            }
            catch (final IOException ignored)
            {
                // the child is gone
            }
        }, "soak-server-output");
        reader.setDaemon(true);
        reader.start();

        final String line = ready.poll(60, TimeUnit.SECONDS);
        if (line == null)
        {
            process.destroyForcibly();
            synchronized (early)
            {
                throw new IllegalStateException("the soak server did not start:\n" + String.join("\n", early));
            }
        }
        final String[] fields = line.split(" ");
        final ServerProcess server = new ServerProcess(process, Integer.parseInt(fields[1]), Long.parseLong(fields[2]));
        synchronized (early)
        {
            started[0] = server;
            early.forEach(server::onLine);
        }
        return server;
    }

    private void onLine(final String line)
    {
        if (line.startsWith("STATS "))
        {
            lastStats = line.substring("STATS ".length());
            if (line.contains("OutOfMemoryError") && outOfMemoryErrors.get() == 0)
            {
                outOfMemoryErrors.incrementAndGet(); // one its error handler caught: the node went on
            }
            return;
        }
        if (line.startsWith("READY "))
        {
            return;
        }
        if (line.contains("OutOfMemoryError"))
        {
            outOfMemoryErrors.incrementAndGet();
        }
        synchronized (otherLines)
        {
            otherLines.add(line);
            if (otherLines.size() > KEPT_LINES)
            {
                otherLines.poll();
            }
        }
    }

    int port()
    {
        return port;
    }

    long pid()
    {
        return pid;
    }

    boolean isAlive()
    {
        return process.isAlive();
    }

    /** @return the exit code, or -1 while it runs. */
    int exitCode()
    {
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** @return its figures now. */
    ProcessStats stats() throws IOException
    {
        return ProcessStats.of(pid);
    }

    /** @return the latest STATS line it printed. */
    String lastStats()
    {
        return lastStats;
    }

    /** @return output lines naming an OutOfMemoryError so far (a STATS line counts once, for the error handler's). */
    int outOfMemoryErrors()
    {
        return outOfMemoryErrors.get();
    }

    /** @return the last lines it printed that were not READY or STATS lines. */
    String otherOutput()
    {
        synchronized (otherLines)
        {
            return String.join("\n", otherLines);
        }
    }

    @Override
    public void close()
    {
        try
        {
            process.getOutputStream().close(); // its input ends: it closes its node and exits
        }
        catch (final IOException ignored)
        {
            // already gone
        }
        try
        {
            if (!process.waitFor(20, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                process.waitFor(20, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
