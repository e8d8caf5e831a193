package io.rivulet.bench.coordinator;

import java.util.ArrayList;
import java.util.List;

/**
 * The systems compared, and how each is configured. Settings are chosen once, stated in every row, and the
 * same in short and full mode.
 *
 * <p>Idle strategies, chosen so that a 2-core machine is not asked to run more spinning threads than it
 * has cores (a third spinner turns microseconds into scheduler time slices):
 * <ul>
 *   <li>Rivulet: SHARED threading (one engine thread per node) with busy-spin, and again with the default
 *       back-off; the application thread parks while it waits for a reply, as {@code Mono.block()} does. A
 *       third row runs the client in INVOKER mode: the application thread runs the engine's duty cycle while
 *       it waits, so each side has exactly one spinning thread, like the busy-poll floor.</li>
 *   <li>RSocket: Netty's event loops block in epoll; the application thread parks, as for Rivulet.</li>
 *   <li>Rivulet over the soft RDMA provider: back-off, because the provider's NIC thread needs a core too
 *       (with busy-spinning engines on 2 cores it starves and a round trip takes milliseconds). Request-response
 *       only with {@code window} in flight ({@code flatMap} and {@code offerRequest}): the one-in-flight rows
 *       ({@code concatMap}, {@code block()}) would cost the short mode about a minute at the soft provider's round
 *       trip, and the TCP rows already show what the API adds.</li>
 *   <li>Floors: one thread per side, spinning (busy-poll) or blocked in read (blocking).</li>
 *   <li>Aeron IPC: ping and pong threads busy-spin, the driver (idle for IPC) backs off. Aeron UDP: the
 *       driver's thread and the ping and pong threads all have work on every message, three on two cores,
 *       so all three yield.</li>
 * </ul>
 *
 * <p>Fan-out 1→8 (Rivulet and Aeron; the floors and RSocket have none, and their rows say why): Rivulet's
 * publisher is a thread of the server process offering to a topic; its eight subscribers are eight connections
 * of the client process's node, all on that node's engine. Aeron's publisher and its eight subscriptions
 * (polled by one thread) are in the client process, over IPC or UDP multi-destination-cast through the one
 * media driver. Each system keeps its row's idle strategies.
 */
final class Plan
{
    /** Every JVM of every system gets these, so heap sizing never differs between rows. */
    static final List<String> COMMON_JVM_FLAGS = List.of("-Xms1g", "-Xmx1g", "-XX:+UseG1GC",
        "-Djava.net.preferIPv4Stack=true");

    /** Why the TCP floors have no fan-out row. */
    static final String FLOOR_NO_FANOUT = "n/a: a floor is one socket between two threads; it has no fan-out layer " +
        "to measure (writing the same bytes to 8 sockets would only measure the kernel)";
    /** Why RSocket has no fan-out row. */
    static final String RSOCKET_NO_FANOUT = "n/a: RSocket has no fan-out (no topics, no broadcast): every stream is " +
        "one requester to one responder";

    private Plan()
    {
    }

