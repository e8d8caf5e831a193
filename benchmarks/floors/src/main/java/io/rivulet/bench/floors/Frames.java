package io.rivulet.bench.floors;

import io.rivulet.bench.harness.Payloads;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The floors' framing: a 4-byte little-endian length, then the payload. Helpers for the blocking floor.
 */
final class Frames
{
    static final int LENGTH_FIELD = 4;
    /** Largest payload the floors accept. */
    static final int MAX_PAYLOAD = 1 << 16;
    static final int BUFFER_LENGTH = 64 * 1024;

    private Frames()
    {
    }

    static void write(final OutputStream out, final byte[] header, final byte[] payload, final int length)
        throws IOException
    {
        header[0] = (byte)length;
        header[1] = (byte)(length >>> 8);
        header[2] = (byte)(length >>> 16);
        header[3] = (byte)(length >>> 24);
        out.write(header, 0, LENGTH_FIELD);
        out.write(payload, 0, length);
    }

    /** @return the payload's length, read into {@code payload}. */
    static int read(final InputStream in, final byte[] header, final byte[] payload) throws IOException
    {
        readFully(in, header, LENGTH_FIELD);
        final int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16 |
            (header[3] & 0xFF) << 24;
        if (length < Payloads.MIN_SIZE || length > payload.length)
        {
            throw new IOException("bad frame length " + length);
        }
        readFully(in, payload, length);
        return length;
    }

    private static void readFully(final InputStream in, final byte[] bytes, final int length) throws IOException
    {
        int done = 0;
        while (done < length)
        {
            final int n = in.read(bytes, done, length - done);
            if (n < 0)
            {
                throw new EOFException("peer closed the connection");
            }
            done += n;
        }
    }
}
