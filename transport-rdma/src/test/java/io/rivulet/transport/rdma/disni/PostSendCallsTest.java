package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvSendWR;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PostSendCallsTest
{
    private final FakeCalls fakes = new FakeCalls();
    private final PostSendCalls calls = new PostSendCalls(fakes::createSend, 2);

    @Test
    void shouldBuildOnceAndOnlyModifyTheMutableFieldsAfterwards() throws IOException
    {
        final SendWorkRequest request = new SendWorkRequest()
            .wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
            .addSge(0x1000, 100, 0x11).remote(0xA000, 0x71);
        final FakeCalls.SendCall first = (FakeCalls.SendCall)calls.prepare(request);
        first.execute();

        request.clear().wrId(2).opcode(Opcode.RDMA_WRITE).flags(0).addSge(0x2000, 200, 0x12).remote(0xB000, 0x72);
        final FakeCalls.SendCall second = (FakeCalls.SendCall)calls.prepare(request);

        assertThat(second).isSameAs(first);
        assertThat(calls.builds()).isEqualTo(1);
        assertThat(second.wr.wrId).isEqualTo(2);
        assertThat(second.wr.sendFlags).isZero();
        assertThat(second.wr.rdma.remoteAddress).isEqualTo(0xB000);
        assertThat(second.wr.rdma.rkey).isEqualTo(0x72);
        assertThat(second.wr.sges.get(0).addr).isEqualTo(0x2000);
        assertThat(second.wr.sges.get(0).length).isEqualTo(200);
        assertThat(second.wr.sges.get(0).lkey).isEqualTo(0x12);
        assertThat(second.built.getOpcode()).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE);
    }

    @Test
    void shouldMapSignaledToTheIbverbsBitWhenModifying() throws IOException
    {
        final SendWorkRequest request = new SendWorkRequest().opcode(Opcode.SEND).addSge(0x1000, 8, 1);
        calls.prepare(request);
        final FakeCalls.SendCall call = (FakeCalls.SendCall)calls.prepare(request.flags(SendWorkRequest.SIGNALED));

        assertThat(call.wr.sendFlags).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED);
    }

    @Test
    void shouldKeepOneCallPerOpcodeAndSgeCount() throws IOException
    {
        final SendWorkRequest request = new SendWorkRequest();
        calls.prepare(request.clear().opcode(Opcode.SEND).addSge(0x1000, 8, 1));
        calls.prepare(request.clear().opcode(Opcode.SEND).addSge(0x1000, 8, 1).addSge(0x2000, 8, 1));
        calls.prepare(request.clear().opcode(Opcode.RDMA_WRITE).addSge(0x1000, 8, 1).remote(0x9000, 3));
        calls.prepare(request.clear().opcode(Opcode.RDMA_READ).addSge(0x1000, 8, 1).remote(0x9000, 3));
        assertThat(calls.builds()).isEqualTo(4);

        for (int i = 0; i < 100; i++)
        {
            calls.prepare(request.clear().wrId(i).opcode(Opcode.SEND).addSge(0x1000 + i, 8, 1));
            calls.prepare(request.clear().wrId(i).opcode(Opcode.RDMA_READ).addSge(0x1000, i, 1).remote(0x9000 + i, 3));
        }
        assertThat(calls.builds()).isEqualTo(4);
        assertThat(fakes.sendCalls).hasSize(4);
        assertThat(fakes.sendCalls.get(1).built.getNum_sge()).isEqualTo(2);
    }

    @Test
    void shouldPutTheRegionsLocalKeyInSgesAndTheRemoteRegionsRkeyInTheRdmaFields() throws IOException
    {
        final DisniMemoryRegion local = region(0x10_0000L, 0x1111, 0x2222);
        final DisniMemoryRegion remote = region(0x20_0000L, 0x3333, 0x4444);

        final SendWorkRequest read = new SendWorkRequest()
            .opcode(Opcode.RDMA_READ)
            .addSge(local.address(), 64, local.lkey())
            .remote(remote.address() + 128, remote.rkey());
        final FakeCalls.SendCall call = (FakeCalls.SendCall)calls.prepare(read);

        assertThat(call.wr.sges.get(0).lkey).isEqualTo(0x1111);
        assertThat(call.wr.rdma.rkey).isEqualTo(0x4444).isNotEqualTo(remote.lkey());
        assertThat(call.wr.rdma.remoteAddress).isEqualTo(0x20_0080L);
    }

    @Test
    void shouldNotTouchRemoteFieldsForSends() throws IOException
    {
        final FakeCalls.SendCall call = (FakeCalls.SendCall)calls.prepare(
            new SendWorkRequest().opcode(Opcode.SEND).addSge(0x1000, 8, 1).remote(0x5000, 7));

        assertThat(call.wr.rdma.touched).isFalse();
        assertThat(call.built.getRdma().getRkey()).isZero();
    }

    @Test
    void shouldBuildACallPerImmediateValueAndEvictTheLeastRecentlyUsed() throws IOException
    {
        final SendWorkRequest request = new SendWorkRequest();
        final FakeCalls.SendCall imm1 = (FakeCalls.SendCall)calls.prepare(withImm(request, 1));
        final FakeCalls.SendCall imm2 = (FakeCalls.SendCall)calls.prepare(withImm(request, 2));
        assertThat(calls.prepare(withImm(request, 1))).isSameAs(imm1);
        assertThat(calls.builds()).isEqualTo(2);
        assertThat(imm1.built.getImm_data()).isEqualTo(DisniWorkRequests.toWireImmData(1));
        assertThat(imm2.built.getImm_data()).isEqualTo(DisniWorkRequests.toWireImmData(2));

        final FakeCalls.SendCall imm3 = (FakeCalls.SendCall)calls.prepare(withImm(request, 3));
        assertThat(calls.builds()).isEqualTo(3);
        assertThat(imm2.freed).as("least recently used").isTrue();
        assertThat(imm1.freed).isFalse();
        assertThat(imm3.built.getImm_data()).isEqualTo(DisniWorkRequests.toWireImmData(3));

        calls.prepare(withImm(request, 2));
        assertThat(imm1.freed).isTrue();
        assertThat(imm3.freed).isFalse();
        assertThat(calls.prepare(withImm(request, 3))).isSameAs(imm3);
    }

    @Test
    void shouldKeepImmediateCallsOfDifferentShapesApart() throws IOException
    {
        final SendWorkRequest request = new SendWorkRequest();
        final FakeCalls.SendCall write = (FakeCalls.SendCall)calls.prepare(withImm(request, 9));
        final FakeCalls.SendCall send = (FakeCalls.SendCall)calls.prepare(
            request.clear().opcode(Opcode.SEND_WITH_IMM).immData(9).addSge(0x1000, 8, 1));

        assertThat(send).isNotSameAs(write);
        assertThat(send.built.getOpcode()).isEqualTo(IbvSendWR.IBV_WR_SEND_WITH_IMM);
        assertThat(write.built.getOpcode()).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM);
        assertThat(write.wr.rdma.touched).isTrue();
    }

    @Test
    void shouldFreeEveryCallOnceOnClose() throws IOException
    {
        final SendWorkRequest request = new SendWorkRequest();
        calls.prepare(request.clear().opcode(Opcode.SEND).addSge(0x1000, 8, 1));
        calls.prepare(withImm(request, 1));
        calls.prepare(withImm(request, 2));

        calls.close();
        calls.close();

        assertThat(fakes.sendCalls).allMatch(call -> call.freed);
        assertThatThrownBy(() -> calls.prepare(request)).isInstanceOf(IllegalStateException.class);
    }

    private static SendWorkRequest withImm(final SendWorkRequest request, final int imm)
    {
        return request.clear().opcode(Opcode.RDMA_WRITE_WITH_IMM).immData(imm).addSge(0x1000, 8, 1).remote(0x9000, 5);
    }

    private static DisniMemoryRegion region(final long address, final int lkey, final int rkey)
    {
        return new DisniMemoryRegion(
            ByteBuffer.allocateDirect(1), address, 4096, lkey, rkey, Access.LOCAL_WRITE | Access.REMOTE_READ,
            () -> {}, region -> {});
    }
}
