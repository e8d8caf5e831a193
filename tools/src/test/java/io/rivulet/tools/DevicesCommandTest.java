package io.rivulet.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code rivulet devices}: devices from sysfs, and each provider's availability with its reason. */
class DevicesCommandTest
{
    @TempDir
    Path sysfs;

    @Test
    void withoutAnRdmaDeviceSaysSoAndThatSoftIsAvailable()
    {
        final CliRun run = CliRun.of("devices", "--sysfs", sysfs.resolve("infiniband").toString());
        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
            .contains("RDMA devices: none (" + sysfs.resolve("infiniband") + " does not exist)")
            .containsPattern("(?m)^  ibverbs: (available|unavailable) - .+$")
            .containsPattern("(?m)^  disni: (available|unavailable) - .+$")
            .containsPattern("(?m)^  soft: available - .+$")
            .containsPattern("(?m)^auto picks: (ibverbs|disni|soft) \\(the first available of ibverbs, disni, soft\\)$");
    }

    @Test
    void listsTheDevicesTheKernelExposes() throws Exception
    {
        Files.createDirectories(sysfs.resolve("mlx5_0"));
        Files.createDirectories(sysfs.resolve("rxe0"));
        final CliRun run = CliRun.of("devices", "--sysfs", sysfs.toString());
        assertThat(run.out()).contains("RDMA devices: mlx5_0, rxe0");
    }

    @Test
    void onThisMachineTheRealSysfsIsRead()
    {
        final CliRun run = CliRun.of("devices");
        assertThat(run.exitCode()).isZero();
        final boolean hasDevices = Files.isDirectory(DevicesCommand.SYS_CLASS_INFINIBAND) &&
            DevicesCommand.SYS_CLASS_INFINIBAND.toFile().list().length > 0;
        assertThat(run.out()).contains(hasDevices ? "RDMA devices: " : "RDMA devices: none")
            .containsPattern("(?m)^  soft: available");
    }
}
