package io.rivulet.bench.rivulet;

import io.rivulet.Message;
import io.rivulet.MessageView;
import io.rivulet.RequestHandler;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.bench.harness.BenchServer;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.ServerMain;
import io.rivulet.topic.TopicOptions;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import reactor.core.publisher.Flux;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Map;

/**
 * Rivulet's serving side: request-response, answered in place by the zero-copy responder
 * ({@code requestResponseHandler}, as a Rivulet server that wants its best latency is written), echoes ECHO and
 * answers SYNC with the DATA count; DATA arrives
 * as fire-and-forget on the zero-copy {@code fireAndForgetHandler}, or as the inbound messages of a
 * request-channel (the Flux API path), and is only counted. All handlers run on the engine's conductor
 * thread, so the count needs no synchronisation.
 *
 * <p>Fan-out: the node publishes the topic {@value FanOutPublisher#TOPIC} (policy BLOCK, default log); a
 * FANOUT request asks it to publish {@code value} messages of the request's size at {@code seq} messages/s (0:
 * flat out), on the {@link FanOutPublisher}'s thread, and is answered at once (or with an error when an
 * earlier run failed). The publisher waits for room in the topic's log as {@code --wait} says; the READY line
 * reports it as {@code publisher-wait}, which the client quotes in its fan-out settings.
 */
public final class RivuletServer implements BenchServer
{
    private final Nodes.NodeOptions options;
    private Rivulet node;
    private Server server;
    /** The SYNC reply's bytes; engine thread only. */
    private final ExpandableArrayBuffer syncReply = new ExpandableArrayBuffer(1024);
    private long counted;
    private FanOutPublisher fanOut;

    RivuletServer(final Nodes.NodeOptions options)
    {
        this.options = options;
    }

    /** Serves until standard input closes; {@code --help} lists the options. */
    public static void main(final String[] argv)
    {
        ServerMain.run(argv, new Nodes.NodeOptions(), RivuletServer::new);
    }

    @Override
    public Map<String, Object> start()
    {
        node = Rivulet.launch(Nodes.context(options));
        final Responder responder = Responder.builder()
            .requestResponseHandler(this::onRequest)
            .fireAndForgetHandler(view ->
            {
                if (view.data().getInt(Payloads.KIND_OFFSET, ByteOrder.LITTLE_ENDIAN) == Payloads.DATA)
                {
                    counted++;
                }
            })
            .requestChannel(inbound -> inbound
                .doOnNext(message ->
                {
                    if (message.data().getInt(Payloads.KIND_OFFSET, ByteOrder.LITTLE_ENDIAN) == Payloads.DATA)
                    {
                        counted++;
                    }
                })
                .thenMany(Flux.<Message>empty()))
            .build();
        fanOut = new FanOutPublisher(node.publication(FanOutPublisher.TOPIC, TopicOptions.block()),
            Nodes.waitOf(options.waitName));
        server = node.bind("127.0.0.1:0", responder).block(Duration.ofSeconds(10));
        final String address = server.localAddress();
        return Map.of("port", address.substring(address.lastIndexOf(':') + 1), "address", address,
            "publisher-wait", options.waitName);
    }

    /** Answers in place (the zero-copy responder): an ECHO with its own bytes, a SYNC with the count in its value. */
    private void onRequest(final MessageView request, final RequestHandler.Reply reply)
    {
        final DirectBuffer data = request.data();
        final int kind = data.getInt(Payloads.KIND_OFFSET, ByteOrder.LITTLE_ENDIAN);
        if (kind == Payloads.SYNC)
        {
            syncReply.putBytes(0, data, 0, request.dataLength());
            syncReply.putLong(Payloads.VALUE_OFFSET, counted, ByteOrder.LITTLE_ENDIAN);
            reply.send(syncReply, 0, request.dataLength());
            return;
        }
        if (kind == Payloads.FANOUT)
        {
            final String error = fanOut.error();
            if (error != null)
            {
                reply.sendError("the fan-out publisher failed: " + error);
                return;
            }
            fanOut.start(request.dataLength(), data.getLong(Payloads.VALUE_OFFSET, ByteOrder.LITTLE_ENDIAN),
                data.getInt(Payloads.SEQ_OFFSET, ByteOrder.LITTLE_ENDIAN));
        }
        reply.send(data, 0, request.dataLength());
    }

    @Override
    public void close()
    {
        if (fanOut != null)
        {
            fanOut.close();
        }
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
