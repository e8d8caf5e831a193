package io.rivulet.bench.rivulet;

import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.bench.harness.Args;
import io.rivulet.bench.harness.BenchServer;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.ServerMain;
import org.agrona.DirectBuffer;
import reactor.core.publisher.Mono;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Map;

/**
 * Rivulet's serving side: requestResponse echoes ECHO and answers SYNC with the DATA count; DATA arrives
 * as fire-and-forget on the zero-copy {@code fireAndForgetHandler} and is only counted. All handlers run
 * on the engine's conductor thread, so the count needs no synchronisation.
 */
public final class RivuletServer implements BenchServer
{
    private final Args args;
    private Rivulet node;
    private Server server;
    private long counted;

    RivuletServer(final Args args)
    {
        this.args = args;
    }

    public static void main(final String[] argv)
    {
        ServerMain.run(argv, RivuletServer::new);
    }

    @Override
    public Map<String, Object> start()
    {
        node = Rivulet.launch(Nodes.context(args));
        final Responder responder = Responder.builder()
            .requestResponse(this::onRequest)
            .fireAndForgetHandler(view ->
            {
                if (view.data().getInt(Payloads.KIND_OFFSET, ByteOrder.LITTLE_ENDIAN) == Payloads.DATA)
                {
                    counted++;
                }
            })
            .build();
        server = node.bind("127.0.0.1:0", responder).block(Duration.ofSeconds(10));
        final String address = server.localAddress();
        return Map.of("port", address.substring(address.lastIndexOf(':') + 1), "address", address);
    }

    private Mono<Message> onRequest(final Message request)
    {
        final DirectBuffer data = request.data();
        if (data.getInt(Payloads.KIND_OFFSET, ByteOrder.LITTLE_ENDIAN) == Payloads.SYNC)
        {
            final byte[] reply = request.dataBytes();
            Payloads.value(reply, counted);
            return Mono.just(Message.of(reply));
        }
        return Mono.just(request);
    }

    @Override
    public void close()
    {
        if (server != null)
        {
            server.close();
        }
        if (node != null)
        {
            node.close();
        }
    }
}
