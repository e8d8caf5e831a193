package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.verbs.Access;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DisniMemoryRegionTest
{
    private final List<String> events = new ArrayList<>();
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);

    @Test
    void shouldKeepLocalAndRemoteKeysApart()
    {
        final DisniMemoryRegion region = new DisniMemoryRegion(
            buffer, 0x7f00_0000_1000L, 4096, 0x1234, 0x5678, Access.LOCAL_WRITE | Access.REMOTE_WRITE,
            () -> events.add("dereg"), r -> events.add("closed"));

        assertThat(region.lkey()).isEqualTo(0x1234);
        assertThat(region.rkey()).isEqualTo(0x5678);
        assertThat(region.address()).isEqualTo(0x7f00_0000_1000L);
        assertThat(region.length()).isEqualTo(4096);
        assertThat(region.buffer()).isSameAs(buffer);
        assertThat(region.access()).isEqualTo(Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        assertThat(region.toString()).contains("lkey=0x1234").contains("rkey=0x5678");
    }

    @Test
    void shouldDeregisterOnceAndSurviveAFailedDeregistration()
    {
        final DisniMemoryRegion region = new DisniMemoryRegion(
            buffer, 0x1000, 4096, 1, 2, Access.LOCAL_WRITE,
            () ->
            {
                events.add("dereg");
                throw new IOException("j2c::deregMr: ibv_dereg_failed, error: Device or resource busy\n");
            },
            r -> events.add("closed"));

        region.close();
        region.close();

        assertThat(events).containsExactly("dereg", "closed");
        assertThat(region.isOpen()).isFalse();
    }

    @Test
    void shouldExplainALockedMemoryLimit()
    {
        assertThat(DisniProtectionDomain.registrationFailure(1 << 30,
            new IOException("j2c::regMr: ibv_reg_mr failed: Cannot allocate memory\n")))
            .contains("1073741824 bytes")
            .contains("locked-memory limit")
            .contains("ulimit -l");
        assertThat(DisniProtectionDomain.registrationFailure(4096,
            new IOException("j2c::regMr: ibv_reg_mr failed: Bad address\n")))
            .isEqualTo("ibv_reg_mr of 4096 bytes failed: j2c::regMr: ibv_reg_mr failed: Bad address");
    }
}
