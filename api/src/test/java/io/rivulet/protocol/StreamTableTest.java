package io.rivulet.protocol;

import io.rivulet.MessageView;
import io.rivulet.ReplyHandler;
import io.rivulet.Responder;
import io.rivulet.counters.NodeCounters;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The stream table on its own: id parity, reuse after a wrap, and the peer's streams counted apart. */
class StreamTableTest
{
    private final ProtocolConnection connection = newConnection();

    @Test
    void shouldAllocateOddIdsOnTheClientAndEvenIdsOnTheServer()
    {
        final StreamTable client = new StreamTable(true);
        final StreamTable server = new StreamTable(false);

        assertThat(new int[]{client.allocate(), client.allocate(), client.allocate()}).containsExactly(1, 3, 5);
        assertThat(new int[]{server.allocate(), server.allocate()}).containsExactly(2, 4);
        assertThat(client.isOwnId(7)).isTrue();
        assertThat(client.isOwnId(8)).isFalse();
        assertThat(server.isOwnId(8)).isTrue();
    }

    @Test
    void shouldSkipIdsInUseAndCountThePeersStreamsApart()
    {
        final StreamTable table = new StreamTable(true);
        final ProtocolStream request = stream(ProtocolStream.Kind.REQUESTER_RESPONSE);
        final int id = table.allocateOwn(16);
        request.registered(id);
        table.put(id, request);
        final ProtocolStream peer = stream(ProtocolStream.Kind.RESPONDER_STREAM);
        peer.registered(2);
        table.put(2, peer);

        assertThat(table.ownStreams()).isEqualTo(1);
        assertThat(table.peerStreams()).isEqualTo(1);
        assertThat(table.get(id)).isSameAs(request);

        table.remove(peer);
        assertThat(table.peerStreams()).isZero();
        assertThat(table.contains(2)).isFalse();
        table.remove(stream(ProtocolStream.Kind.REQUESTER_RESPONSE)); // not in the table: nothing changes
        assertThat(table.ownStreams()).isEqualTo(1);
        assertThat(table.removeAll()).containsExactly(request);
        assertThat(table.ownStreams()).isZero();
    }

    @Test
    void shouldSkipAnIdStillOpen()
    {
        final StreamTable table = new StreamTable(true);
        final ProtocolStream open = stream(ProtocolStream.Kind.REQUESTER_STREAM);
        final int id = table.allocateOwn(16);
        open.registered(id);
        table.put(id, open);

        assertThat(table.allocate()).as("1 is in use").isEqualTo(3);
    }

    @Test
    void shouldWrapToTheFirstIdOfItsParityAndSkipIdsStillInUse()
    {
        final StreamTable table = new StreamTable(true);
        final int longLived = table.allocateOwn(16);
        table.skipIdsTo(Integer.MAX_VALUE - 2);

        assertThat(table.allocateOwn(16)).isEqualTo(Integer.MAX_VALUE - 2);
        final int last = table.allocateOwn(16);
        assertThat(last).isEqualTo(Integer.MAX_VALUE);
        assertThat(table.allocateOwn(16)).as("wrapped: 1 is still in use").isEqualTo(longLived + 2);
        table.release(longLived);
        table.release(last);
        table.skipIdsTo(Integer.MAX_VALUE);
        assertThat(table.allocateOwn(16)).as("free again").isEqualTo(Integer.MAX_VALUE);
        assertThat(table.allocateOwn(16)).as("released at the wrap").isEqualTo(longLived);
        assertThat(table.allocateOwn(16)).as("3 is in use").isEqualTo(5);

        final StreamTable server = new StreamTable(false);
        final int serverLongLived = server.allocateOwn(16);
        server.skipIdsTo(Integer.MAX_VALUE - 1);
        assertThat(server.allocateOwn(16)).isEqualTo(Integer.MAX_VALUE - 1);
        assertThat(server.allocateOwn(16)).as("wrapped: 2 is still in use").isEqualTo(serverLongLived + 2);
    }

