package io.rivulet.tools;

import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.Transports;
import io.rivulet.engine.Conductor;
import io.rivulet.tck.Await;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A flood of hostile connections logs a few lines, not two per connection: the node's default error handler and the
 * conductor's "connection ... ended" line each write at most one line a second per cause, and tell how many they held
 * back — the lines plus the counts they carry add up to every connection, as do the counters. The log goes through
 * SLF4J to java.util.logging here (the tools bind slf4j-jdk14), where the test listens.
 */
class RefusalLogTest
{
    private static final int CONNECTIONS = 200;
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final Pattern HELD_IN_LINE = Pattern.compile("\\(and ([\\d,]+) more like it in the last ");
    private static final Pattern HELD_ON_FLUSH = Pattern.compile("^([\\d,]+) more like this in the last ");

    @TempDir
    Path directory;

    private final List<String> errorLines = new CopyOnWriteArrayList<>();
    private final List<String> endedLines = new CopyOnWriteArrayList<>();
    private final Logger errorLogger = Logger.getLogger(Rivulet.class.getName());
    private final Logger conductorLogger = Logger.getLogger(Conductor.class.getName());
    private final Handler errorCapture = capture(errorLines);
    private final Handler endedCapture = capture(endedLines);

    @BeforeEach
    void listen()
    {
        errorLogger.addHandler(errorCapture);
        conductorLogger.addHandler(endedCapture);
    }

    @AfterEach
    void stopListening()
    {
        errorLogger.removeHandler(errorCapture);
        conductorLogger.removeHandler(endedCapture);
    }

    @Test
    void shouldLogAFewLinesForAFloodOfHostileConnectionsAndAccountForEveryOne() throws IOException
    {
        try (Rivulet node = Rivulet.launch(new Rivulet.Context().transport(Transports.tcp())
            .threadingMode(ThreadingMode.SHARED).nodeName("flooded").countersDirectory(directory.toString())))
        {
            final String address = node.bind("127.0.0.1:0", Responder.none()).block(TIMEOUT).localAddress();
            final long startNs = System.nanoTime();
            for (int i = 0; i < CONNECTIONS; i++)
            {
                sendGarbage(address);
            }
            final double seconds = (System.nanoTime() - startNs) / 1e9;
            Await.until(TIMEOUT, () -> node.counters().protocolErrors.get() == CONNECTIONS,
                () -> "protocol errors counted: " + node.counters().protocolErrors.get());

            // Every error and every end is told, in a line or in a count, once the held-back counts are flushed.
            Await.until(TIMEOUT, () -> told(errorLines) == CONNECTIONS && told(endedLines) == CONNECTIONS,
                () -> "told " + told(errorLines) + " errors in " + errorLines + " and " + told(endedLines) +
                    " ends in " + endedLines);
            assertThat(node.counters().errors.get()).as("errors counted").isGreaterThanOrEqualTo(CONNECTIONS);

            // At most one line a second per cause, and one more telling the tail: a handful, not 400.
            final long maxLines = 2 * ((long)Math.ceil(seconds) + 2);
            assertThat(errorLines).as("error lines for %d connections in %.1f s", CONNECTIONS, seconds)
                .hasSizeLessThanOrEqualTo((int)maxLines);
            assertThat(endedLines).as("ended lines for %d connections in %.1f s", CONNECTIONS, seconds)
                .hasSizeLessThanOrEqualTo((int)maxLines);
            assertThat(errorLines.get(0)).contains("rivulet node flooded: io.rivulet.ProtocolViolationException");
            assertThat(endedLines.get(0)).containsPattern("connection \\d+ from .* ended: .*ProtocolViolationException");
        }
    }

    /** @return events told by the lines: one per line, plus the counts of those held back. */
    private static long told(final List<String> lines)
    {
        long events = 0;
        for (final String line : lines)
        {
            final Matcher flushed = HELD_ON_FLUSH.matcher(line);
            if (flushed.find())
            {
                events += parse(flushed.group(1)); // a flush line tells held-back events only
                continue;
            }
            events++;
            final Matcher held = HELD_IN_LINE.matcher(line);
            if (held.find())
            {
                events += parse(held.group(1));
            }
        }
        return events;
    }

    private static long parse(final String count)
    {
        return Long.parseLong(count.replace(",", ""));
    }

    /** A length prefix that is negative: the node's link refuses the framing, a protocol violation. */
    private static void sendGarbage(final String address) throws IOException
    {
        final int colon = address.lastIndexOf(':');
        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress(address.substring(0, colon),
                Integer.parseInt(address.substring(colon + 1))), 5_000);
            socket.setSoTimeout(10_000);
            final byte[] garbage = new byte[64];
            Arrays.fill(garbage, (byte)0xAB);
            socket.getOutputStream().write(garbage);
            socket.getOutputStream().flush();
            final InputStream in = socket.getInputStream();
            final byte[] sink = new byte[256];
            while (in.read(sink) >= 0)
            {
                // Until the node closes: it answered ERROR and hung up.
            }
        }
        catch (final java.net.SocketException reset)
        {
            // A reset also ends it.
        }
    }

    private static Handler capture(final List<String> lines)
    {
        return new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                final String message = record.getMessage();
                if (message != null && message.contains("ProtocolViolationException"))
                {
                    lines.add(message);
                }
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
    }
}
