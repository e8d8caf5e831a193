package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScatterGatherTest
{
    /** Entries of 5, 0, 3 and 9 bytes, spread over a region with gaps between them: 17 bytes of payload. */
    private static final int[] OFFSETS = { 10, 40, 50, 70 };
    private static final int[] LENGTHS = { 5, 0, 3, 9 };
    private static final int TOTAL = 17;

    private final SendWorkRequest request = new SendWorkRequest();
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(256);
    private final long scratchAddress = BufferUtil.address(scratch);
    private SoftVerbsContext context;
    private SoftProtectionDomain pd;
    private MemoryRegion region;

    @BeforeEach
    void open() throws IOException
    {
        context = new SoftVerbsProvider(new SoftFabric()).open(InetAddress.getLoopbackAddress());
        pd = (SoftProtectionDomain)context.allocateProtectionDomain();
        region = pd.register(ByteBuffer.allocateDirect(128), Access.LOCAL_WRITE);
    }

    @AfterEach
    void close()
    {
        context.close();
    }

    @Test
    void shouldGatherEveryRangeOfAPayloadSpreadOverSeveralEntries() throws VerbsException
    {
        final SendQueue.Slot slot = slot(Opcode.SEND);
        for (int i = 0; i < 128; i++)
        {
            region.buffer().put(i, (byte)i);
        }
        final byte[] payload = expectedPayload();

        for (int from = 0; from <= TOTAL; from++)
        {
            for (int length = 0; from + length <= TOTAL; length++)
            {
                clearScratch();
                ScatterGather.gather(slot, from, scratchAddress + 1, length);
                for (int n = 0; n < length; n++)
                {
                    assertThat(scratch.get(1 + n)).as("byte %d of [%d, +%d)", n, from, length)
                        .isEqualTo(payload[from + n]);
                }
                assertThat(scratch.get(0)).isZero();
                assertThat(scratch.get(1 + length)).as("byte after [%d, +%d)", from, length).isZero();
            }
        }
    }

    @Test
    void shouldScatterEveryRangeIntoItsEntriesAndNothingBetweenThem() throws VerbsException
    {
        final SendQueue.Slot slot = slot(Opcode.RDMA_READ);
        for (int i = 0; i < 64; i++)
        {
            scratch.put(i, (byte)(100 + i));
        }

        for (int from = 0; from <= TOTAL; from++)
        {
            for (int length = 0; from + length <= TOTAL; length++)
            {
                final ByteBuffer target = region.buffer();
                for (int i = 0; i < 128; i++)
                {
                    target.put(i, (byte)0);
                }
                ScatterGather.scatter(slot, from, scratchAddress, length);

                int payloadIndex = 0;
                for (int e = 0; e < OFFSETS.length; e++)
                {
                    for (int b = 0; b < LENGTHS[e]; b++, payloadIndex++)
                    {
                        final boolean written = payloadIndex >= from && payloadIndex < from + length;
                        final byte expected = written ? (byte)(100 + payloadIndex - from) : 0;
                        assertThat(target.get(OFFSETS[e] + b)).as("payload byte %d after [%d, +%d)",
                            payloadIndex, from, length).isEqualTo(expected);
                    }
                }
                int touched = 0;
                for (int i = 0; i < 128; i++)
                {
                    touched += target.get(i) != 0 ? 1 : 0;
                }
                assertThat(touched).as("bytes written for [%d, +%d)", from, length).isEqualTo(length);
            }
        }
    }

    @Test
    void shouldGatherInlineDataFromTheSlotsCopy() throws VerbsException
    {
        final SendQueue queue = new SendQueue(2, 32);
        request.clear().opcode(Opcode.SEND).flags(SendWorkRequest.INLINE);
        addEntries(request);
        for (int i = 0; i < 128; i++)
        {
            region.buffer().put(i, (byte)(i + 1));
        }
        final long total = ScatterGather.checkSges(request);
        assertThat(ScatterGather.checkInline(request, total, 32, pd)).isTrue();
        queue.post(request, total, true);
        for (int i = 0; i < 128; i++)
        {
            region.buffer().put(i, (byte)0); // the caller may reuse its buffer once posted
        }

        clearScratch();
        ScatterGather.gather(queue.slot(0), 4, scratchAddress, 6);
        final byte[] payload = expectedPayload();
        for (int n = 0; n < 6; n++)
        {
            assertThat(scratch.get(n)).isEqualTo((byte)(payload[4 + n] + 1));
        }
    }

    @Test
    void shouldRejectACopyOutsideThePayloadWithoutCopying() throws VerbsException
    {
        final SendQueue.Slot slot = slot(Opcode.RDMA_READ);
        clearScratch();

        assertThatThrownBy(() -> ScatterGather.gather(slot, 10, scratchAddress, TOTAL - 9))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("copy of 8 bytes at 10 outside a payload of 17 bytes");
        assertThatThrownBy(() -> ScatterGather.scatter(slot, TOTAL + 1, scratchAddress, 0))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("outside a payload of 17 bytes");
        assertThatThrownBy(() -> ScatterGather.scatter(slot, -1, scratchAddress, 2))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScatterGather.gather(slot, 0, scratchAddress, -1))
            .isInstanceOf(IllegalArgumentException.class);
        for (int i = 0; i < 128; i++)
        {
            assertThat(region.buffer().get(i)).isZero();
        }
        ScatterGather.scatter(slot, TOTAL, scratchAddress, 0); // the empty range at the end is inside
    }

    @Test
    void shouldTotalEntriesAndRejectNegativeOrOversizedLists() throws VerbsException
    {
        request.clear().opcode(Opcode.SEND);
        addEntries(request);
        assertThat(ScatterGather.checkSges(request)).isEqualTo(TOTAL);
        assertThat(ScatterGather.checkSges(request.clear())).isZero();

        request.clear().addSge(scratchAddress, 4, 0).addSge(scratchAddress, -1, 0);
        assertThatThrownBy(() -> ScatterGather.checkSges(request))
            .isInstanceOf(VerbsException.class)
            .hasMessage("negative scatter-gather length");

        request.clear().addSge(scratchAddress, Integer.MAX_VALUE, 0).addSge(scratchAddress, 1, 0);
        assertThatThrownBy(() -> ScatterGather.checkSges(request))
            .isInstanceOf(VerbsException.class)
            .hasMessage("message longer than 2^31 - 1 bytes");
    }

    @Test
    void shouldAcceptInlineDataOnlyWithinLimitAndInRegisteredMemory() throws VerbsException
    {
        request.clear().opcode(Opcode.SEND);
        addEntries(request);
        assertThat(ScatterGather.checkInline(request, TOTAL, 0, pd)).as("not INLINE").isFalse();

        request.flags(SendWorkRequest.INLINE);
        assertThatThrownBy(() -> ScatterGather.checkInline(request, TOTAL, TOTAL - 1, pd))
            .isInstanceOf(VerbsException.class)
            .hasMessage("inline send of 17 bytes exceeds maxInlineData 16");

        request.clear().opcode(Opcode.SEND).flags(SendWorkRequest.INLINE)
            .addSge(region.address() + 120, 8, 0).addSge(scratchAddress, 4, 0);
        assertThatThrownBy(() -> ScatterGather.checkInline(request, 12, 64, pd))
            .isInstanceOf(VerbsException.class)
            .hasMessageContaining("inline data must lie in registered memory");
    }

    @Test
    void shouldCheckLkeysBoundsAndLocalWriteOfEveryNonEmptyEntry() throws IOException
    {
        assertThat(ScatterGather.checkLocal(slot(Opcode.SEND), pd)).isTrue();
        assertThat(ScatterGather.checkLocal(slot(Opcode.RDMA_READ), pd)).isTrue();

        final SendQueue.Slot past = slot(Opcode.SEND);
        past.sgeLength[3] = 128 - OFFSETS[3] + 1;
        assertThat(ScatterGather.checkLocal(past, pd)).as("entry past the region's end").isFalse();

        final SendQueue.Slot wrongKey = slot(Opcode.SEND);
        wrongKey.sgeLkey[2] = region.lkey() + 1;
        assertThat(ScatterGather.checkLocal(wrongKey, pd)).as("unknown lkey").isFalse();

        final SendQueue.Slot emptyWithWrongKey = slot(Opcode.SEND);
        emptyWithWrongKey.sgeLkey[1] = region.lkey() + 1;
        assertThat(ScatterGather.checkLocal(emptyWithWrongKey, pd)).as("empty entries are not checked").isTrue();

        final MemoryRegion readOnly = pd.register(ByteBuffer.allocateDirect(128), Access.REMOTE_READ);
        request.clear().opcode(Opcode.RDMA_READ).addSge(readOnly.address(), 8, readOnly.lkey());
        final SendQueue.Slot readIntoReadOnly = posted(request);
        assertThat(ScatterGather.checkLocal(readIntoReadOnly, pd)).as("READ into memory without LOCAL_WRITE")
            .isFalse();
        request.opcode(Opcode.SEND);
        assertThat(ScatterGather.checkLocal(posted(request), pd)).as("SEND from it").isTrue();
    }

    private SendQueue.Slot slot(final Opcode opcode) throws VerbsException
    {
        request.clear().opcode(opcode);
        addEntries(request);
        return posted(request);
    }

    private static SendQueue.Slot posted(final SendWorkRequest request) throws VerbsException
    {
        final SendQueue queue = new SendQueue(1, 0);
        queue.post(request, ScatterGather.checkSges(request), false);
        return queue.slot(0);
    }

    private void addEntries(final SendWorkRequest request)
    {
        for (int e = 0; e < OFFSETS.length; e++)
        {
            request.addSge(region.address() + OFFSETS[e], LENGTHS[e], region.lkey());
        }
    }

    /** @return the payload when region byte i holds i. */
    private static byte[] expectedPayload()
    {
        final byte[] payload = new byte[TOTAL];
        int n = 0;
        for (int e = 0; e < OFFSETS.length; e++)
        {
            for (int b = 0; b < LENGTHS[e]; b++)
            {
                payload[n++] = (byte)(OFFSETS[e] + b);
            }
        }
        return payload;
    }

    private void clearScratch()
    {
        for (int i = 0; i < scratch.capacity(); i++)
        {
            scratch.put(i, (byte)0);
        }
    }
}
