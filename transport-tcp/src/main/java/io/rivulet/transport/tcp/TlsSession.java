package io.rivulet.transport.tcp;

import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import org.agrona.concurrent.UnsafeBuffer;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

/**
 * One connection's TLS: an {@link SSLEngine} between a non-blocking socket and the link's plaintext
 * buffers. Nothing blocks and no thread is created: the handshake advances each time {@link #handshake()}
 * is called (delegated tasks, such as certificate checks, run inline on the calling engine thread), then
 * {@link #read} unwraps and {@link #write} wraps.
 *
 * <pre>
 *   link send buffer ──wrap──▶ netOut ──write──▶ socket ──read──▶ netIn ──unwrap──▶ appIn ──▶ link receive buffer
 * </pre>
 *
 * <p>Threading follows {@link TcpLink}'s split: the handshake runs on the conductor before the link exists;
 * afterwards {@link #write}/{@link #flush()}/{@link #isFlushed()} belong to the sender (netOut) and
 * {@link #read} to the conductor (netIn, appIn). {@code SSLEngine} serialises its own wrap and unwrap, so the
 * two sides may run at once. A post-handshake message the peer's unwrap asks to answer (a TLS 1.3 key update)
 * is wrapped on the sender's next write.
 */
final class TlsSession
{
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** First byte of a TLS handshake record (and of every ClientHello). */
    private static final byte HANDSHAKE_RECORD = 0x16;
    /** First byte of a TLS alert record. */
    private static final byte ALERT_RECORD = 0x15;

    private final SSLEngine engine;
    private final SocketChannel channel;
    private final String peer;
    private final ByteBuffer netIn;
    private final ByteBuffer appIn;
    private final ByteBuffer netOut;
    private final int applicationBufferSize;
    private boolean handshakeBegun;
    private boolean firstBytesChecked;
    private boolean inboundClosed;
    private boolean socketEndOfStream;
    private boolean lastReadFilled;
    /** Whole records may wait in netIn because appIn had no room for them. */
    private boolean unwrapBlocked;
    private String peerPrincipal;

    /**
     * @param engine  configured for client or server mode.
     * @param channel connected, non-blocking.
     * @param peer    the remote address, for messages.
     */
    TlsSession(final SSLEngine engine, final SocketChannel channel, final String peer)
    {
        this.engine = engine;
        this.channel = channel;
        this.peer = peer;
        final SSLSession session = engine.getSession();
        final int packetSize = session.getPacketBufferSize();
        applicationBufferSize = session.getApplicationBufferSize();
        netIn = ByteBuffer.allocateDirect(packetSize * 2);
        netOut = ByteBuffer.allocateDirect(packetSize * 4);
        appIn = ByteBuffer.allocateDirect(applicationBufferSize * 2);
    }

    // ------------------------------------------------------------------------------------- handshake

    /**
     * Advances the handshake as far as the network allows without blocking.
     *
     * @return true once the handshake is complete and its last bytes are written.
     * @throws IOException naming the cause when the handshake failed or the peer closed the connection.
     */
    boolean handshake() throws IOException
    {
        try
        {
            if (!handshakeBegun)
            {
                handshakeBegun = true;
                engine.beginHandshake(); // until then the engine reports NOT_HANDSHAKING
            }
            if (!flush())
            {
                return false;
            }
            for (int i = 0; i < 64; i++) // bounded: each step either progresses or returns to wait for the network
            {
                switch (engine.getHandshakeStatus())
                {
                    case NEED_TASK:
                        runDelegatedTasks();
                        break;

                    case NEED_WRAP:
                    {
                        final SSLEngineResult result = engine.wrap(EMPTY, netOut);
                        if (result.getStatus() == SSLEngineResult.Status.CLOSED)
                        {
                            flush();
                            throw handshakeFailure("the TLS engine closed during the handshake", null);
                        }
                        if (!flush())
                        {
                            return false;
                        }
                        break;
                    }

                    case NEED_UNWRAP:
                    case NEED_UNWRAP_AGAIN:
                    {
                        final SSLEngineResult result = unwrap();
                        if (result.getStatus() == SSLEngineResult.Status.CLOSED)
                        {
                            throw handshakeFailure("the peer closed TLS during the handshake", null);
                        }
                        if (result.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW)
                        {
                            if (readSocket() <= 0)
                            {
                                if (socketEndOfStream)
                                {
                                    throw handshakeFailure("the peer closed the connection during the TLS handshake" +
                                        " (does it speak TLS? does it trust this side's certificate?)", null);
                                }
                                return false;
                            }
                            checkFirstBytes();
                        }
                        break;
                    }

                    default: // FINISHED, NOT_HANDSHAKING
                        peerPrincipal = principalOf(engine.getSession());
                        return flush();
                }
            }
            return false;
        }
        catch (final SSLException ex)
        {
            sendAlert();
            throw handshakeFailure(ex.getMessage(), ex);
        }
    }