    static List<SystemSpec> systems(final String rivuletFlagsFile)
    {
        final List<String> rivuletFlags = List.of("@" + rivuletFlagsFile);
        final List<String> rdmaFlags = new ArrayList<>(rivuletFlags);
        rdmaFlags.add("-Drivulet.rdma.provider=soft");
        final List<String> aeronFlags = List.of("--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED");

        final List<SystemSpec> systems = new ArrayList<>();
        systems.add(new SystemSpec("floor-busy", "TCP floor, busy-poll", "floors",
            "io.rivulet.bench.floors.FloorServer", "io.rivulet.bench.floors.FloorClient",
            List.of("--variant", "busy"), List.of("--variant", "busy"), List.of(),
            "non-blocking SocketChannel, TCP_NODELAY, both sides busy-poll", false, false, 1, 1, FLOOR_NO_FANOUT));
        systems.add(new SystemSpec("floor-blocking", "TCP floor, blocking", "floors",
            "io.rivulet.bench.floors.FloorServer", "io.rivulet.bench.floors.FloorClient",
            List.of("--variant", "blocking"), List.of("--variant", "blocking"), List.of(),
            "java.net.Socket, TCP_NODELAY, both sides block in read", false, false, 1, 1, FLOOR_NO_FANOUT));
        systems.add(new SystemSpec("rivulet-tcp-busy", "Rivulet TCP, busy-spin", "rivulet",
            "io.rivulet.bench.rivulet.RivuletServer", "io.rivulet.bench.rivulet.RivuletClient",
            List.of("--transport", "tcp", "--threading", "SHARED", "--idle", "busy", "--wait", "park"),
            List.of("--transport", "tcp", "--threading", "SHARED", "--idle", "busy", "--wait", "park"),
            rivuletFlags, "SHARED threading, busy-spin idle (both nodes), caller parks in block()", true, false, 3, 4, null));
        systems.add(new SystemSpec("rivulet-tcp-invoker", "Rivulet TCP, INVOKER client", "rivulet",
            "io.rivulet.bench.rivulet.RivuletServer", "io.rivulet.bench.rivulet.RivuletClient",
            List.of("--transport", "tcp", "--threading", "SHARED", "--idle", "busy", "--wait", "park"),
            List.of("--transport", "tcp", "--threading", "INVOKER"),
            rivuletFlags, "client INVOKER (caller runs the engine's duty cycle), server SHARED busy-spin", true, false, 3, 3, null));
        systems.add(new SystemSpec("rivulet-tcp-backoff", "Rivulet TCP, back-off", "rivulet",
            "io.rivulet.bench.rivulet.RivuletServer", "io.rivulet.bench.rivulet.RivuletClient",
            List.of("--transport", "tcp", "--threading", "SHARED", "--idle", "backoff", "--wait", "park"),
            List.of("--transport", "tcp", "--threading", "SHARED", "--idle", "backoff", "--wait", "park"),
            rivuletFlags, "SHARED threading, back-off idle (the default; both nodes), caller waits in block() (runs the cycle the engine lends it)",
            true, false, 3, 4, null));
        systems.add(new SystemSpec("rivulet-rdma-inprocess", "Rivulet soft RDMA, in-process", "rivulet",
            null, "io.rivulet.bench.rivulet.RivuletClient",
            List.of(),
            List.of("--transport", "rdma", "--in-process", "true", "--threading", "SHARED", "--idle", "backoff",
                "--wait", "park", "--rr-apis", "flatMap,offerRequest"),
            rdmaFlags, "soft provider, SHARED threading, back-off idle (both nodes), caller parks in block()", true, true, 3, 2, null));
        systems.add(new SystemSpec("rivulet-rdma", "Rivulet soft RDMA, 2 processes", "rivulet",
            "io.rivulet.bench.rivulet.RivuletServer", "io.rivulet.bench.rivulet.RivuletClient",
            List.of("--transport", "rdma", "--threading", "SHARED", "--idle", "backoff", "--wait", "park"),
            List.of("--transport", "rdma", "--threading", "SHARED", "--idle", "backoff", "--wait", "park",
                "--rr-apis", "flatMap,offerRequest"),
            rdmaFlags, "soft provider, SHARED threading, back-off idle (both nodes), caller parks in block()", true, true, 3, 2, null));
        systems.add(new SystemSpec("rsocket", "RSocket TCP", "rsocket",
            "io.rivulet.bench.rsocket.RSocketServerMain", "io.rivulet.bench.rsocket.RSocketClientMain",
            List.of(), List.of("--wait", "park"), List.of(),
            "Netty event loops (block in epoll), ZERO_COPY decoder, caller parks for replies", false, false, 1, 3, RSOCKET_NO_FANOUT));
        systems.add(new SystemSpec("aeron-ipc", "Aeron IPC", "aeron",
            null, "io.rivulet.bench.aeron.AeronClientMain",
            List.of(), List.of("--channel", "ipc", "--idle", "busy", "--driver-idle", "backoff"), aeronFlags,
            "embedded driver (SHARED, back-off), ping and pong threads busy-spin", false, false, 1, 1, null));
        systems.add(new SystemSpec("aeron-udp", "Aeron UDP", "aeron",
            "io.rivulet.bench.aeron.AeronServerMain", "io.rivulet.bench.aeron.AeronClientMain",
            List.of("--idle", "yield", "--driver-idle", "yield"),
            List.of("--channel", "udp", "--idle", "yield", "--driver-idle", "yield"), aeronFlags,
            "one media driver (SHARED, yielding), ping and pong threads poll and yield", false, false, 1, 1, null));
        return systems;
    }
}
