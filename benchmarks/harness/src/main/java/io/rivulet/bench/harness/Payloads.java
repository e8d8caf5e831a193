package io.rivulet.bench.harness;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The convention every system's messages follow, so that each carries exactly {@code size} bytes of
 * application payload and the harness can tell messages apart without any system-specific framing.
 *
 * <pre>
 *  0               4               8              16                          size
 *  +---------------+---------------+---------------+---------------- ... ------+
 *  | kind (int LE) | seq (int LE)  | value (long LE, SYNC replies)  | filler    |
 *  +---------------+---------------+---------------+---------------- ... ------+
 * </pre>
 *
 * Kinds: {@link #ECHO} (reply with the same bytes), {@link #DATA} (one-way: count it),
 * {@link #SYNC} (reply with the number of DATA messages counted so far in {@code value}),
 * {@link #FANOUT}: a fan-out message, whose {@code seq} is its index in the run and whose {@code value} is
 * the {@link System#nanoTime()} at which it was published (one clock for every process of a Linux host); sent
 * to a server, a request to publish {@code value} such messages of the request's size to its subscribers.
 */
public final class Payloads
{
    public static final int ECHO = 1;
    public static final int DATA = 2;
    public static final int SYNC = 3;
    public static final int FANOUT = 4;

    public static final int KIND_OFFSET = 0;
    public static final int SEQ_OFFSET = 4;
    public static final int VALUE_OFFSET = 8;
    /** Smallest payload: room for kind, seq and value. */
    public static final int MIN_SIZE = 16;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Payloads()
    {
    }

    /** @return a payload of {@code size} bytes of this kind, filler bytes set to a pattern. */
    public static byte[] newPayload(final int size, final int kind)
    {
        if (size < MIN_SIZE)
        {
            throw new IllegalArgumentException("payload size must be at least " + MIN_SIZE + ": " + size);
        }
        final byte[] bytes = new byte[size];
        for (int i = MIN_SIZE; i < size; i++)
        {
            bytes[i] = (byte)i;
        }
        kind(bytes, kind);
        return bytes;
    }

    public static void kind(final byte[] bytes, final int kind)
    {
        INT.set(bytes, KIND_OFFSET, kind);
    }

    public static int kind(final byte[] bytes)
    {
        return (int)INT.get(bytes, KIND_OFFSET);
    }

    public static void seq(final byte[] bytes, final int seq)
    {
        INT.set(bytes, SEQ_OFFSET, seq);
    }

    public static int seq(final byte[] bytes)
    {
        return (int)INT.get(bytes, SEQ_OFFSET);
    }

    public static void value(final byte[] bytes, final long value)
    {
        LONG.set(bytes, VALUE_OFFSET, value);
    }

    public static long value(final byte[] bytes)
    {
        return (long)LONG.get(bytes, VALUE_OFFSET);
    }
}