    /** @return the verified peer's certificate subject, null when it presented none. Valid after the handshake. */
    String peerPrincipal()
    {
        return peerPrincipal;
    }

    /** @return the negotiated protocol, such as TLSv1.3. */
    String protocol()
    {
        return engine.getSession().getProtocol();
    }

    // ------------------------------------------------------------------------------------ conductor: read

    /**
     * Reads and decrypts into {@code destination} (in fill mode).
     *
     * @return plaintext bytes added, or -1 at the end of the stream (close_notify or the socket's end).
     * @throws IOException naming the TLS error.
     */
    int read(final ByteBuffer destination) throws IOException
    {
        int total = drainApplicationBytes(destination);
        if (!destination.hasRemaining())
        {
            return total;
        }
        lastReadFilled = false;
        if (!inboundClosed && !socketEndOfStream && netIn.hasRemaining())
        {
            readSocket();
        }
        try
        {
            unwrapAvailable();
        }
        catch (final javax.net.ssl.SSLHandshakeException ex)
        {
            // TLS 1.3: a client's handshake ends before the server checked its certificate; a refusal arrives here.
            throw handshakeFailure(ex.getMessage(), ex);
        }
        catch (final SSLException ex)
        {
            throw new IOException("TLS error on the connection with " + peer + ": " + ex.getMessage(), ex);
        }
        total += drainApplicationBytes(destination);
        if (total == 0 && appIn.position() == 0 && (inboundClosed || socketEndOfStream))
        {
            return -1;
        }
        return total;
    }

    /**
     * @return true when bytes may wait: decrypted ones not yet delivered, records not yet unwrapped, or a
     *         socket read that filled the buffer.
     */
    boolean hasBufferedInput()
    {
        return appIn.position() > 0 || unwrapBlocked || lastReadFilled;
    }

    /** @return true when the peer ended TLS with close_notify (rather than just closing the socket). */
    boolean isCloseNotifyReceived()
    {
        return inboundClosed;
    }

    // ------------------------------------------------------------------------------------ sender: write

    /**
     * Encrypts from {@code source} (in drain mode) and writes as much as the socket takes.
     *
     * @return plaintext bytes consumed from the source.
     * @throws IOException when the socket failed or TLS is closed.
     */
    int write(final ByteBuffer source) throws IOException
    {
        if (!flush())
        {
            return 0;
        }
        int consumed = 0;
        try
        {
            while (source.hasRemaining() || engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP)
            {
                final SSLEngineResult result = engine.wrap(source, netOut);
                consumed += result.bytesConsumed();
                switch (result.getStatus())
                {
                    case CLOSED:
                        throw new IOException("TLS session with " + peer + " is closed");
                    case BUFFER_OVERFLOW:
                        if (!flush())
                        {
                            return consumed;
                        }
                        continue;
                    default:
                        break;
                }
                if (result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK)
                {
                    runDelegatedTasks();
                }
                if (result.bytesConsumed() == 0 && result.bytesProduced() == 0)
                {
                    break;
                }
            }
        }
        catch (final SSLException ex)
        {
            throw new IOException("TLS error on the connection with " + peer + ": " + ex.getMessage(), ex);
        }
        flush();
        return consumed;
    }

    /**
     * Writes encrypted bytes still waiting.
     *
     * @return true when none are left.
     */
    boolean flush() throws IOException
    {
        if (netOut.position() == 0)
        {
            return true;
        }
        netOut.flip();
        try
        {
            channel.write(netOut);
        }
        finally
        {
            netOut.compact();
        }
        return netOut.position() == 0;
    }

    /** @return true when no encrypted bytes wait to be written. */
    boolean isFlushed()
    {
        return netOut.position() == 0;
    }

