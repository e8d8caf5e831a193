package io.rivulet.transport.rdma.soft;

import io.rivulet.spi.DatagramSettings;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The soft provider's datagram timers replace the hardware defaults, except where a property was set. */
class SoftDatagramDefaultsTest
{
    @Test
    void shouldUseMillisecondTimersInsteadOfTheHardwareDefaults()
    {
        final DatagramSettings hardware = new DatagramSettings();
        assertThat(hardware.swift().targetDelayNs()).isEqualTo(TimeUnit.MICROSECONDS.toNanos(200));

        final DatagramSettings soft = SoftDatagramDefaults.adjust(new DatagramSettings());
        assertThat(soft.swift().targetDelayNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
        assertThat(soft.rtoMinNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
        assertThat(soft.rtoInitialNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
        assertThat(soft.nakDelayNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(2));
        assertThat(soft.swift().minWindow()).isEqualTo(1.0);
        assertThat(soft.window()).isEqualTo(hardware.window()); // sizes are not timing: unchanged
        assertThat(soft.maxPayload()).isEqualTo(hardware.maxPayload());
    }

    @Test
    void shouldKeepAValueTheUserSetByProperty()
    {
        System.setProperty("rivulet.ud.targetDelay", "3ms");
        System.setProperty("rivulet.ud.rtoMin", "1ms");
        try
        {
            final DatagramSettings soft = SoftDatagramDefaults.adjust(new DatagramSettings());
            assertThat(soft.swift().targetDelayNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(3));
            assertThat(soft.rtoMinNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
            assertThat(soft.nakDelayNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(2)); // not set: the soft timer
        }
        finally
        {
            System.clearProperty("rivulet.ud.targetDelay");
            System.clearProperty("rivulet.ud.rtoMin");
        }
    }
}
