package io.rivulet.protocol;

import io.rivulet.Responder;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.counters.NodeCounters;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Two {@link ProtocolConnection}s, a client and a server, over a pair of {@link InMemoryLink}s,
 * driven deterministically: no threads, no sleeping, time injected. {@link #step()} does for both
 * connections what the engine's Conductor and Sender agents do: runs queued conductor commands,
 * drains each outbound ring into its link (honouring the connection's send mode), runs each
 * connection's duty cycle and fires due keepalive timers.
 *
 * <p>Test support; single-threaded.
 */
final class ProtocolHarness
{
    /** An arbitrary non-zero start so that no code can rely on the clock starting at 0. */
    static final long START_NS = TimeUnit.SECONDS.toNanos(1000);
    static final long INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(100);
    static final long TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(350);
    private static final int COMMANDS_PER_STEP = 256;
    private static final int FRAMES_PER_SEND = 256;
    private static final int MAX_STEPS = 10_000;

    /** The defaults: 512-byte frames, 64 KiB messages, a window of 8, keepalive 100 ms / 350 ms. */
    static ProtocolSettings settings()
    {
        return settings(512, 64 * 1024, 8);
    }

    static ProtocolSettings settings(final int maxFrameLength, final int maxMessageLength, final int streamWindow)
    {
        return new ProtocolSettings(maxFrameLength, maxMessageLength, streamWindow, INTERVAL_NS, TIMEOUT_NS, 64);
    }

    /** One connection with its link, counters, errors and the sender and timer state kept for it. */
    static final class Side
    {
        final String name;
        final EngineSideConnection connection;
        final InMemoryLink link;
        final NodeCounters counters;
        final List<Throwable> errors = new ArrayList<>();
        /** The side's node's spare reassembly buffers. */
        final ReassemblyPool reassemblies;
        long nextKeepaliveNs;
        boolean senderReleased;
        /** A frozen side's engine does nothing: a hung peer. */
        boolean frozen;

        Side(
            final String name,
            final InMemoryLink link,
            final ProtocolSettings settings,
            final int ringLength,
            final boolean client,
            final Responder responder,
            final MemoryBudget memory,
            final ArrayDeque<Runnable> commands,
            final long nowNs)
        {
            this.name = name;
            this.link = link;
            this.counters = new NodeCounters();
            this.reassemblies = ReassemblyPool.forNode(settings.maxMessageLength(), memory.nodeLimit(),
                System::nanoTime);
            final Outbound outbound = new Outbound(ringLength, settings.maxFrameLength(), counters.backPressureEvents);
            this.connection = new EngineSideConnection(new ProtocolConnection(link, outbound, settings,
                counters.connectionCounters(), client, responder, null, List.of(), memory, reassemblies,
                commands::add, errors::add, nowNs));
            this.nextKeepaliveNs = nowNs + settings.keepaliveIntervalNs();
        }

        List<SentFrame> sent()
        {
            return link.sent();
        }

        List<SentFrame> sent(final Predicate<SentFrame> filter)
        {
            return link.sent().stream().filter(filter).toList();
        }

        List<SentFrame> sent(final int type)
        {
            return sent(frame -> frame.type() == type);
        }

        List<SentFrame> sentOnStream(final int streamId)
        {
            return sent(frame -> frame.streamId() == streamId);
        }

        /** @return ERROR frames on stream 0 with this code. */
        List<SentFrame> connectionErrors(final ErrorCode code)
        {
            return sent(frame -> frame.type() == FrameType.ERROR && frame.streamId() == 0 &&
                frame.errorCode() == code.value());
        }

        /** @return the live streams in the connection's table (read by reflection: no test hook in main code). */
        int streamCount()
        {
            try
            {
                final Field table = ProtocolConnection.class.getDeclaredField("streams");
                table.setAccessible(true);
                final Field field = StreamTable.class.getDeclaredField("streams");
                field.setAccessible(true);
                return ((Map<?, ?>)field.get(table.get(connection.engine()))).size();
            }
            catch (final ReflectiveOperationException ex)
            {
                throw new AssertionError(ex);
            }
        }

        @Override
        public String toString()
        {
            return name;
        }
    }

    /** Builds a harness. */
    static final class Builder
    {
        private ProtocolSettings clientSettings = ProtocolHarness.settings();
        private ProtocolSettings serverSettings = ProtocolHarness.settings();
        private int ringLength = 64 * 1024;
        private Responder clientResponder = Responder.none();
        private Responder serverResponder = Responder.none();
        private boolean sendSetup = true;
        private MemoryBudget serverMemory = MemoryBudget.unlimited();

        Builder settings(final ProtocolSettings settings)
        {
            this.clientSettings = settings;
            this.serverSettings = settings;
            return this;
        }

        Builder clientSettings(final ProtocolSettings settings)
        {
            this.clientSettings = settings;
            return this;
        }

        Builder serverSettings(final ProtocolSettings settings)
        {
            this.serverSettings = settings;
            return this;
        }

        /** Capacity of each outbound ring, a power of two at least 8 frames long. */
        Builder ringLength(final int ringLength)
        {
            this.ringLength = ringLength;
            return this;
        }

        Builder clientResponder(final Responder responder)
        {
            this.clientResponder = responder;
            return this;
        }

        Builder serverResponder(final Responder responder)
        {
            this.serverResponder = responder;
            return this;
        }

        /** The server node's memory budget (unlimited by default). */
        Builder serverMemory(final MemoryBudget memory)
        {
            this.serverMemory = memory;
            return this;
        }

        /** False to leave the client's SETUP out, so that a test can inject its own first frame. */
        Builder sendSetup(final boolean sendSetup)
        {
            this.sendSetup = sendSetup;
            return this;
        }

        ProtocolHarness build()
        {
            return new ProtocolHarness(this);
        }
    }

    private final ArrayDeque<Runnable> commands = new ArrayDeque<>();
    final Side client;
    final Side server;
    private long nowNs = START_NS;
    private InMemoryLink currentLink;
    private final ControlledMessageHandler frameHandler = (msgTypeId, buffer, index, length) ->
        currentLink.offer(buffer, index, length) ? ControlledMessageHandler.Action.CONTINUE :
            ControlledMessageHandler.Action.ABORT;

    static Builder builder()
    {
        return new Builder();
    }

    private ProtocolHarness(final Builder builder)
    {
        final InMemoryLink[] links = InMemoryLink.pair();
        client = new Side("client", links[0], builder.clientSettings, builder.ringLength, true,
            builder.clientResponder, MemoryBudget.unlimited(), commands, nowNs);
        server = new Side("server", links[1], builder.serverSettings, builder.ringLength, false,
            builder.serverResponder, builder.serverMemory, commands, nowNs);
        if (builder.sendSetup)
        {
            client.connection.sendSetup(new byte[0], new byte[0]);
        }
    }

    long nowNs()
    {
        return nowNs;
    }

    /** One engine cycle at the current time. */
    int step()
    {
        return step(nowNs);
    }

    /**
     * One engine cycle: conductor commands, the sender for both connections, both connections' duty
     * cycles, then due keepalive timers.
     *
     * @param nowNs the cycle's clock; must not go backwards.
     * @return work done.
     */
    int step(final long nowNs)
    {
        if (nowNs < this.nowNs)
        {
            throw new IllegalArgumentException("time went backwards");
        }
        this.nowNs = nowNs;
        int work = runCommands();
        work += send(client);
        work += send(server);
        work += doWork(client, nowNs);
        work += doWork(server, nowNs);
        work += fireTimer(client, nowNs);
        work += fireTimer(server, nowNs);
        return work;
    }

    /** @return conductor commands queued and not yet run. */
    int commandsQueued()
    {
        return commands.size();
    }

    /** Only the sender's part of a cycle for one side: its ring to its link. */
    int sendFrames(final Side side)
    {
        return send(side);
    }

    /** Only one side's connection duty cycle at the current time (no commands, no sender). */
    int work(final Side side)
    {
        return doWork(side, nowNs);
    }

    /** Moves the clock forward and runs one cycle. */
    int advance(final long deltaNs)
    {
        return step(nowNs + deltaNs);
    }

    /** Runs n cycles at the current time. */
    void steps(final int n)
    {
        for (int i = 0; i < n; i++)
        {
            step();
        }
    }

    /** Steps at the current time until the condition holds; fails after a bounded number of steps. */
    void stepUntil(final BooleanSupplier condition)
    {
        for (int i = 0; i < MAX_STEPS; i++)
        {
            if (condition.getAsBoolean())
            {
                return;
            }
            step();
        }
        if (!condition.getAsBoolean())
        {
            throw new AssertionError("condition not reached within " + MAX_STEPS + " steps; client sent " +
                tail(client.sent()) + ", server sent " + tail(server.sent()));
        }
    }

    /** Steps at the current time until a few cycles in a row do no work. */
    void settle()
    {
        int idle = 0;
        for (int i = 0; i < MAX_STEPS && idle < 3; i++)
        {
            idle = step() == 0 ? idle + 1 : 0;
        }
        if (idle < 3)
        {
            throw new AssertionError("harness did not settle within " + MAX_STEPS + " steps");
        }
    }

    private static List<SentFrame> tail(final List<SentFrame> frames)
    {
        return frames.subList(Math.max(0, frames.size() - 10), frames.size());
    }

    private int runCommands()
    {
        int work = 0;
        Runnable command;
        while (work < COMMANDS_PER_STEP && (command = commands.poll()) != null)
        {
            command.run();
            work++;
        }
        return work;
    }

    /** What the Conductor does for one connection: its duty cycle, then a timer reschedule if asked for. */
    private static int doWork(final Side side, final long nowNs)
    {
        if (side.frozen)
        {
            return 0;
        }
        final int work = side.connection.doWork(nowNs);
        if (!side.connection.isFinished() && side.connection.takeKeepaliveChanged())
        {
            side.nextKeepaliveNs = nowNs + side.connection.keepaliveIntervalNs(); // granted or followed a new one
        }
        return work;
    }

    /** What the Sender agent does for one connection. */
    private int send(final Side side)
    {
        if (side.senderReleased || side.frozen)
        {
            return 0;
        }
        final EngineSideConnection connection = side.connection;
        final SendMode mode = connection.sendMode();
        if (mode == SendMode.RELEASE)
        {
            side.senderReleased = true;
            connection.onSenderReleased();
            return 1;
        }
        currentLink = side.link;
        final ManyToOneRingBuffer ring = connection.outboundRing().ring();
        int work = ring.controlledRead(frameHandler, FRAMES_PER_SEND);
        if (mode == SendMode.DRAIN && ring.consumerPosition() == ring.producerPosition() &&
            side.link.isFlushed())
        {
            side.senderReleased = true;
            connection.onSenderReleased();
            work++;
        }
        return work;
    }

    /** What the Conductor's keepalive timer does for one connection. */
    private static int fireTimer(final Side side, final long nowNs)
    {
        if (!side.frozen && side.nextKeepaliveNs > 0 && nowNs >= side.nextKeepaliveNs)
        {
            side.nextKeepaliveNs = side.connection.onKeepaliveTimer(nowNs);
            return 1;
        }
        return 0;
    }

    // ------------------------------------------------------------------------ raw frames for injection

    private static final FrameWriter WRITER = new FrameWriter();
    private static final ExpandableArrayBuffer BUFFER = new ExpandableArrayBuffer(1024);

    static byte[] payloadFrame(
        final int type, final int streamId, final int initialRequestN, final byte flags, final byte[] metadata,
        final byte[] data)
    {
        synchronized (BUFFER)
        {
            BUFFER.checkLimit(FrameWriter.payloadFrameLength(type, metadata.length, data.length));
            final int length = WRITER.writePayloadFrame(BUFFER, 0, type, streamId, initialRequestN, flags,
                new org.agrona.concurrent.UnsafeBuffer(metadata), 0, metadata.length,
                new org.agrona.concurrent.UnsafeBuffer(data), 0, data.length);
            return copy(length);
        }
    }

    static byte[] payloadFrame(final int streamId, final byte flags, final byte[] data)
    {
        return payloadFrame(FrameType.PAYLOAD, streamId, 0, flags, new byte[0], data);
    }

    static byte[] requestNFrame(final int streamId, final int n)
    {
        synchronized (BUFFER)
        {
            return copy(WRITER.writeRequestN(BUFFER, 0, streamId, n));
        }
    }

    static byte[] keepaliveFrame(final boolean respond, final long timestampNs)
    {
        synchronized (BUFFER)
        {
            return copy(WRITER.writeKeepalive(BUFFER, 0, respond, timestampNs));
        }
    }

    static byte[] setupFrame(final int version, final int keepaliveIntervalMs, final int keepaliveTimeoutMs,
        final int maxFrameLength)
    {
        synchronized (BUFFER)
        {
            return copy(WRITER.writeSetup(BUFFER, 0, version, keepaliveIntervalMs, keepaliveTimeoutMs, maxFrameLength,
                new byte[0], new byte[0]));
        }
    }

    static byte[] validSetupFrame(final ProtocolSettings settings)
    {
        return setupFrame(ProtocolConnection.PROTOCOL_VERSION, (int)TimeUnit.NANOSECONDS.toMillis(INTERVAL_NS),
            (int)TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NS), settings.maxFrameLength());
    }

    private static byte[] copy(final int length)
    {
        final byte[] frame = new byte[length];
        BUFFER.getBytes(0, frame);
        return frame;
    }
}
