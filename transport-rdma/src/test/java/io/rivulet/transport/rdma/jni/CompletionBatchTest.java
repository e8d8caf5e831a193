package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.verbs.WcOpcode;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Completion records as librivulet-verbs writes them, read into the SPI's completions without a device. */
class CompletionBatchTest
{
    private final CompletionBatch batch = new CompletionBatch(4);
    private final WorkCompletion completion = new WorkCompletion();

    @Test
    void shouldReadAUdReceiveWithItsGrhSourceAndImmediateData()
    {
        record(0, 41, 0, WorkRequests.IBV_WC_RECV, 0, 1064, 0x0a0b0c0d, 0x11, 0x22,
            WorkRequests.IBV_WC_GRH | WorkRequests.IBV_WC_WITH_IMM, 7);

        batch.read(0, completion);

        assertThat(completion.wrId()).isEqualTo(41);
        assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(completion.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(completion.byteLength()).isEqualTo(1064);
        assertThat(completion.hasImmData()).isTrue();
        assertThat(completion.immData()).isEqualTo(0x0a0b0c0d);
        assertThat(completion.qpNumber()).isEqualTo(0x11);
        assertThat(completion.sourceQpNumber()).isEqualTo(0x22);
        assertThat(completion.hasGrh()).isTrue();
        assertThat(completion.sourceLid()).isEqualTo(7);
        assertThat(completion.vendorError()).isZero();
    }

    @Test
    void shouldKeepOnlyWhatIbverbsDefinesInAnErrorCompletion()
    {
        // what a previous completion left must not show through: C zeroes it, and Java ignores it anyway
        record(1, 9, WcStatus.REMOTE_ACCESS_ERROR.code(), 1, 0x33, 4096, 5, 0x44, 0x55, WorkRequests.IBV_WC_GRH, 3);

        batch.read(1, completion);

        assertThat(completion.wrId()).isEqualTo(9);
        assertThat(completion.status()).isEqualTo(WcStatus.REMOTE_ACCESS_ERROR);
        assertThat(completion.opcode()).isEqualTo(WcOpcode.UNKNOWN);
        assertThat(completion.vendorError()).isEqualTo(0x33);
        assertThat(completion.qpNumber()).isEqualTo(0x44);
        assertThat(completion.byteLength()).isZero();
        assertThat(completion.hasGrh()).isFalse();
        assertThat(completion.sourceQpNumber()).isZero();
    }

    @Test
    void shouldMapStatusCodesBeyondTheKnownOnesToGeneralError()
    {
        record(2, 1, 200, 0, 0, 0, 0, 1, 0, 0, 0);
        batch.read(2, completion);
        assertThat(completion.status()).isEqualTo(WcStatus.GENERAL_ERROR);

        record(3, 1, WcStatus.FATAL_ERROR.code(), 0, 0, 0, 0, 1, 0, 0, 0);
        batch.read(3, completion);
        assertThat(completion.status()).isEqualTo(WcStatus.FATAL_ERROR);
        assertThat(WcStatus.of(-1)).isEqualTo(WcStatus.GENERAL_ERROR);
    }

    private void record(final int index, final long wrId, final int status, final int opcode, final int vendorErr,
        final int byteLength, final int imm, final int qpNum, final int srcQp, final int flags, final int slid)
    {
        final UnsafeBuffer buffer = batch.buffer();
        final int base = index * CompletionBatch.SIZE;
        buffer.putLong(base + CompletionBatch.WR_ID, wrId);
        buffer.putInt(base + CompletionBatch.STATUS, status);
        buffer.putInt(base + CompletionBatch.OPCODE, opcode);
        buffer.putInt(base + CompletionBatch.VENDOR_ERR, vendorErr);
        buffer.putInt(base + CompletionBatch.BYTE_LEN, byteLength);
        buffer.putInt(base + CompletionBatch.IMM_DATA, imm);
        buffer.putInt(base + CompletionBatch.QP_NUM, qpNum);
        buffer.putInt(base + CompletionBatch.SRC_QP, srcQp);
        buffer.putInt(base + CompletionBatch.WC_FLAGS, flags);
        buffer.putInt(base + CompletionBatch.SLID, slid);
    }
}
