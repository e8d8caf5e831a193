package io.rivulet.transport.tcp;

import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the seed corpora of {@link TcpDeframerFuzzTest} and {@link LiveConnectionFuzzTest}: conversations of valid
 * frames of every interaction (fragments and topic frames included) and known nasty cases. The files are committed;
 * run this only to regenerate them, with the test class path, JVM flags {@code rivulet.jvm.flags} and the argument
 * {@code transport-tcp/src/test/resources}.
 */
public final class TcpFuzzSeedWriter
{
    private final FrameWriter writer = new FrameWriter();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[8192]);

    private TcpFuzzSeedWriter()
    {
    }

    /** @param args the test resources root. */
    public static void main(final String[] args) throws IOException
    {
        new TcpFuzzSeedWriter().write(Path.of(args[0], "io/rivulet/transport/tcp"));
    }

    private void write(final Path root) throws IOException
    {
        final Path live = Files.createDirectories(root.resolve("LiveConnectionFuzzTestInputs/feed"));
        final Path deframe = Files.createDirectories(root.resolve("TcpDeframerFuzzTestInputs/deframe"));

        final byte[] requestResponse = payload(FrameType.REQUEST_RESPONSE, 1, 0, FrameFlags.NEXT, "", "hello");
        final byte[] stream = concat(payload(FrameType.REQUEST_STREAM, 3, 2, FrameFlags.NEXT, "m", "s"),
            bytes(writer.writeRequestN(scratch, 0, 3, 3)), bytes(writer.writeCancel(scratch, 0, 3)));
        final byte[] channel = concat(payload(FrameType.REQUEST_CHANNEL, 5, 4, FrameFlags.NEXT, "", "c1"),
            payload(FrameType.PAYLOAD, 5, 0, FrameFlags.NEXT, "", "c2"),
            payload(FrameType.PAYLOAD, 5, 0, FrameFlags.COMPLETE, "", ""));
        final byte[] fireAndForget = payload(FrameType.REQUEST_FNF, 0, 0, FrameFlags.NEXT, "event=x", "fnf");
        final byte[] fragmented = concat(payload(FrameType.REQUEST_RESPONSE, 7, 0, FrameFlags.FOLLOWS, "meta", "part1"),
            payload(FrameType.PAYLOAD, 7, 0, FrameFlags.FOLLOWS, "", "part2"),
            payload(FrameType.PAYLOAD, 7, 0, (byte)(FrameFlags.NEXT | FrameFlags.COMPLETE), "", "part3"));
        final byte[] topics = concat(
            bytes(writer.writeSubscribe(scratch, 0, 1, 16, "fuzz.>".getBytes(StandardCharsets.UTF_8))),
            bytes(writer.writeTopicStatus(scratch, 0, 1, 1, 8)),
            bytes(writer.writeUnsubscribe(scratch, 0, 1)));
        final byte[] streamError = concat(payload(FrameType.REQUEST_STREAM, 9, 1, FrameFlags.NEXT, "", "s"),
            bytes(writer.writeError(scratch, 0, 9, ErrorCode.APPLICATION_ERROR, "bad".getBytes(StandardCharsets.UTF_8))));
        final byte[] close = bytes(writer.writeClose(scratch, 0, ErrorCode.CONNECTION_CLOSE, "bye".getBytes(StandardCharsets.UTF_8)));
        final byte[] keepalive = bytes(writer.writeKeepalive(scratch, 0, true, 42L));
        final byte[] attach = bytes(writer.writeTopicAttach(scratch, 0, 1, 2, 3, 0, 1L, 0,
            "fuzz.x".getBytes(StandardCharsets.UTF_8)));
        final byte[] topicData = bytes(writer.writeTopicData(scratch, 0, 2, 3, 1L, 0L, new UnsafeBuffer(new byte[4]), 0, 4));
        final byte[] serverStreamId = payload(FrameType.REQUEST_RESPONSE, 2, 0, FrameFlags.NEXT, "", "even");
        final byte[] requestNZero = new byte[0];
        final byte[] secondSetup = bytes(writer.writeSetup(scratch, 0, 1, 1_000, 5_000, 4096, new byte[0], new byte[0]));

        final byte[][] conversations = {
            records(requestResponse), records(stream), records(channel), records(fireAndForget), records(fragmented),
            records(topics), records(streamError), records(close), records(keepalive), records(attach, topicData),
            records(serverStreamId), records(requestNZero), records(secondSetup),
            records(requestResponse, stream, channel, fireAndForget, fragmented, topics, keepalive),
        };
        final String[] names = { "request-response", "request-stream", "request-channel", "fire-and-forget", "fragmented",
            "subscribe-status-unsubscribe", "stream-error", "close", "keepalive", "unsolicited-topic-frames",
            "nasty-server-stream-id", "nasty-zero-length", "nasty-second-setup", "everything" };
        for (int i = 0; i < conversations.length; i++)
        {
            Files.write(live.resolve(names[i]), conversations[i]);
        }

        Files.write(deframe.resolve("frames"), concat(prefixed(requestResponse), prefixed(keepalive), prefixed(close)));
        Files.write(deframe.resolve("partial-frame"), concat(prefixed(requestResponse), prefixed(keepalive)).length > 8 ?
            java.util.Arrays.copyOf(concat(prefixed(requestResponse), prefixed(keepalive)), prefixed(requestResponse).length + 6) :
            new byte[0]);
        Files.write(deframe.resolve("nasty-zero-length"), concat(prefixed(keepalive), new byte[4]));
        Files.write(deframe.resolve("nasty-negative-length"), concat(prefixed(keepalive), new byte[] { -1, -1, -1, -1 }));
        Files.write(deframe.resolve("nasty-beyond-max"), concat(prefixed(keepalive), prefix(TcpTestSupport.MAX_FRAME_LENGTH + 1)));
        Files.write(deframe.resolve("max-length"), prefixed(new byte[TcpTestSupport.MAX_FRAME_LENGTH]));
        Files.write(deframe.resolve("short-prefix"), new byte[] { 5, 0 });
    }

    private byte[] payload(final int type, final int streamId, final int n, final byte flags, final String metadata, final String data)
    {
        final UnsafeBuffer m = new UnsafeBuffer(metadata.getBytes(StandardCharsets.UTF_8));
        final UnsafeBuffer d = new UnsafeBuffer(data.getBytes(StandardCharsets.UTF_8));
        return bytes(writer.writePayloadFrame(scratch, 0, type, streamId, n, flags, m, 0, m.capacity(), d, 0, d.capacity()));
    }

    private byte[] bytes(final int length)
    {
        final byte[] bytes = new byte[length];
        scratch.getBytes(0, bytes);
        return bytes;
    }

    /** The live fuzz test's input format: [u16 length][frame] per frame. */
    private static byte[] records(final byte[]... frames)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] frame : frames)
        {
            out.write(frame.length & 0xFF);
            out.write(frame.length >>> 8);
            out.write(frame, 0, frame.length);
        }
        return out.toByteArray();
    }

    private static byte[] prefixed(final byte[] frame)
    {
        return concat(prefix(frame.length), frame);
    }

    private static byte[] prefix(final int length)
    {
        return ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(length).array();
    }

    private static byte[] concat(final byte[]... parts)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] part : parts)
        {
            out.write(part, 0, part.length);
        }
        return out.toByteArray();
    }
}
