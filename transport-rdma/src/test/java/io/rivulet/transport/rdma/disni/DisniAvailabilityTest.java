package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.RdmaDevices;
import io.rivulet.transport.rdma.jni.NativeLibrary;
import io.rivulet.transport.rdma.verbs.VerbsProvider.Availability;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DisniAvailabilityTest
{
    @TempDir
    Path root;

    private final RecordingProbe probe = new RecordingProbe();

    @Test
    void shouldNameTheMissingLibraryTheSearchedPathAndHowToBuildIt() throws IOException
    {
        final String libraryPath = "/usr/java/packages/lib" + File.pathSeparator + root.resolve("empty");
        final Availability availability = DisniAvailability.evaluate(
            new DisniAvailability.Environment(true, true, libraryPath, devices("mlx5_0"), probe));

        assertThat(availability.available()).isFalse();
        assertThat(availability.reason())
            .startsWith("libdisni not found on java.library.path (" + libraryPath + ")")
            .contains("./autoprepare.sh && ./configure --with-jdk=$JAVA_HOME && make install")
            .contains("libibverbs-dev and librdmacm-dev")
            .contains("-Djava.library.path=/usr/local/lib");
        assertThat(probe.calls).as("DiSNI's native side is never touched without the library").isEmpty();
    }

    @Test
    void shouldSayWhenNoRdmaDriverIsLoaded() throws IOException
    {
        final Path missing = root.resolve("sys/class/infiniband");
        final Availability availability = DisniAvailability.evaluate(new DisniAvailability.Environment(
            true, true, library().toString(), new RdmaDevices(missing, root.resolve("net")), probe));

        assertThat(availability.available()).isFalse();
        assertThat(availability.reason())
            .startsWith("no RDMA device: " + missing + " does not exist")
            .contains("rdma link add siw0 type siw netdev");
        assertThat(probe.calls).containsExactly("load");
    }

    @Test
    void shouldSayWhenTheDeviceDirectoryIsEmpty() throws IOException
    {
        final Path infiniband = Files.createDirectories(root.resolve("infiniband"));
        final Availability availability = DisniAvailability.evaluate(new DisniAvailability.Environment(
            true, true, library().toString(), new RdmaDevices(infiniband, root.resolve("net")), probe));

        assertThat(availability.reason()).isEqualTo("no RDMA device: " + infiniband + " is empty");
    }

    @Test
    void shouldAskForTheAddExportsFlag() throws IOException
    {
        final Availability availability = DisniAvailability.evaluate(
            new DisniAvailability.Environment(true, false, library().toString(), devices("mlx5_0"), probe));

        assertThat(availability.available()).isFalse();
        assertThat(availability.reason()).startsWith("--add-exports java.base/sun.nio.ch=ALL-UNNAMED missing");
        assertThat(probe.calls).doesNotContain("channel");
    }

    @Test
    void shouldListEveryMissingPiece()
    {
        final Availability availability = DisniAvailability.evaluate(new DisniAvailability.Environment(
            true, false, "", new RdmaDevices(root.resolve("none"), root.resolve("net")), probe));

        assertThat(availability.reason().split("; "))
            .anyMatch(part -> part.startsWith("--add-exports"))
            .anyMatch(part -> part.startsWith("libdisni not found"))
            .anyMatch(part -> part.startsWith("no RDMA device"));
    }

    @Test
    void shouldReportALibraryThatFailsToLoad() throws IOException
    {
        probe.loadProblem = "libdisni at /x failed to load (libibverbs.so.1: cannot open shared object file)";
        final Availability availability = DisniAvailability.evaluate(
            new DisniAvailability.Environment(true, true, library().toString(), devices("mlx5_0"), probe));

        assertThat(availability.reason()).isEqualTo(probe.loadProblem);
        assertThat(probe.calls).containsExactly("load");
    }

    @Test
    void shouldReportAnUnusableConnectionManager() throws IOException
    {
        probe.channelProblem = "RDMA CM unavailable (No such device): load the rdma_ucm kernel module";
        final Availability availability = DisniAvailability.evaluate(
            new DisniAvailability.Environment(true, true, library().toString(), devices("mlx5_0"), probe));

        assertThat(availability.reason()).isEqualTo(probe.channelProblem);
        assertThat(probe.calls).containsExactly("load", "channel");
    }

    @Test
    void shouldDescribeTheLibraryAndDevicesWhenAvailable() throws IOException
    {
        final Path lib = library();
        final Availability availability = DisniAvailability.evaluate(new DisniAvailability.Environment(
            true, true, "/nowhere" + File.pathSeparator + lib, devices("mlx5_1", "mlx5_0"), probe));

        assertThat(availability.available()).isTrue();
        assertThat(availability.reason())
            .isEqualTo("DiSNI 2.1 with " + lib.resolve(System.mapLibraryName("disni")) + "; RDMA devices: mlx5_0, mlx5_1");
    }

    @Test
    void shouldSayWhenDisniIsNotOnTheClassPath()
    {
        final Availability availability = DisniAvailability.evaluate(
            new DisniAvailability.Environment(false, false, "", devices("mlx5_0"), probe));

        assertThat(availability.reason()).startsWith("DiSNI's classes are not on the class path");
        assertThat(probe.calls).isEmpty();
    }

    @Test
    void shouldReportTheLoadedJniExtensionWithoutAffectingAvailability() throws IOException
    {
        final Path lib = library();
        final Availability availability = DisniAvailability.evaluate(new DisniAvailability.Environment(
            true, true, lib.toString(), devices("mlx5_0"), probe,
            new NativeLibrary.Status(true, "librivulet-verbs loaded from /tmp/x.so (jar)")));

        assertThat(availability.available()).isTrue();
        assertThat(availability.reason()).endsWith("; RDMA devices: mlx5_0; JNI extension for UD queue pairs, " +
            "address handles, multicast and atomics: librivulet-verbs loaded from /tmp/x.so (jar)");
    }

    @Test
    void shouldSayWhatIsRefusedWithoutTheJniExtensionAndWhy() throws IOException
    {
        final NativeLibrary.Status notBuilt = new NativeLibrary.Status(false, NativeLibrary.NOT_BUILT);
        final Availability available = DisniAvailability.evaluate(new DisniAvailability.Environment(
            true, true, library().toString(), devices("mlx5_0"), probe, notBuilt));
        final Availability unavailable = DisniAvailability.evaluate(new DisniAvailability.Environment(
            true, true, "", devices(), probe, notBuilt));

        assertThat(available.available()).as("RC works without the extension").isTrue();
        assertThat(available.reason()).endsWith("; JNI extension unavailable, so UD queue pairs, address handles, " +
            "multicast and atomics are refused: " + NativeLibrary.NOT_BUILT);
        assertThat(unavailable.available()).isFalse();
        assertThat(unavailable.reason()).startsWith("libdisni not found").contains(NativeLibrary.NOT_BUILT);
    }

    @Test
    void shouldFindTheLibraryLikeSystemLoadLibrary() throws IOException
    {
        final Path first = Files.createDirectories(root.resolve("first"));
        final Path second = library();
        Files.createFile(first.resolve(System.mapLibraryName("disni")));

        assertThat(DisniAvailability.findLibrary(first + File.pathSeparator + second))
            .isEqualTo(first.resolve(System.mapLibraryName("disni")));
        assertThat(DisniAvailability.findLibrary(File.pathSeparator + second)).isEqualTo(
            second.resolve(System.mapLibraryName("disni")));
        assertThat(DisniAvailability.findLibrary(root.resolve("nothing").toString())).isNull();
        assertThat(DisniAvailability.findLibrary("")).isNull();
        assertThat(DisniAvailability.findLibrary(null)).isNull();
        Files.createFile(second.resolve(System.mapLibraryName("rivulet-verbs")));
        assertThat(NativeLibrary.findLibrary(first + File.pathSeparator + second, "rivulet-verbs"))
            .isEqualTo(second.resolve(System.mapLibraryName("rivulet-verbs")));
    }

    /** @return a directory holding a (fake) libdisni. */
    private Path library() throws IOException
    {
        final Path dir = Files.createDirectories(root.resolve("lib"));
        final Path file = dir.resolve(System.mapLibraryName("disni"));
        if (!Files.exists(file))
        {
            Files.createFile(file);
        }
        return dir;
    }

    private RdmaDevices devices(final String... names)
    {
        try
        {
            final Path infiniband = Files.createDirectories(root.resolve("class/infiniband"));
            for (final String name : names)
            {
                Files.createDirectories(infiniband.resolve(name));
            }
            return new RdmaDevices(infiniband, root.resolve("class/net"));
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static final class RecordingProbe implements DisniAvailability.NativeProbe
    {
        final List<String> calls = new ArrayList<>();
        String loadProblem;
        String channelProblem;

        @Override
        public String load(final Path library)
        {
            calls.add("load");
            return loadProblem;
        }

        @Override
        public String openEventChannel()
        {
            calls.add("channel");
            return channelProblem;
        }
    }
}
