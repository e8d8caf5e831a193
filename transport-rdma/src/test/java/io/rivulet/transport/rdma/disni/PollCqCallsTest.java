package io.rivulet.transport.rdma.disni;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PollCqCallsTest
{
    private final FakeCalls fakes = new FakeCalls();
    private final PollCqCalls calls = new PollCqCalls(fakes::createPoll);

    @Test
    void shouldKeepOneCallPerCountAndReuseIt() throws IOException
    {
        for (long wrId = 0; wrId < 40; wrId++)
        {
            fakes.pendingCompletions.add(wrId);
        }

        final List<Long> taken = new ArrayList<>();
        for (int round = 0; round < 4; round++)
        {
            for (final int count : new int[] {1, 4, 3, 4, 1})
            {
                final int polled = calls.poll(count, 16);
                assertThat(polled).isLessThanOrEqualTo(count);
                for (int i = 0; i < polled; i++)
                {
                    taken.add(calls.wc(i).getWr_id());
                }
            }
        }

        assertThat(calls.builds()).as("one build per count").isEqualTo(3);
        assertThat(calls.prepared()).isEqualTo(3);
        assertThat(fakes.pollCalls).extracting(call -> call.count).containsExactly(1, 4, 3);
        assertThat(fakes.pollCalls).allMatch(call -> call.wcs.length == 16, "built over the one array")
            .allMatch(call -> !call.freed);
        assertThat(fakes.pollCalls.get(1).executions).isEqualTo(8);
        assertThat(taken).as("every completion once, in order").hasSize(40)
            .isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
    }

    @Test
    void shouldReplaceTheArrayAndFreeItsCallsOnlyForALongerPoll() throws IOException
    {
        calls.poll(2, 4);
        calls.poll(4, 4);
        assertThat(calls.capacity()).isEqualTo(4);
        final List<FakeCalls.PollCall> overOldArray = List.copyOf(fakes.pollCalls);

        fakes.pendingCompletions.add(7L);
        assertThat(calls.poll(6, 8)).isEqualTo(1);

        assertThat(overOldArray).allMatch(call -> call.freed, "calls over the shorter array freed");
        assertThat(calls.capacity()).as("as long as the caller's completion array").isEqualTo(8);
        assertThat(calls.wc(0).getWr_id()).as("read from the array the call filled").isEqualTo(7);
        final FakeCalls.PollCall longer = fakes.pollCalls.get(fakes.pollCalls.size() - 1);
        assertThat(longer.count).isEqualTo(6);
        assertThat(longer.wcs).hasSize(8);
        assertThat(longer.wcs[0]).isSameAs(calls.wc(0));

        calls.poll(8, 8);
        calls.poll(2, 8);
        assertThat(calls.capacity()).as("counts up to the caller's array never replace it again").isEqualTo(8);
        assertThat(calls.prepared()).isEqualTo(3);
        assertThat(fakes.pollCalls.subList(overOldArray.size(), fakes.pollCalls.size())).noneMatch(call -> call.freed);
    }

    @Test
    void shouldFreeEveryCallOnCloseAndRefuseToPollAfterwards() throws IOException
    {
        calls.poll(1, 3);
        calls.poll(2, 3);
        calls.poll(3, 3);

        calls.close();
        calls.close();

        assertThat(fakes.pollCalls).hasSize(3).allMatch(call -> call.freed);
        assertThat(calls.prepared()).isZero();
        assertThatThrownBy(() -> calls.poll(1, 3)).isInstanceOf(IllegalStateException.class);
        assertThat(fakes.pollCalls).as("nothing built after close").hasSize(3);
    }

    @Test
    void shouldRefuseACountBelowOne()
    {
        assertThatThrownBy(() -> calls.poll(0, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThat(fakes.pollCalls).isEmpty();
    }
}
