package io.rivulet.bench.jmh;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.MessageView;
import io.rivulet.ReplyHandler;
import io.rivulet.Responder;
import io.rivulet.counters.NodeCounters;
import io.rivulet.engine.Sender;
import io.rivulet.protocol.Outbound;
import io.rivulet.protocol.ProtocolConnection;
import io.rivulet.protocol.ProtocolSettings;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

import java.util.concurrent.TimeUnit;

/**
 * One request-response through both ends of a connection on one thread, with the real protocol classes and no
 * network (a {@link PairLink}): the requester's open and encode, the sender's drain, the responder's decode, handler
 * and reply, and the requester's decode and delivery. Its score is the CPU cost of a round trip without any thread
 * hand-off; run with {@code -prof gc} for the bytes allocated per request-response (issue 16). The server answers
 * with a reactive handler or in place ({@code responder}), the client with a {@code Mono} or a zero-copy request.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED"})
public class RequestResponseBenchmark
{
    /** Requests in flight in {@link #requestResponseBatch}, as in the end-to-end benchmark's {@code flatMap}. */
    static final int BATCH = 64;

    /** Two connected protocol ends and the senders that drain their rings. */
    @State(Scope.Thread)
    public static class Pair
    {
        @Param({"32", "256"})
        public int size;

        /** How the server answers: a reactive handler ({@code Mono.just}) or in place ({@code RequestHandler}). */
        @Param({"reactive", "inPlace"})
        public String responder;

        ProtocolConnection client;
        ProtocolConnection server;
        Connection connection;
        Sender sender;
        Message request;
        UnsafeBuffer requestBytes;
        final ReplyCounter replies = new ReplyCounter();
        final ReplyHandlerCounter handledReplies = new ReplyHandlerCounter();
        long nowNs = System.nanoTime();

        @Setup
        public void setUp()
        {
            final int maxFrameLength = 16 * 1024;
            final NodeCounters counters = new NodeCounters();
            final ProtocolSettings settings = new ProtocolSettings(maxFrameLength, 16 * 1024 * 1024, 256,
                TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(5), 64);
            final PairLink[] links = PairLink.pair();
            client = new ProtocolConnection(links[0],
                new Outbound(256 * 1024, maxFrameLength, counters.backPressureEvents), settings,
                counters.connectionCounters(), true, Responder.none(), Runnable::run, Throwable::printStackTrace,
                nowNs);
            server = new ProtocolConnection(links[1],
                new Outbound(256 * 1024, maxFrameLength, counters.backPressureEvents), settings,
                counters.connectionCounters(), false, "inPlace".equals(responder) ?
                    Responder.builder().requestResponseHandler(
                        (request, reply) -> reply.send(request.data(), 0, request.dataLength())).build() :
                    Responder.builder().requestResponse(Mono::just).build(),
                Runnable::run, Throwable::printStackTrace, nowNs);
            sender = new Sender(counters);
            sender.add(client);
            sender.add(server);
            client.sendSetup(new byte[0], new byte[0]);
            for (int i = 0; i < 10; i++)
            {
                cycle();
            }
            connection = client.api();
            request = Message.of(new byte[size]);
            requestBytes = new UnsafeBuffer(new byte[size]);
        }

        int cycle()
        {
            nowNs += 1_000;
            return sender.doWork() + server.doWork(nowNs) + sender.doWork() + client.doWork(nowNs);
        }
    }

    /** Counts replies; one instance for the whole run, so that the measured path allocates only what Rivulet does. */
    static final class ReplyCounter implements CoreSubscriber<Message>
    {
        long replies;

        @Override
        public void onSubscribe(final Subscription subscription)
        {
            subscription.request(1);
        }

        @Override
        public void onNext(final Message message)
        {
            replies++;
        }

        @Override
        public void onError(final Throwable throwable)
        {
            throw new IllegalStateException(throwable);
        }

        @Override
        public void onComplete()
        {
        }
    }

    /** Counts the replies of zero-copy requests; one instance for the whole run, as {@link ReplyCounter}. */
    static final class ReplyHandlerCounter implements ReplyHandler
    {
        long replies;

        @Override
        public void onReply(final long requestId, final MessageView reply)
        {
            replies++;
        }

        @Override
        public void onError(final long requestId, final Throwable error)
        {
            throw new IllegalStateException(error);
        }
    }

    @Benchmark
    public long requestResponse(final Pair pair)
    {
        final long before = pair.replies.replies;
        pair.connection.requestResponse(pair.request).subscribe(pair.replies);
        for (int i = 0; i < 100 && pair.replies.replies == before; i++)
        {
            pair.cycle();
        }
        if (pair.replies.replies == before)
        {
            throw new IllegalStateException("no reply after 100 cycles");
        }
        return pair.replies.replies;
    }

    /**
     * 64 request-responses opened back to back, then the cycles that answer them all: the batch that
     * {@code flatMap} with 64 in flight makes of each read, without the sockets. Its score is per request-response
     * ({@code OperationsPerInvocation}): the CPU cost of one when the fixed cost of a duty cycle is shared by a batch.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long requestResponseBatch(final Pair pair)
    {
        final long expected = pair.replies.replies + BATCH;
        for (int i = 0; i < BATCH; i++)
        {
            pair.connection.requestResponse(pair.request).subscribe(pair.replies);
        }
        for (int i = 0; i < 100 && pair.replies.replies != expected; i++)
        {
            pair.cycle();
        }
        if (pair.replies.replies != expected)
        {
            throw new IllegalStateException("replies missing after 100 cycles");
        }
        return pair.replies.replies;
    }

    /**
     * One zero-copy request ({@code Connection.offerRequest}) and its reply to a {@link ReplyHandler}: what
     * {@link #requestResponse} costs without the requester's {@code Mono}, stream object and message copy.
     */
    @Benchmark
    public long offerRequest(final Pair pair)
    {
        final long before = pair.handledReplies.replies;
        offer(pair);
        for (int i = 0; i < 100 && pair.handledReplies.replies == before; i++)
        {
            pair.cycle();
        }
        if (pair.handledReplies.replies == before)
        {
            throw new IllegalStateException("no reply after 100 cycles");
        }
        return pair.handledReplies.replies;
    }

    /** {@link #requestResponseBatch} with zero-copy requests: 64 offered back to back, then the cycles that answer them. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long offerRequestBatch(final Pair pair)
    {
        final long expected = pair.handledReplies.replies + BATCH;
        for (int i = 0; i < BATCH; i++)
        {
            offer(pair);
        }
        for (int i = 0; i < 100 && pair.handledReplies.replies != expected; i++)
        {
            pair.cycle();
        }
        if (pair.handledReplies.replies != expected)
        {
            throw new IllegalStateException("replies missing after 100 cycles");
        }
        return pair.handledReplies.replies;
    }

    private static void offer(final Pair pair)
    {
        final long id = pair.connection.offerRequest(pair.requestBytes, 0, pair.size, pair.handledReplies);
        if (id <= 0)
        {
            throw new IllegalStateException("offerRequest refused: " + id);
        }
    }
}
