package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

class PostRecvCallsTest
{
    private final FakeCalls fakes = new FakeCalls();
    private final PostRecvCalls calls = new PostRecvCalls(fakes::createRecv, 4);
    private final ReceiveWorkRequest request = new ReceiveWorkRequest();

    @Test
    void shouldReuseTheCallOfARingSlot() throws IOException
    {
        for (int round = 0; round < 10; round++)
        {
            for (int slot = 0; slot < 4; slot++)
            {
                calls.prepare(request.set(slot, 0x1000 + slot * 4096L, 4096, 0x21)).execute();
            }
        }

        assertThat(calls.builds()).isEqualTo(4);
        assertThat(fakes.recvCalls).hasSize(4).allMatch(call -> call.executions == 10);
        assertThat(fakes.recvCalls.get(2).built.getWr_id()).isEqualTo(2);
        assertThat(fakes.recvCalls.get(2).built.getSg_list().get(0).getAddr()).isEqualTo(0x1000 + 2 * 4096L);
    }

    @Test
    void shouldRebuildWhenAWrIdComesWithAnotherBuffer() throws IOException
    {
        final FakeCalls.RecvCall first = (FakeCalls.RecvCall)calls.prepare(request.set(7, 0x1000, 4096, 0x21));
        final FakeCalls.RecvCall moved = (FakeCalls.RecvCall)calls.prepare(request.set(7, 0x9000, 4096, 0x21));
        final FakeCalls.RecvCall rekeyed = (FakeCalls.RecvCall)calls.prepare(request.set(7, 0x9000, 4096, 0x22));
        final FakeCalls.RecvCall resized = (FakeCalls.RecvCall)calls.prepare(request.set(7, 0x9000, 1024, 0x22));

        assertThat(first.freed).isTrue();
        assertThat(moved.freed).isTrue();
        assertThat(rekeyed.freed).isTrue();
        assertThat(resized.freed).isFalse();
        assertThat(resized.built.getSg_list().get(0).getLength()).isEqualTo(1024);
        assertThat(resized.built.getSg_list().get(0).getLkey()).isEqualTo(0x22);
        assertThat(calls.size()).isEqualTo(1);
    }

    @Test
    void shouldStartOverWhenFreshWrIdsFillTheCache() throws IOException
    {
        for (long wrId = 0; wrId < 5; wrId++)
        {
            calls.prepare(request.set(wrId, 0x1000, 64, 1));
        }

        assertThat(calls.resets()).isEqualTo(1);
        assertThat(calls.size()).isEqualTo(1);
        assertThat(fakes.recvCalls.subList(0, 4)).allMatch(call -> call.freed);
        assertThat(fakes.recvCalls.get(4).freed).isFalse();
    }

    @Test
    void shouldFreeEverythingOnClose() throws IOException
    {
        calls.prepare(request.set(1, 0x1000, 64, 1));
        calls.prepare(request.set(2, 0x2000, 64, 1));

        calls.close();
        calls.close();

        assertThat(fakes.recvCalls).allMatch(call -> call.freed);
    }
}
