package io.rivulet.protocol;

import io.rivulet.ConnectionClosedException;
import io.rivulet.ConnectionLostException;
import io.rivulet.ProtocolViolationException;
import io.rivulet.RejectedException;
import io.rivulet.RivuletException;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.counters.ConnectionCounters;
import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.Violation;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * One connection's close state machine, on the conductor:
 *
 * <pre>
 *  OPEN ─closeGracefully─▶ DRAINING: CLOSE queued, the sender drains the ring ─▶ awaiting the peer's close ─┐
 *   └───lose / closeByPeer─▶ RELEASING: the sender drops the ring ──────────────────────────────────────────┴─▶ FINISHED
 * </pre>
 *
 * <p>The first cause wins; later ones are ignored. Beginning the close tells the connection (its listener) to end
 * its streams and extensions; finishing closes the link and completes {@link #onClose()}: with an error when the
 * connection was lost, broken by the peer or rejected, empty otherwise. A close that takes longer than a second
 * (a sender that cannot drain, a peer that never closes) is cut short.
 *
 * <p>Threading: {@link #isOpen()}, {@link #sendMode()} and {@link #onClose()} from any thread; the sender reports
 * through {@link #onSenderReleased()} and {@link #onSendFailed}; everything else on the conductor.
 */
final class ConnectionClose
{
    private static final FrameHandler DISCARD = (buffer, offset, length) -> { };
    private static final long CLOSE_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(1);

    private final ReliableLink link;
    private final Outbound outbound;
    private final ControlFrames control;
    private final ConnectionCounters counters;
    private final Consumer<RivuletException> onClosing;
    private final LongSupplier clock;
    private final int frameLimit;
    private final String remoteAddress;
    private final Sinks.Empty<Void> closed = Sinks.empty();

    private volatile boolean open = true;
    private volatile SendMode sendMode = SendMode.ACTIVE;
    private volatile boolean senderReleased;
    private volatile IOException sendFailure;

    // Conductor state.
    private RivuletException cause;
    private long deadlineNs;
    private boolean awaitPeerClose;
    private boolean finished;

    /**
     * @param onClosing  called once when the close begins, with its cause: ends streams and extensions.
     * @param clock      the conductor's clock of the current cycle.
     * @param frameLimit frames read per poll while waiting for the peer's close.
     */
    ConnectionClose(
        final ReliableLink link,
        final Outbound outbound,
        final ControlFrames control,
        final ConnectionCounters counters,
        final Consumer<RivuletException> onClosing,
        final LongSupplier clock,
        final int frameLimit)
    {
        this.link = link;
        this.outbound = outbound;
        this.control = control;
        this.counters = counters;
        this.onClosing = onClosing;
        this.clock = clock;
        this.frameLimit = frameLimit;
        this.remoteAddress = link.remoteAddress();
    }

    /** Any thread. */
    boolean isOpen()
    {
        return open;
    }

    /** Any thread. */
    SendMode sendMode()
    {
        return sendMode;
    }

    /** Any thread: completes when the close finished. */
    Mono<Void> onClose()
    {
        return closed.asMono();
    }

    /** Conductor: true once the close began. */
    boolean isClosing()
    {
        return cause != null;
    }

    /** Conductor: true once the link is closed and the sender let go: the conductor drops the connection. */
    boolean isFinished()
    {
        return finished;
    }

    /** Sender: it no longer touches the link. */
    void onSenderReleased()
    {
        senderReleased = true;
    }

    /** Sender: writing to the link failed. */
    void onSendFailed(final IOException failure)
    {
        sendFailure = failure;
    }

    /** Conductor: loses the connection if the sender reported a failed write. @return work done. */
    int checkSendFailure()
    {
        final IOException failure = sendFailure;
        if (failure != null && cause == null)
        {
            lose(new ConnectionLostException("connection to " + remoteAddress + " lost: " + failure.getMessage(),
                failure));
            return 1;
        }
        return 0;
    }

    /** The error for an operation attempted on the closed connection: its close cause, or a plain closed error. */
    RivuletException closedError()
    {
        final RivuletException closeCause = cause;
        return closeCause != null ? closeCause :
            new ConnectionClosedException("connection to " + remoteAddress + " is closed");
    }

    /**
     * The peer broke the protocol: counts it, tells the error handler, answers ERROR (CONNECTION_ERROR) and closes.
     */
    void protocolViolation(final Violation reason, final String detail, final Consumer<Throwable> errorHandler)
    {
        counters.onProtocolError();
        final String message = "protocol violation by " + remoteAddress + ": " + detail;
        errorHandler.accept(new ProtocolViolationException(message, reason));
        control.error(0, ErrorCode.CONNECTION_ERROR, detail);
        closeGracefully(new ProtocolViolationException(message, reason), null, null);
    }

    /** Ends the streams, queues CLOSE (when a code is given) and lets the sender drain before the link closes. */
    void closeGracefully(final RivuletException closeCause, final ErrorCode code, final String reason)
    {
        if (cause != null)
        {
            return;
        }
        if (code != null)
        {
            control.close(code, reason);
        }
        awaitPeerClose = true;
        begin(closeCause, SendMode.DRAIN);
    }

    /** The peer sent CLOSE. */
    void closeByPeer(final String reason)
    {
        begin(new ConnectionClosedException("connection closed by peer " + remoteAddress +
            (reason.isEmpty() ? "" : ": " + reason)), SendMode.RELEASE);
    }

    /** The connection ends now, without draining: lost, refused by the peer, or aborted. */
    void lose(final RivuletException closeCause)
    {
        if (cause == null && closeCause instanceof ConnectionLostException)
        {
            counters.onConnectionLost();
        }
        begin(closeCause, SendMode.RELEASE);
    }

    /** The node's shutdown deadline passed: finish now. */
    void abort()
    {
        lose(new ConnectionClosedException("node closed"));
        sendMode = SendMode.RELEASE;
        outbound.scheduleSend(); // the sender must see the new mode, resting or not
        awaitPeerClose = false; // finish on the next cycle, not after the peer's close
    }

    private void begin(final RivuletException closeCause, final SendMode mode)
    {
        if (cause != null)
        {
            return;
        }
        cause = closeCause; // before the volatile write: a thread that sees the close sees its cause
        open = false;
        outbound.close();
        deadlineNs = clock.getAsLong() + CLOSE_TIMEOUT_NS;
        sendMode = mode;
        outbound.scheduleSend();
        onClosing.accept(closeCause);
    }

    /** Conductor: moves a begun close on. @return work done. */
    int progress(final long nowNs)
    {
        if (!senderReleased)
        {
            if (nowNs - deadlineNs > 0)
            {
                sendMode = SendMode.RELEASE;
                outbound.scheduleSend();
            }
            return 0;
        }
        // After a graceful close, wait (bounded) for the peer to close its side: closing first while its
        // frames sit unread would reset the connection, and a reset discards the CLOSE just sent.
        if (awaitPeerClose && nowNs - deadlineNs < 0)
        {
            try
            {
                link.poll(DISCARD, frameLimit);
                return 0;
            }
            catch (final IOException ex)
            {
                awaitPeerClose = false;
            }
        }
        link.close();
        finished = true;
        if (cause instanceof ConnectionLostException || cause instanceof ProtocolViolationException ||
            cause instanceof RejectedException)
        {
            closed.tryEmitError(cause);
        }
        else
        {
            closed.tryEmitEmpty();
        }
        counters.onConnectionClosed();
        return 1;
    }
}
