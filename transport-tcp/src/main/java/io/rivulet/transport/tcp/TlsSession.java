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
import java.nio.channels.SelectionKey;
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
 * <p>The three buffers are {@link GrowableBuffer}s held only while they have work: netIn from the first byte read
 * (a few KiB, grown to the record being received), netOut from the first wrap (an {@code SSLEngine} wraps only into
 * room for a whole record), appIn from the first application record. During the handshake a buffer that is
 * drained while the session waits for its peer is freed, so a connection that sends nothing holds no direct memory,
 * and one that stalls mid-handshake holds only the bytes it sent. Their floors are one record; growth past that
 * (for batching) draws on the driver's budget.
 *
 * <p>Threading follows {@link TcpLink}'s split: the handshake runs on the conductor before the link exists;
 * afterwards {@link #write}/{@link #flush()}/{@link #isFlushed()} belong to the sender (netOut) and
 * {@link #read} to the conductor (netIn, appIn). {@code SSLEngine} serialises its own wrap and unwrap, so the
 * two sides may run at once. A post-handshake message the peer's unwrap asks to answer (a TLS 1.3 key update)
 * is wrapped on the sender's next write.
 */
final class TlsSession
{
    /** A wrap source with nothing to encrypt, and the unwrap destination while no appIn is allocated. */
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** First byte of a TLS handshake record (and of every ClientHello). */
    private static final byte HANDSHAKE_RECORD = 0x16;
    /** First byte of a TLS alert record. */
    private static final byte ALERT_RECORD = 0x15;
    /** Type, version and length: the bytes before a record's body. */
    private static final int RECORD_HEADER_LENGTH = 5;
    /** Steps of one {@link #handshake()} call: each progresses or waits for the network. */
    private static final int HANDSHAKE_STEPS = 64;

    private final SSLEngine engine;
    private final SocketChannel channel;
    private final String peer;
    private final GrowableBuffer netIn;
    private final GrowableBuffer appIn;
    private final GrowableBuffer netOut;
    private boolean handshakeBegun;
    /** What the handshake waits for after {@link #handshake()} returned false: see {@link #handshakeInterest()}. */
    private int handshakeInterest;
    private boolean firstBytesChecked;
    private boolean bytesReceived;
    private boolean inboundClosed;
    private boolean socketEndOfStream;
    private boolean lastReadFilled;
    /** The last socket read filled most of netIn: a busy peer, whose reads a bigger netIn would batch. */
    private boolean netInBusy;
    /** Whole records may wait in netIn because appIn had no room for them. */
    private boolean unwrapBlocked;
    private String peerPrincipal;

    /**
     * @param engine  configured for client or server mode.
     * @param channel connected, non-blocking.
     * @param peer    the remote address, for messages.
     * @param memory  the driver's direct memory, which the buffers come from and go back to.
     */
    TlsSession(final SSLEngine engine, final SocketChannel channel, final String peer, final BufferMemory memory)
    {
        this.engine = engine;
        this.channel = channel;
        this.peer = peer;
        final SSLSession session = engine.getSession();
        final int packetSize = session.getPacketBufferSize();
        final int applicationSize = session.getApplicationBufferSize();
        netIn = new GrowableBuffer(memory, packetSize, packetSize * 2);
        netOut = new GrowableBuffer(memory, packetSize, packetSize * 4);
        appIn = new GrowableBuffer(memory, applicationSize, applicationSize * 2);
    }

    // ------------------------------------------------------------------------------------- handshake

    /**
     * Advances the handshake as far as the network allows without blocking.
     *
     * @return true once the handshake is complete and its last bytes are written; when false,
     *         {@link #handshakeInterest()} says what to wait for.
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
                return waitFor(SelectionKey.OP_WRITE);
            }
            for (int i = 0; i < HANDSHAKE_STEPS; i++) // each step either progresses or returns to wait for the network
            {
                switch (engine.getHandshakeStatus())
                {
                    case NEED_TASK:
                        runDelegatedTasks();
                        break;

                    case NEED_WRAP:
                    {
                        final SSLEngineResult result = engine.wrap(EMPTY, outputRoom());
                        if (result.getStatus() == SSLEngineResult.Status.CLOSED)
                        {
                            flush();
                            throw handshakeFailure("the TLS engine closed during the handshake", null);
                        }
                        if (!flush())
                        {
                            return waitFor(SelectionKey.OP_WRITE);
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
                        if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW)
                        {
                            growApplicationInput();
                        }
                        else if (result.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW)
                        {
                            if (readSocket() <= 0)
                            {
                                if (socketEndOfStream)
                                {
                                    throw handshakeFailure("the peer closed the connection during the TLS handshake" +
                                        " (does it speak TLS? does it trust this side's certificate?)", null);
                                }
                                releaseIdleBuffers();
                                return waitFor(SelectionKey.OP_READ);
                            }
                            checkFirstBytes();
                        }
                        break;
                    }

                    default: // FINISHED, NOT_HANDSHAKING
                        peerPrincipal = principalOf(engine.getSession());
                        if (!flush())
                        {
                            return waitFor(SelectionKey.OP_WRITE);
                        }
                        releaseIdleBuffers();
                        return true;
                }
            }
            return waitFor(0);
        }
        catch (final SSLException ex)
        {
            sendAlert();
            throw handshakeFailure(ex.getMessage(), ex);
        }
        catch (final HandshakeFailure ex)
        {
            throw ex;
        }
        catch (final IOException ex)
        {
            throw handshakeFailure(ex.getMessage(), ex); // the socket failed (a reset): name the peer and the phase
        }
    }

    /**
     * @return after {@link #handshake()} returned false: {@link SelectionKey#OP_READ} when it waits for the peer's
     *         bytes, {@link SelectionKey#OP_WRITE} when for room in the socket, 0 when it has more to do at once.
     */
    int handshakeInterest()
    {
        return handshakeInterest;
    }

    /** @return true once any byte came from the peer: a connection that sent none is silent. */
    boolean hasReceivedBytes()
    {
        return bytesReceived;
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
        if (!inboundClosed && !socketEndOfStream)
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
        if (total == 0 && held(appIn) == 0 && (inboundClosed || socketEndOfStream))
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
        return held(appIn) > 0 || unwrapBlocked || lastReadFilled;
    }

    /**
     * @return true when bytes read from the socket wait in this session, decrypted or not: after the handshake,
     *         records that came with its last message (the selector will not report them again).
     */
    boolean hasPendingInput()
    {
        return held(netIn) > 0 || held(appIn) > 0;
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
                final SSLEngineResult result = engine.wrap(source, outputRoom());
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
                        if (source.remaining() > netOut.capacity())
                        {
                            // The socket took a whole buffer and more waits: a bigger one batches records per write.
                            netOut.grow(0, 2 * netOut.capacity(), 0, 0);
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
        final ByteBuffer out = netOut.byteBuffer();
        if (null == out || out.position() == 0)
        {
            return true;
        }
        out.flip();
        try
        {
            channel.write(out);
        }
        finally
        {
            out.compact();
        }
        return out.position() == 0;
    }

    /** @return true when no encrypted bytes wait to be written. */
    boolean isFlushed()
    {
        return held(netOut) == 0;
    }

    /** Conductor, once the sender released the link: sends close_notify if the socket takes it at once. */
    void closeQuietly()
    {
        try
        {
            engine.closeOutbound();
            if (held(netOut) == 0) // bytes still waiting would go before it: the socket is closed next anyway
            {
                engine.wrap(EMPTY, outputRoom());
                flush();
            }
        }
        catch (final IOException | RuntimeException ignore)
        {
            // Best effort: the socket is closed next either way, and frames are length-delimited.
        }
    }

    // ------------------------------------------------------------------------------------ freeing

    /** Conductor: frees netIn and appIn, which nothing reads once the link or handshake is closed. Idempotent. */
    void freeReceiveSide()
    {
        netIn.free();
        appIn.free();
    }

    /** Frees netOut, once the sender no longer writes. Idempotent. */
    void freeSendSide()
    {
        netOut.free();
    }

    /** Leaves netOut to the GC: a sender might still be inside it. Idempotent. */
    void abandonSendSide()
    {
        netOut.abandon();
    }

    /** Conductor, for a handshake that ends without a link: frees every buffer. Idempotent. */
    void free()
    {
        freeReceiveSide();
        freeSendSide();
    }

    // ---------------------------------------------------------------------------------------- internals

    private boolean waitFor(final int interest)
    {
        handshakeInterest = interest;
        return false;
    }

    /** During the handshake, waiting for the peer: a drained buffer is not worth holding until it answers. */
    private void releaseIdleBuffers()
    {
        if (held(netOut) == 0)
        {
            netOut.free();
        }
        if (held(netIn) == 0)
        {
            netIn.free();
        }
        if (held(appIn) == 0)
        {
            appIn.free();
        }
    }

    /**
     * @return netOut, allocated now if there is none, at its floor: room for a whole record, which
     *         {@code SSLEngine.wrap} insists on when the buffer is empty.
     */
    private ByteBuffer outputRoom()
    {
        if (0 == netOut.capacity())
        {
            netOut.grow(netOut.floor(), 0, 0, 0);
        }
        return netOut.byteBuffer();
    }

    /**
     * Reads from the socket into netIn, allocating or growing it when the record being received does not fit or
     * the peer is busy.
     *
     * @return bytes read, 0 when there was no room or nothing to read, -1 at the socket's end.
     */
    private int readSocket() throws IOException
    {
        final ByteBuffer in = makeRoomInNetIn();
        if (null == in || !in.hasRemaining())
        {
            return 0;
        }
        final int space = in.remaining();
        final int read = channel.read(in);
        if (read < 0)
        {
            socketEndOfStream = true;
        }
        else if (read > 0)
        {
            bytesReceived = true;
        }
        lastReadFilled = read > 0 && read == space;
        netInBusy = lastReadFilled && space >= netIn.capacity() / 2;
        return read;
    }

    /**
     * @return netIn with room when the first record in it is incomplete (it grows to hold that record) or a busy peer
     *         earns a bigger one; otherwise as it is, perhaps full of whole records waiting to be unwrapped, or null.
     */
    private ByteBuffer makeRoomInNetIn()
    {
        final ByteBuffer in = netIn.byteBuffer();
        final int held = held(netIn);
        final int recordLength = held < RECORD_HEADER_LENGTH ? held + 1 :
            RECORD_HEADER_LENGTH + (((in.get(3) & 0xFF) << 8) | (in.get(4) & 0xFF));
        final int required = recordLength > held ? Math.min(netIn.max(), recordLength) : held;
        final int wanted = netInBusy ? 2 * netIn.capacity() : 0;
        if (required > netIn.capacity() || wanted > netIn.capacity())
        {
            netIn.grow(required, wanted, 0, held);
        }
        return netIn.byteBuffer();
    }

    private SSLEngineResult unwrap() throws SSLException
    {
        final ByteBuffer in = netIn.byteBuffer();
        final ByteBuffer app = null == appIn.byteBuffer() ? EMPTY : appIn.byteBuffer();
        if (null == in)
        {
            return engine.unwrap(EMPTY, app);
        }
        in.flip();
        try
        {
            return engine.unwrap(in, app);
        }
        finally
        {
            in.compact();
        }
    }

    private void unwrapAvailable() throws SSLException
    {
        unwrapBlocked = false;
        while (held(netIn) > 0 && !inboundClosed)
        {
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
                if (!growApplicationInput())
                {
                    unwrapBlocked = true;
                    break;
                }
                continue;
            }
            if (result.getStatus() != SSLEngineResult.Status.OK ||
                (result.bytesConsumed() == 0 && result.bytesProduced() == 0))
            {
                break; // a partial record waits for more bytes
            }
        }
    }

    /**
     * The engine had no room in appIn for the next record's plaintext. An empty appIn doubles from a few KiB until
     * the record fits (a small record never needs a large buffer); one holding plaintext grows only to batch, when
     * the budget allows, and otherwise waits for the link to take that plaintext.
     *
     * @return true when appIn grew, so the unwrap may be tried again.
     * @throws SSLException when an empty appIn of a whole record's size is still too small.
     */
    private boolean growApplicationInput() throws SSLException
    {
        final ByteBuffer before = appIn.byteBuffer();
        final int held = held(appIn);
        final int capacity = appIn.capacity();
        if (held > 0)
        {
            appIn.grow(held, 2 * capacity, 0, held);
            return appIn.byteBuffer() != before;
        }
        // One record's plaintext: the floor, unless the session grew its buffer sizes for a peer's large records.
        final int recordSize = Math.max(appIn.floor(), engine.getSession().getApplicationBufferSize());
        if (capacity >= recordSize)
        {
            throw new SSLException("a record from " + peer + " does not fit " + capacity + " bytes of plaintext");
        }
        return appIn.grow(Math.min(recordSize, Math.max(GrowableBuffer.INITIAL_LENGTH, 2 * capacity)), 0, 0, 0);
    }

    private int drainApplicationBytes(final ByteBuffer destination)
    {
        final ByteBuffer app = appIn.byteBuffer();
        if (null == app || app.position() == 0)
        {
            return 0;
        }
        app.flip();
        final int count = Math.min(app.remaining(), destination.remaining());
        final int limit = app.limit();
        app.limit(app.position() + count);
        destination.put(app);
        app.limit(limit);
        app.compact();
        return count;
    }

    private static int held(final GrowableBuffer buffer)
    {
        final ByteBuffer bytes = buffer.byteBuffer();
        return null == bytes ? 0 : bytes.position();
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
        if (firstBytesChecked || held(netIn) == 0)
        {
            return;
        }
        firstBytesChecked = true;
        final byte first = netIn.byteBuffer().get(0);
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
            engine.wrap(EMPTY, outputRoom());
            flush();
        }
        catch (final IOException | RuntimeException ignore)
        {
            // Best effort; the connection is closed next.
        }
    }

    private IOException handshakeFailure(final String reason, final Throwable cause)
    {
        return new HandshakeFailure("TLS handshake with " + peer + " failed: " + reason, cause);
    }

    /** A failure that names the peer and the handshake already. */
    private static final class HandshakeFailure extends IOException
    {
        private static final long serialVersionUID = 1L;

        HandshakeFailure(final String message, final Throwable cause)
        {
            super(message, cause);
        }
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
