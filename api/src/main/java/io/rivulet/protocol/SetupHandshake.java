package io.rivulet.protocol;

import io.rivulet.Acceptor;
import io.rivulet.Connection;
import io.rivulet.ConnectionLostException;
import io.rivulet.ConnectionSetup;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.RivuletException;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.counters.ConnectionCounters;
import io.rivulet.security.AuthenticationException;
import io.rivulet.security.Authenticator;
import io.rivulet.security.Credentials;
import io.rivulet.spi.ReliableLink;
import reactor.core.publisher.Sinks;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One connection's SETUP exchange, on the conductor.
 *
 * <ul>
 *   <li><b>Server</b>: the first frame must be a valid SETUP (version, keepalive, frame length) that the
 *       authenticator accepts and the acceptor, when there is one, accepts (choosing the connection's responder);
 *       otherwise ERROR (INVALID_SETUP, UNSUPPORTED_SETUP or REJECTED_SETUP) and the
 *       connection closes. No SETUP within the set-up timeout closes it too. An accepted SETUP gives the connection
 *       its full outbound ring, sets the frame length limit and the keepalive the client asked for, within the
 *       server's bound, and is answered with a SETUP of the server's own that says what was granted.</li>
 *   <li><b>Client</b>: sends SETUP; the connect completes when the server's first frame shows it accepted (its
 *       SETUP answer, whose keepalive the client then follows; an older server's KEEPALIVE), fails when it
 *       refuses, the connection ends, or nothing arrives within the set-up timeout.</li>
 * </ul>
 */
final class SetupHandshake
{
    /** Version of the protocol carried in SETUP. */
    static final int PROTOCOL_VERSION = 1;
    /** Smallest frame length a client may ask for: room for every control frame. */
    private static final int MIN_FRAME_LENGTH = 256;

    private final ReliableLink link;
    private final Outbound outbound;
    private final ControlFrames control;
    private final ConnectionClose close;
    private final Keepalive keepalive;
    private final ProtocolSettings settings;
    private final ConnectionCounters counters;
    private final Consumer<Throwable> errorHandler;
    private final String remoteAddress;
    private final long createdNs;
    /** Server side: who may connect; null accepts everyone. */
    private Authenticator authenticator;
    /** Server side: chooses the responder from the SETUP, or refuses; null serves the responder given at creation. */
    private Acceptor acceptor;
    private Connection connection;
    private Consumer<Responder> serve;
    /** Server side: who the authenticator named, for the acceptor. */
    private String principal;
    private final boolean client;
    private boolean complete;
    /** Client: whether the server's answer to SETUP arrived. */
    private boolean answered;
    /** Client side: completed when the server's first frame shows it accepted SETUP; null once done. */
    private Sinks.One<Connection> acceptance;
    private long acceptanceDeadlineNs;

    SetupHandshake(
        final boolean client,
        final ReliableLink link,
        final Outbound outbound,
        final ControlFrames control,
        final ConnectionClose close,
        final Keepalive keepalive,
        final ProtocolSettings settings,
        final ConnectionCounters counters,
        final Authenticator authenticator,
        final Consumer<Throwable> errorHandler,
        final long nowNs)
    {
        this.link = link;
        this.outbound = outbound;
        this.control = control;
        this.close = close;
        this.keepalive = keepalive;
        this.settings = settings;
        this.counters = counters;
        this.authenticator = authenticator;
        this.errorHandler = errorHandler;
        this.remoteAddress = link.remoteAddress();
        this.createdNs = nowNs;
        this.client = client;
        this.complete = client;
    }

    /** Server, before the first duty cycle: replaces the authenticator (tests). */
    void authenticator(final Authenticator authenticator)
    {
        this.authenticator = authenticator;
    }

    /**
     * Server, before the first duty cycle: an acceptor chooses the connection's responder from its SETUP.
     *
     * @param acceptor   run once SETUP is authenticated.
     * @param connection the server's side of the connection, handed to the acceptor.
     * @param serve      takes the responder the acceptor chose.
     */
    void acceptor(final Acceptor acceptor, final Connection connection, final Consumer<Responder> serve)
    {
        this.acceptor = acceptor;
        this.connection = connection;
        this.serve = serve;
    }

    /** @return true once SETUP was accepted (server) or sent (client). */
    boolean isComplete()
    {
        return complete;
    }

    /** Client: queues SETUP with the node's keepalive and frame length and the application's metadata and data. */
    void sendSetup(final byte[] metadata, final byte[] data)
    {
        final int length = FrameWriter.setupLength(metadata.length, data.length);
        final int index = outbound.claim(length);
        if (index <= 0)
        {
            throw new IllegalStateException("outbound ring full before SETUP");
        }
        Frames.writer().writeSetup(outbound.ring().buffer(), index, PROTOCOL_VERSION,
            (int)TimeUnit.NANOSECONDS.toMillis(settings.keepaliveIntervalNs()),
            (int)TimeUnit.NANOSECONDS.toMillis(settings.keepaliveTimeoutNs()), settings.maxFrameLength(),
            metadata, data);
        outbound.commit(index);
    }

    /** Client, after {@link #sendSetup}: the sink completes with the connection once the server accepted. */
    void awaitAcceptance(final Sinks.One<Connection> acceptance, final long nowNs)
    {
        this.acceptance = acceptance;
        this.acceptanceDeadlineNs = nowNs + settings.setupTimeoutNs();
    }

    /** Conductor: closes the connection when SETUP, or the server's acceptance, is overdue. @return work done. */
    int checkDeadline(final long nowNs)
    {
        if (!complete && nowNs - createdNs > settings.setupTimeoutNs())
        {
            final String reason = "no SETUP within " + TimeUnit.NANOSECONDS.toMillis(settings.setupTimeoutNs()) +
                " ms (rivulet.setupTimeout)";
            counters.onSetupTimeout();
            control.error(0, ErrorCode.INVALID_SETUP, reason);
            close.closeGracefully(new RejectedException("connection from " + remoteAddress + " closed: " + reason),
                null, null);
            return 1;
        }
        if (acceptance != null && nowNs - acceptanceDeadlineNs > 0)
        {
            close.lose(new ConnectionLostException("server " + remoteAddress + " did not answer SETUP within " +
                TimeUnit.NANOSECONDS.toMillis(settings.setupTimeoutNs()) + " ms (rivulet.setupTimeout)"));
            return 1;
        }
        return 0;
    }

    /**
     * Client: a frame after SETUP. Any frame but CLOSE or a connection ERROR shows the server accepted.
     *
     * @param connection what the connect completes with.
     */
    void onFrameAfterSetup(final int type, final int streamId, final Connection connection)
    {
        if (acceptance != null && type != FrameType.CLOSE && !(type == FrameType.ERROR && streamId == 0))
        {
            final Sinks.One<Connection> accepted = acceptance;
            acceptance = null;
            if (accepted.tryEmitValue(connection).isFailure())
            {
                connection.close(); // the connect was cancelled meanwhile
            }
        }
    }

    /** The connection is closing before the server accepted: the connect fails with the cause. */
    void onClosing(final RivuletException cause)
    {
        final Sinks.One<Connection> accepted = acceptance;
        if (accepted != null)
        {
            acceptance = null;
            accepted.tryEmitError(cause);
        }
    }

    /**
     * Server: the first frame. Accepts a valid SETUP the authenticator lets in, else refuses it and closes.
     *
     * @return true when SETUP was accepted.
     */
    boolean onFirstFrame(final FrameReader reader)
    {
        final int type = reader.frameType();
        if (type != FrameType.SETUP)
        {
            return reject(ErrorCode.INVALID_SETUP, "expected SETUP as the first frame, got " + FrameType.name(type));
        }
        if (reader.protocolVersion() != PROTOCOL_VERSION)
        {
            return reject(ErrorCode.UNSUPPORTED_SETUP, "unsupported protocol version " + reader.protocolVersion() +
                " (this node speaks " + PROTOCOL_VERSION + ")");
        }
        if (reader.keepaliveIntervalMs() <= 0 || reader.keepaliveTimeoutMs() <= reader.keepaliveIntervalMs())
        {
            return reject(ErrorCode.INVALID_SETUP, "keepalive interval " + reader.keepaliveIntervalMs() +
                " ms and timeout " + reader.keepaliveTimeoutMs() + " ms are not valid");
        }
        if (reader.maxFrameLength() > settings.maxFrameLength())
        {
            return reject(ErrorCode.REJECTED_SETUP, "client max frame length " + reader.maxFrameLength() +
                " exceeds this server's " + settings.maxFrameLength());
        }
        if (reader.maxFrameLength() < MIN_FRAME_LENGTH)
        {
            return reject(ErrorCode.INVALID_SETUP, "max frame length " + reader.maxFrameLength() + " below " +
                MIN_FRAME_LENGTH);
        }
        principal = link.peerPrincipal();
        if (authenticator != null && !authenticate(reader))
        {
            return false;
        }
        // The acceptor chooses the responder now, while this frame is read: the frames after SETUP, requests
        // included, are read only once it has.
        if (acceptor != null && !accept(reader))
        {
            return false;
        }
        if (!outbound.expand()) // SETUP accepted: now the connection gets its full ring
        {
            close.lose(new RivuletException("connection from " + remoteAddress + " cannot take its full outbound " +
                "ring: frames were queued before SETUP"));
            return false;
        }
        outbound.limitFrameLength(reader.maxFrameLength());
        // Like RSocket, the server follows the client's keepalive so that neither side times the other out, but
        // within its own bound; the answer tells the client what it got.
        keepalive.grant(reader.keepaliveIntervalMs(), reader.keepaliveTimeoutMs(), settings.maxKeepaliveTimeoutNs());
        control.setupAnswer(keepalive.intervalNs(), keepalive.timeoutNs(), settings.maxFrameLength());
        complete = true;
        return true;
    }

    /**
     * Client: the server's SETUP, its answer to ours: the keepalive it granted, which this side follows. Anything
     * else (a second answer, a SETUP from a client, values that make no sense) is a protocol violation.
     *
     * @return null when followed, else what is wrong with it.
     */
    String onSetupAnswer(final FrameReader reader)
    {
        if (!client || answered)
        {
            return "unexpected SETUP after set-up";
        }
        answered = true;
        if (reader.keepaliveIntervalMs() <= 0 || reader.keepaliveTimeoutMs() <= reader.keepaliveIntervalMs())
        {
            return "the server's answer grants keepalive interval " + reader.keepaliveIntervalMs() +
                " ms and timeout " + reader.keepaliveTimeoutMs() + " ms, which are not valid";
        }
        keepalive.acceptGrant(reader.keepaliveIntervalMs(), reader.keepaliveTimeoutMs());
        return null;
    }

    private boolean authenticate(final FrameReader reader)
    {
        final byte[] metadata = new byte[reader.metadataLength()];
        reader.buffer().getBytes(reader.metadataOffset(), metadata);
        try
        {
            final Credentials credentials = new Credentials(metadata, link.peerPrincipal(), remoteAddress);
            authenticator.authenticate(credentials);
            principal = authenticator.principal(credentials);
            return true;
        }
        catch (final AuthenticationException ex)
        {
            counters.onSetupRejected();
            errorHandler.accept(new RejectedException("connection from " + remoteAddress + " refused: " +
                ex.getMessage()));
            control.error(0, ErrorCode.REJECTED_SETUP, ex.getMessage());
            close.closeGracefully(new RejectedException(ex.getMessage()), null, null);
            return false;
        }
        catch (final RuntimeException ex)
        {
            // A broken authenticator refuses: failing open would let anyone in.
            counters.onSetupRejected();
            errorHandler.accept(ex);
            control.error(0, ErrorCode.REJECTED_SETUP, "authentication failed");
            close.closeGracefully(new RejectedException("authenticator failed: " + ex), null, null);
            return false;
        }
    }

    private boolean accept(final FrameReader reader)
    {
        final byte[] metadata = new byte[reader.metadataLength()];
        reader.buffer().getBytes(reader.metadataOffset(), metadata);
        final byte[] data = new byte[reader.dataLength()];
        reader.buffer().getBytes(reader.dataOffset(), data);
        try
        {
            final Responder responder = acceptor.accept(new ConnectionSetup(metadata, data, principal, remoteAddress),
                connection);
            if (responder == null)
            {
                throw new IllegalStateException("acceptor " + acceptor + " returned no responder");
            }
            serve.accept(responder);
            return true;
        }
        catch (final RejectedException ex)
        {
            counters.onSetupRejected();
            errorHandler.accept(new RejectedException("connection from " + remoteAddress + " refused by the " +
                "acceptor: " + ex.getMessage()));
            control.error(0, ErrorCode.REJECTED_SETUP, String.valueOf(ex.getMessage()));
            close.closeGracefully(new RejectedException(String.valueOf(ex.getMessage())), null, null);
            return false;
        }
        catch (final RuntimeException ex)
        {
            // A broken acceptor refuses: it chose nothing to serve the connection with.
            counters.onSetupRejected();
            errorHandler.accept(ex);
            control.error(0, ErrorCode.REJECTED_SETUP, "connection refused: the server's acceptor failed");
            close.closeGracefully(new RejectedException("acceptor failed: " + ex), null, null);
            return false;
        }
    }

    private boolean reject(final ErrorCode code, final String reason)
    {
        counters.onProtocolError();
        control.error(0, code, reason);
        close.closeGracefully(new RejectedException(reason), null, null);
        return false;
    }
}
