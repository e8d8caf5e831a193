package io.rivulet.bench.rsocket;

import io.netty.buffer.ByteBuf;
import io.rivulet.bench.harness.BenchServer;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.ServerMain;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.util.DefaultPayload;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Map;

/**
 * RSocket's serving side: requestResponse echoes ECHO (the received payload itself, as RSocket's own
 * benchmarks do) and answers SYNC; fireAndForget counts DATA. Zero-copy payload decoding.
 */
public final class RSocketServerMain implements BenchServer
{
    private CloseableChannel channel;
    private long counted;

    /** Serves until standard input closes; no options but {@code --help}. */
    public static void main(final String[] argv)
    {
        ServerMain.run(argv, "RSocketServerMain", RSocketServerMain::new);
    }

    @Override
    public Map<String, Object> start()
    {
        final RSocket handler = new RSocket()
        {
            @Override
            public Mono<Void> fireAndForget(final Payload payload)
            {
                if (kind(payload) == Payloads.DATA)
                {
                    counted++;
                }
                payload.release();
                return Mono.empty();
            }

            @Override
            public Mono<Payload> requestResponse(final Payload payload)
            {
                if (kind(payload) == Payloads.SYNC)
                {
                    final ByteBuf data = payload.sliceData();
                    final byte[] reply = new byte[data.readableBytes()];
                    data.getBytes(data.readerIndex(), reply);
                    payload.release();
                    Payloads.value(reply, counted);
                    return Mono.just(DefaultPayload.create(reply));
                }
                return Mono.just(payload);
            }
        };
        channel = RSocketServer.create(SocketAcceptor.with(handler))
            .payloadDecoder(PayloadDecoder.ZERO_COPY)
            .bind(TcpServerTransport.create("127.0.0.1", 0))
            .block(Duration.ofSeconds(10));
        return Map.of("port", channel.address().getPort());
    }

    static int kind(final Payload payload)
    {
        final ByteBuf data = payload.sliceData();
        return data.getIntLE(data.readerIndex() + Payloads.KIND_OFFSET);
    }

    @Override
    public void close()
    {
        if (channel != null)
        {
            channel.dispose();
        }
    }
}
