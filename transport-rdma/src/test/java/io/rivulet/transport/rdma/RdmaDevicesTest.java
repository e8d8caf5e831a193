package io.rivulet.transport.rdma;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class RdmaDevicesTest
{
    @TempDir
    Path sys;

    @Test
    void shouldListDevicesSortedAndNothingWithoutTheClassDirectory() throws IOException
    {
        final RdmaDevices absent = new RdmaDevices(sys.resolve("class/infiniband"), sys.resolve("class/net"));
        assertThat(absent.classPresent()).isFalse();
        assertThat(absent.names()).isEmpty();

        final Path infiniband = Files.createDirectories(sys.resolve("class/infiniband"));
        Files.createDirectories(infiniband.resolve("mlx5_1"));
        Files.createDirectories(infiniband.resolve("mlx5_0"));
        final RdmaDevices present = new RdmaDevices(infiniband, sys.resolve("class/net"));

        assertThat(present.classPresent()).isTrue();
        assertThat(present.names()).containsExactly("mlx5_0", "mlx5_1");
    }

    @Test
    void shouldFindTheDeviceOfAHardwareInterfaceThroughItsPciFunction() throws IOException
    {
        final Path infiniband = Files.createDirectories(sys.resolve("class/infiniband/mlx5_0"));
        Files.createDirectories(sys.resolve("class/net/ens1f0/device/infiniband/mlx5_0"));
        final RdmaDevices devices = new RdmaDevices(infiniband.getParent(), sys.resolve("class/net"));

        assertThat(devices.deviceFor("ens1f0")).contains("mlx5_0");
        assertThat(devices.deviceFor("eth9")).isEmpty();
        assertThat(devices.deviceFor("../x")).isEmpty();
    }

    @Test
    void shouldFindASoftwareDeviceThroughItsParent() throws IOException
    {
        final Path siw = Files.createDirectories(sys.resolve("class/infiniband/siw0"));
        Files.writeString(siw.resolve("parent"), "eth0\n");
        final RdmaDevices devices = new RdmaDevices(siw.getParent(), sys.resolve("class/net"));

        assertThat(devices.deviceFor("eth0")).contains("siw0");
    }

    @Test
    void shouldFindADeviceThroughItsGidNetworkDevices() throws IOException
    {
        final Path ndevs = Files.createDirectories(sys.resolve("class/infiniband/rxe0/ports/1/gid_attrs/ndevs"));
        Files.writeString(ndevs.resolve("0"), "enp3s0\n");
        final RdmaDevices devices = new RdmaDevices(sys.resolve("class/infiniband"), sys.resolve("class/net"));

        assertThat(devices.deviceFor("enp3s0")).contains("rxe0");
    }
}
