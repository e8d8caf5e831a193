package io.rivulet.transport.tcp;

import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.tcp.TcpTestSupport.CapturingTransport;
import reactor.core.publisher.Mono;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The node {@link TcpConnectionChurnTest} churns connections against, in a process of its own so that its resident
 * set is its alone (and its heap fixed and touched up front, so that heap growth does not pass for a leak). Binds
 * {@code 127.0.0.1:0}, prints {@code READY <port> <pid>}, then answers each {@code STATUS} line on stdin with
 * {@code STATUS <connections opened> <connections closed> <transport direct bytes> <direct pool bytes> <VmRSS kB>},
 * and exits at end of input.
 */
public final class ChurnServerMain
{
    private ChurnServerMain()
    {
    }

    /** @param args none. */
    public static void main(final String[] args) throws IOException
    {
        final CapturingTransport transport = new CapturingTransport(TcpTransport.plain());
        try (Rivulet node = Rivulet.launch(new Rivulet.Context()
            .transport(transport)
            .threadingMode(ThreadingMode.SHARED)
            .errorHandler(error -> { })); // thousands of lost connections: counted by the node, not printed
            BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)))
        {
            final Server server = node.bind("127.0.0.1:0", Responder.builder()
                .requestResponse(request -> Mono.just(Message.of("echo"))).build()).block(TestTime.seconds(30));
            final String address = server.localAddress();
            System.out.println("READY " + address.substring(address.lastIndexOf(':') + 1) + " " +
                ProcessHandle.current().pid());
            System.out.flush();
            for (String command = commands.readLine(); command != null; command = commands.readLine())
            {
                if ("STATUS".equals(command))
                {
                    System.out.println("STATUS " + node.counters().connectionsOpened.get() + " " +
                        node.counters().connectionsClosed.get() + " " + transport.driver().allocatedBufferBytes() + " " +
                        TcpTestSupport.directMemoryUsed() + " " + residentSetKb());
                    System.out.flush();
                }
            }
        }
    }

    private static long residentSetKb() throws IOException
    {
        for (final String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII))
        {
            if (line.startsWith("VmRSS:"))
            {
                return Long.parseLong(line.substring("VmRSS:".length()).replace("kB", "").trim());
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