    @Test
    void shouldCountAnnouncedStreamsAgainstTheLimitAndFreeTheirIdsWhenRemoved()
    {
        final StreamTable table = new StreamTable(true);
        final int first = table.allocateOwn(2);
        final int second = table.allocateOwn(2);

        assertThat(table.allocateOwn(2)).as("two of two open").isZero();
        table.release(second);
        assertThat(table.allocateOwn(2)).as("a released id makes room").isEqualTo(5);
        final ProtocolStream stream = stream(ProtocolStream.Kind.REQUESTER_RESPONSE);
        stream.registered(first);
        table.put(first, stream);
        table.remove(stream);
        assertThat(table.ownStreams()).as("removing the stream gives its id back").isEqualTo(1);
    }

    @Test
    void shouldAdoptAnnouncedStreamsWhenAFrameNamesAnOwnIdItDoesNotKnowYet()
    {
        final StreamTable[] holder = new StreamTable[1];
        final StreamTable table = new StreamTable(true, () ->
        {
            for (ProtocolStream s = holder[0].takeAnnounced(); s != null; s = s.nextAnnounced)
            {
                holder[0].put(s.streamId(), s);
            }
        });
        holder[0] = table;
        final ProtocolStream stream = stream(ProtocolStream.Kind.REQUESTER_RESPONSE);
        final int id = table.allocateOwn(16);
        stream.registered(id);
        table.announce(stream);

        assertThat(table.contains(id)).as("announced, not yet adopted").isFalse();
        assertThat(table.get(id)).as("a frame for it adopts it").isSameAs(stream);
        assertThat(table.get(id + 2)).as("an unknown id stays unknown").isNull();
        assertThat(table.takeAnnounced()).isNull();
    }

    @Test
    void shouldSkipAnIdWhosePendingReplySlotAnOlderRequestStillHolds()
    {
        final StreamTable table = new StreamTable(true);
        final ReplyHandler handler = new ReplyHandler()
        {
            @Override
            public void onReply(final long requestId, final MessageView reply)
            {
            }

            @Override
            public void onError(final long requestId, final Throwable error)
            {
            }
        };
        final PendingReply straggler = table.openReply(1024, handler, 0);
        assertThat(straggler.streamId).isEqualTo(1);
        int lastId = 0;
        for (int i = 0; i < 63; i++) // ids 3 .. 127, each answered before the next: the slots never grow
        {
            final PendingReply reply = table.openReply(1024, handler, 0);
            lastId = reply.streamId;
            assertThat(table.takeReply(lastId, true)).isSameAs(reply);
            table.recycle(reply);
        }
        assertThat(lastId).isEqualTo(127);

        final PendingReply next = table.openReply(1024, handler, 0);
        assertThat(next.streamId).as("129 shares the straggler's slot").isEqualTo(131);
        assertThat(table.ownStreams()).isEqualTo(2);
        assertThat(table.takeReply(1, false)).as("cancelled: its id stays in use until released").isSameAs(straggler);
        assertThat(table.ownStreams()).isEqualTo(2);
        assertThat(table.allocateOwn(1024)).isEqualTo(133);
        table.release(1);
        assertThat(table.ownStreams()).isEqualTo(2);
        assertThat(table.takeAllReplies()).containsExactly(next);
        assertThat(table.ownStreams()).as("the stream's id").isEqualTo(1);
    }

    private ProtocolStream stream(final ProtocolStream.Kind kind)
    {
        return new ProtocolStream(connection, kind);
    }

    private static ProtocolConnection newConnection()
    {
        final NodeCounters counters = new NodeCounters();
        final ProtocolSettings settings = new ProtocolSettings(16 * 1024, 1024 * 1024, 16,
            TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(5), 64);
        final Outbound outbound = new Outbound(256 * 1024, 16 * 1024, counters.backPressureEvents);
        return new ProtocolConnection(InMemoryLink.pair()[0], outbound, settings,
            counters.connectionCounters(), true, Responder.none(), Runnable::run, Throwable::printStackTrace, 0);
    }
}
