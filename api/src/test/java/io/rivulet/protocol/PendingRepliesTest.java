package io.rivulet.protocol;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The slots of the zero-copy requests waiting for replies: one per id, found without hashing, growing. */
class PendingRepliesTest
{
    private final PendingReplies replies = new PendingReplies();

    @Test
    void shouldFindAndTakeOutEachRequestByItsId()
    {
        final PendingReply first = reply(1);
        final PendingReply second = reply(3);
        replies.put(first);
        replies.put(second);

        assertThat(replies.size()).isEqualTo(2);
        assertThat(replies.get(1)).isSameAs(first);
        assertThat(replies.get(5)).isNull();
        assertThat(replies.remove(3)).isSameAs(second);
        assertThat(replies.remove(3)).as("taken once").isNull();
        assertThat(replies.get(3)).isNull();
        assertThat(replies.size()).isEqualTo(1);
    }

    @Test
    void shouldTellAnIdWhoseSlotAnOlderRequestHoldsAndNotConfuseTheTwo()
    {
        final int slots = replies.capacity();
        replies.put(reply(1));
        final int sameSlot = 1 + 2 * slots;

        assertThat(replies.isSlotFree(sameSlot)).isFalse();
        assertThat(replies.isSlotFree(3)).isTrue();
        assertThat(replies.get(sameSlot)).as("not the id in the slot").isNull();
        assertThat(replies.remove(sameSlot)).isNull();
        assertThat(replies.size()).isEqualTo(1);
        assertThatThrownBy(() -> replies.put(reply(sameSlot))).isInstanceOf(IllegalStateException.class);
        assertThat(replies.get(1)).isNotNull();
    }

    @Test
    void shouldGrowOnceHalfTheSlotsAreTakenAndKeepEveryRequest()
    {
        final int slots = replies.capacity();
        for (int i = 0; i <= slots / 2; i++)
        {
            replies.put(reply(2 * i + 2)); // even ids, as on a server
        }

        assertThat(replies.capacity()).isEqualTo(2 * slots);
        for (int i = 0; i <= slots / 2; i++)
        {
            assertThat(replies.get(2 * i + 2).streamId).isEqualTo(2 * i + 2);
        }
        assertThat(replies.isSlotFree(2 + 2 * slots)).as("the old collision is gone").isTrue();
    }

    @Test
    void shouldTakeEveryRequestOutAtOnce()
    {
        replies.put(reply(7));
        replies.put(reply(Integer.MAX_VALUE));
        final ArrayList<PendingReply> taken = new ArrayList<>();

        replies.removeAll(taken);

        assertThat(taken).extracting(r -> r.streamId).containsExactlyInAnyOrder(7, Integer.MAX_VALUE);
        assertThat(replies.size()).isZero();
        assertThat(replies.get(7)).isNull();
        assertThat(replies.isSlotFree(Integer.MAX_VALUE)).isTrue();
    }

    private static PendingReply reply(final int streamId)
    {
        final PendingReply reply = new PendingReply();
        reply.streamId = streamId;
        return reply;
    }
}