    /** Conductor, once the sender released the link: sends close_notify if the socket takes it at once. */
    void closeQuietly()
    {
        try
        {
            engine.closeOutbound();
            engine.wrap(EMPTY, netOut);
            flush();
        }
        catch (final IOException | RuntimeException ignore)
        {
            // Best effort: the socket is closed next either way, and frames are length-delimited.
        }
    }

    // ---------------------------------------------------------------------------------------- internals

    private int readSocket() throws IOException
    {
        final int space = netIn.remaining();
        final int read = channel.read(netIn);
        if (read < 0)
        {
            socketEndOfStream = true;
        }
        lastReadFilled = read > 0 && read == space;
        return read;
    }

    private SSLEngineResult unwrap() throws SSLException
    {
        netIn.flip();
        try
        {
            return engine.unwrap(netIn, appIn);
        }
        finally
        {
            netIn.compact();
        }
    }

    private void unwrapAvailable() throws SSLException
    {
        unwrapBlocked = false;
        while (netIn.position() > 0 && !inboundClosed)
        {
            if (appIn.remaining() < applicationBufferSize)
            {
                unwrapBlocked = true;
                break;
            }
            final SSLEngineResult result = unwrap();
            if (result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK)
            {
                runDelegatedTasks();
            }
            if (result.getStatus() == SSLEngineResult.Status.CLOSED)
            {
                inboundClosed = true;
                break;
            }
            if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW)
            {
                unwrapBlocked = true;
                break;
            }
            if (result.getStatus() != SSLEngineResult.Status.OK ||
                (result.bytesConsumed() == 0 && result.bytesProduced() == 0))
            {
                break; // a partial record waits for more bytes
            }
        }
    }

    private int drainApplicationBytes(final ByteBuffer destination)
    {
        if (appIn.position() == 0)
        {
            return 0;
        }
        appIn.flip();
        final int count = Math.min(appIn.remaining(), destination.remaining());
        final int limit = appIn.limit();
        appIn.limit(appIn.position() + count);
        destination.put(appIn);
        appIn.limit(limit);
        appIn.compact();
        return count;
    }

    private void runDelegatedTasks()
    {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null)
        {
            task.run();
        }
    }

    /**
     * On a server, the first bytes of a client that does not speak TLS (a plaintext Rivulet client sends its
     * length-prefixed SETUP) get a plaintext ERROR (REJECTED_SETUP) that such a client can read, so that its
     * connect fails with a clear reason instead of a bare reset.
     */
    private void checkFirstBytes() throws IOException
    {
        if (firstBytesChecked || netIn.position() == 0)
        {
            return;
        }
        firstBytesChecked = true;
        final byte first = netIn.get(0);
        if (first == HANDSHAKE_RECORD || first == ALERT_RECORD)
        {
            return;
        }
        if (!engine.getUseClientMode())
        {
            writePlaintextRejection("this server requires TLS");
            throw handshakeFailure("the client did not start a TLS handshake (a plaintext client?)", null);
        }
        throw handshakeFailure("the server did not answer with TLS (a plaintext server?)", null);
    }

    private void writePlaintextRejection(final String reason)
    {
        final byte[] text = FrameWriter.utf8(reason, 256);
        final int frameLength = FrameWriter.errorLength(text.length);
        final ByteBuffer bytes = ByteBuffer.allocate(TcpLink.LENGTH_PREFIX_LENGTH + frameLength);
        bytes.order(ByteOrder.LITTLE_ENDIAN).putInt(0, frameLength);
        new FrameWriter().writeError(new UnsafeBuffer(bytes), TcpLink.LENGTH_PREFIX_LENGTH, 0, ErrorCode.REJECTED_SETUP,
            text);
        try
        {
            channel.write(bytes);
        }
        catch (final IOException ignore)
        {
            // The client left already.
        }
    }

    private void sendAlert()
    {
        try
        {
            // After a failure the engine holds an alert for the peer (for example bad_certificate): send it.
            engine.closeOutbound();
            engine.wrap(EMPTY, netOut);
            flush();
        }
        catch (final IOException | RuntimeException ignore)
        {
            // Best effort; the connection is closed next.
        }
    }

    private IOException handshakeFailure(final String reason, final Throwable cause)
    {
        return new IOException("TLS handshake with " + peer + " failed: " + reason, cause);
    }

    private static String principalOf(final SSLSession session)
    {
        try
        {
            return session.getPeerPrincipal().getName();
        }
        catch (final SSLPeerUnverifiedException ex)
        {
            return null; // a server that did not ask for a client certificate
        }
    }
}
