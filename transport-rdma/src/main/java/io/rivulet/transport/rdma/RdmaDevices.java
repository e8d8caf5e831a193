package io.rivulet.transport.rdma;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The RDMA devices the kernel knows, from sysfs ({@code /sys/class/infiniband}), and which device
 * serves a network interface: how providers name devices without a native library (DiSNI has no device list),
 * and how the transport finds this host's address on the RDMA fabric ({@link #rdmaInterfaceAddress()}).
 *
 * <p>Stateless apart from its roots; thread-safe.
 */
public final class RdmaDevices
{
    static final Path SYS_CLASS_INFINIBAND = Path.of("/sys/class/infiniband");
    static final Path SYS_CLASS_NET = Path.of("/sys/class/net");

    private final Path infiniband;
    private final Path net;

    public RdmaDevices()
    {
        this(SYS_CLASS_INFINIBAND, SYS_CLASS_NET);
    }

    /**
     * @param infiniband the {@code /sys/class/infiniband} directory (another root in tests).
     * @param net        the {@code /sys/class/net} directory.
     */
    public RdmaDevices(final Path infiniband, final Path net)
    {
        this.infiniband = infiniband;
        this.net = net;
    }

    public Path infinibandDirectory()
    {
        return infiniband;
    }

    /** @return true when the RDMA class directory exists (an RDMA core driver is loaded). */
    public boolean classPresent()
    {
        return Files.isDirectory(infiniband);
    }

    /** @return the device names ({@code mlx5_0}, {@code rxe0}, {@code siw0}), sorted; empty when none. */
    public List<String> names()
    {
        return entries(infiniband);
    }

    /**
     * @param interfaceName a network interface ({@code eth2}, {@code ib0}).
     * @return the RDMA device behind it: its PCI function's device (RoCE, IPoIB), or a software
     *         device whose parent it is (rxe, siw), or one with a GID on it.
     */
    public Optional<String> deviceFor(final String interfaceName)
    {
        if (null == interfaceName || interfaceName.isEmpty() || interfaceName.contains("/"))
        {
            return Optional.empty();
        }
        final List<String> byPci = entries(net.resolve(interfaceName).resolve("device").resolve("infiniband"));
        if (!byPci.isEmpty())
        {
            return Optional.of(byPci.get(0));
        }
        for (final String device : names())
        {
            final Path deviceDir = infiniband.resolve(device);
            if (interfaceName.equals(read(deviceDir.resolve("parent"))))
            {
                return Optional.of(device);
            }
        }
        for (final String device : names())
        {
            final Path ports = infiniband.resolve(device).resolve("ports");
            for (final String port : entries(ports))
            {
                final Path ndevs = ports.resolve(port).resolve("gid_attrs").resolve("ndevs");
                for (final String gid : entries(ndevs))
                {
                    if (interfaceName.equals(read(ndevs.resolve(gid))))
                    {
                        return Optional.of(device);
                    }
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The address to open a hardware provider on when none is configured: the first IPv4 address of an interface
     * that is up and has an RDMA device behind it, unlike "the first non-loopback address", which on a host with a
     * management NIC picks the wrong interface.
     *
     * @return the address, or empty when no interface has an RDMA device.
     */
    public Optional<InetAddress> rdmaInterfaceAddress()
    {
        if (names().isEmpty())
        {
            return Optional.empty();
        }
        try
        {
            for (final NetworkInterface networkInterface : Collections.list(NetworkInterface.getNetworkInterfaces()))
            {
                if (networkInterface.isUp() && !networkInterface.isLoopback() &&
                    deviceFor(networkInterface.getName()).isPresent())
                {
                    for (final InetAddress address : Collections.list(networkInterface.getInetAddresses()))
                    {
                        if (address instanceof Inet4Address)
                        {
                            return Optional.of(address);
                        }
                    }
                }
            }
        }
        catch (final SocketException | RuntimeException ex)
        {
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static List<String> entries(final Path directory)
    {
        if (!Files.isDirectory(directory))
        {
            return Collections.emptyList();
        }
        final List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory))
        {
            for (final Path entry : stream)
            {
                names.add(entry.getFileName().toString());
            }
        }
        catch (final IOException | RuntimeException ignore)
        {
            return Collections.emptyList();
        }
        Collections.sort(names);
        return names;
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.US_ASCII).strip() : null;
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }
}
