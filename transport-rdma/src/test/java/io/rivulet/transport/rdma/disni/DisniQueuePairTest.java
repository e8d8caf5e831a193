package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a DiSNI RC queue pair refuses before anything reaches the device. */
class DisniQueuePairTest
{
    @Test
    void shouldRefuseAtomicsWhenTheDeviceHasNone()
    {
        for (final Opcode atomic : new Opcode[] {Opcode.ATOMIC_CMP_AND_SWP, Opcode.ATOMIC_FETCH_AND_ADD})
        {
            final SendWorkRequest request = new SendWorkRequest().opcode(atomic).flags(SendWorkRequest.SIGNALED)
                .addSge(0x1000, 8, 1).remote(0x2000, 2).atomic(1, 2);

            assertThatThrownBy(() -> DisniQueuePair.validateSend(request, 0, false, 0x321))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining(atomic.name())
                .hasMessageContaining("queue pair 801")
                .hasMessageContaining("IBV_ATOMIC_NONE");
            assertThatCode(() -> DisniQueuePair.validateSend(request, 0, true, 0x321)).doesNotThrowAnyException();
        }
    }

    @Test
    void shouldLetEverythingElseThroughOnADeviceWithoutAtomics()
    {
        for (final Opcode opcode : new Opcode[] {Opcode.SEND, Opcode.RDMA_WRITE, Opcode.RDMA_READ})
        {
            assertThatCode(() -> DisniQueuePair.validateSend(new SendWorkRequest().opcode(opcode)
                .addSge(0x1000, 64, 1).remote(0x2000, 2), 0, false, 7)).doesNotThrowAnyException();
        }
    }

    @Test
    void shouldStillRefuseMalformedRequests()
    {
        assertThatThrownBy(() -> DisniQueuePair.validateSend(new SendWorkRequest().opcode(Opcode.ATOMIC_FETCH_AND_ADD)
            .addSge(0x1000, 8, 1).remote(0x2004, 2), 0, true, 7))
            .isInstanceOf(VerbsException.class).hasMessageContaining("not 8-byte aligned");
        assertThatThrownBy(() -> DisniQueuePair.validateSend(new SendWorkRequest().opcode(Opcode.SEND)
            .flags(SendWorkRequest.INLINE).addSge(0x1000, 65, 1), 64, true, 7))
            .isInstanceOf(VerbsException.class).hasMessageContaining("maxInlineData 64");
    }
}
