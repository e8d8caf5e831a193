package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.RdmaProvider;
import io.rivulet.transport.rdma.RdmaDevices;
import io.rivulet.transport.rdma.jni.NativeLibrary;
import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.verbs.VerbsProvider.Availability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides whether DiSNI can run here, without ever letting a missing piece crash or poison the JVM,
 * and says what is missing and how to fix it.
 *
 * <p>Checks, in order: DiSNI's classes; {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED} (DiSNI
 * casts buffers to {@code sun.nio.ch.DirectBuffer}; JDK 16+ throws {@link IllegalAccessError} without
 * it); {@code libdisni} on {@code java.library.path} (looked up as a file first: letting DiSNI's
 * {@code NativeDispatcher} fail its static initialiser would make every later DiSNI call throw
 * {@link NoClassDefFoundError}); an RDMA device in sysfs. When those pass, DiSNI's native side is loaded
 * once per JVM and an RDMA CM event channel is opened and closed.
 *
 * <p>The JNI extension (librivulet-verbs) is reported alongside: RC works without it, so its absence
 * never makes DiSNI unavailable, but the description says whether UD queue pairs, address handles,
 * multicast and atomics will work, and why not.
 */
final class DisniAvailability
{
    static final String LIBRARY_NAME = "disni";
    static final String ADD_EXPORTS = "--add-exports java.base/sun.nio.ch=ALL-UNNAMED";
    static final String BUILD_HINT = "build it from DiSNI's libdisni sources (./autoprepare.sh && " +
        "./configure --with-jdk=$JAVA_HOME && make install; needs libibverbs-dev and librdmacm-dev) and pass " +
        "-Djava.library.path=/usr/local/lib (or set LD_LIBRARY_PATH=/usr/local/lib)";

    /** The native side of the check; replaced in tests. */
    interface NativeProbe
    {
        /**
         * @param library the libdisni file found on {@code java.library.path}.
         * @return null when DiSNI's native side is loaded, else the problem and its fix.
         */
        String load(Path library);

        /** @return null when an RDMA CM event channel opens, else the problem and its fix. */
        String openEventChannel();
    }

    /**
     * What the check looks at.
     *
     * @param disniClasses     DiSNI's classes can be loaded.
     * @param sunNioChExported {@code sun.nio.ch} is exported to DiSNI's module.
     * @param libraryPath      {@code java.library.path}.
     * @param devices          the sysfs view of RDMA devices.
     * @param probe            the native checks.
     * @param extension        the JNI extension's state, or null not to report it.
     */
    record Environment(
        boolean disniClasses,
        boolean sunNioChExported,
        String libraryPath,
        RdmaDevices devices,
        NativeProbe probe,
        NativeLibrary.Status extension)
    {
        /** Without the JNI extension's state. */
        Environment(
            final boolean disniClasses,
            final boolean sunNioChExported,
            final String libraryPath,
            final RdmaDevices devices,
            final NativeProbe probe)
        {
            this(disniClasses, sunNioChExported, libraryPath, devices, probe, null);
        }

        /** @return this JVM's environment. */
        static Environment current()
        {
            Module disniModule = null;
            try
            {
                disniModule = Class.forName(
                    "com.ibm.disni.verbs.RdmaProvider", false, DisniAvailability.class.getClassLoader()).getModule();
            }
            catch (final ClassNotFoundException | LinkageError ex)
            {
                // reported below as missing classes
            }
            final boolean exported = null != disniModule && Object.class.getModule().isExported("sun.nio.ch", disniModule);
            return new Environment(
                null != disniModule,
                exported,
                System.getProperty("java.library.path", ""),
                new RdmaDevices(),
                DisniNativeProbe.INSTANCE,
                extensionWithDevices());
        }
    }

    private DisniAvailability()
    {
    }

    static Availability evaluate(final Environment environment)
    {
        final List<String> problems = new ArrayList<>();
        if (!environment.disniClasses())
        {
            problems.add("DiSNI's classes are not on the class path: add com.ibm.disni:disni:2.1");
        }
        else if (!environment.sunNioChExported())
        {
            problems.add(ADD_EXPORTS + " missing: DiSNI casts buffers to sun.nio.ch.DirectBuffer, which JDK 16+ " +
                "refuses without it; add it to the java command line");
        }

        final Path library = findLibrary(environment.libraryPath());
        if (null == library)
        {
            problems.add("libdisni not found on java.library.path (" + environment.libraryPath() + "): " + BUILD_HINT);
        }

        final RdmaDevices devices = environment.devices();
        final List<String> names = devices.names();
        if (!devices.classPresent())
        {
            problems.add("no RDMA device: " + devices.infinibandDirectory() + " does not exist (no RDMA driver " +
                "loaded: load the NIC's RDMA driver, e.g. mlx5_ib; without an RDMA NIC, a software device works " +
                "for testing: rdma link add siw0 type siw netdev <interface>)");
        }
        else if (names.isEmpty())
        {
            problems.add("no RDMA device: " + devices.infinibandDirectory() + " is empty");
        }

        if (environment.disniClasses() && null != library)
        {
            final String loadProblem = environment.probe().load(library);
            if (null != loadProblem)
            {
                problems.add(loadProblem);
            }
            else if (problems.isEmpty())
            {
                final String channelProblem = environment.probe().openEventChannel();
                if (null != channelProblem)
                {
                    problems.add(channelProblem);
                }
            }
        }

        final String extension = describe(environment.extension());
        if (!problems.isEmpty())
        {
            return Availability.no(String.join("; ", problems) + extension);
        }
        return Availability.yes("DiSNI 2.1 with " + library + "; RDMA devices: " + String.join(", ", names) + extension);
    }

    /** The extension's state, with what {@code ibv_get_device_list} says when it sees no device. */
    private static NativeLibrary.Status extensionWithDevices()
    {
        final NativeLibrary.Status extension = NativeLibrary.status();
        if (!extension.loaded())
        {
            return extension;
        }
        final String noDevice = Verbs.noDeviceReason();
        return null == noDevice ? extension : new NativeLibrary.Status(true, extension.description() + "; " + noDevice);
    }

    static String describe(final NativeLibrary.Status extension)
    {
        if (null == extension)
        {
            return "";
        }
        if (extension.loaded())
        {
            return "; JNI extension for UD queue pairs, address handles, multicast and atomics: " +
                extension.description();
        }
        return "; JNI extension unavailable, so UD queue pairs, address handles, multicast and atomics are refused: " +
            extension.description();
    }

    /**
     * Looks for the library the way {@code System.loadLibrary} does: the mapped file name in each
     * {@code java.library.path} entry, first match wins.
     *
     * @return the file, or null.
     */
    static Path findLibrary(final String libraryPath)
    {
        return NativeLibrary.findLibrary(libraryPath, LIBRARY_NAME);
    }

    static String text(final Throwable ex)
    {
        return NativeLibrary.text(ex);
    }

    /** Loads DiSNI's native side once per JVM: after a failed static initialiser DiSNI cannot retry. */
    static final class DisniNativeProbe implements NativeProbe
    {
        static final DisniNativeProbe INSTANCE = new DisniNativeProbe();

        private boolean attempted;
        private String loadProblem;

        @Override
        public synchronized String load(final Path library)
        {
            if (!attempted)
            {
                attempted = true;
                loadProblem = tryLoad(library);
            }
            return loadProblem;
        }

        private static String tryLoad(final Path library)
        {
            try
            {
                RdmaProvider.provider();
                return null;
            }
            catch (final UnsatisfiedLinkError ex)
            {
                return "libdisni at " + library + " failed to load (" + text(ex) + "): install rdma-core's " +
                    "libibverbs1 and librdmacm1, or rebuild libdisni on this machine";
            }
            catch (final IllegalAccessError ex)
            {
                return ADD_EXPORTS + " missing (" + text(ex) + ")";
            }
            catch (final NoClassDefFoundError ex)
            {
                return "DiSNI could not initialise (" + text(ex) + "): an earlier load of libdisni failed in this " +
                    "JVM, or a DiSNI dependency (slf4j) is missing";
            }
            catch (final IOException ex)
            {
                return "libdisni at " + library + " does not match DiSNI 2.1 (" + text(ex) + "): rebuild it from " +
                    "DiSNI 2.1's libdisni sources";
            }
            catch (final LinkageError | RuntimeException ex)
            {
                return "DiSNI failed to initialise: " + ex;
            }
        }

        @Override
        public String openEventChannel()
        {
            try
            {
                final RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
                if (null == channel)
                {
                    return "RDMA CM unavailable: rdma_create_event_channel returned nothing";
                }
                channel.destroyEventChannel();
                return null;
            }
            catch (final IOException ex)
            {
                return "RDMA CM unavailable (" + text(ex) + "): load the rdma_ucm kernel module (modprobe rdma_ucm) " +
                    "and check that this user may open /dev/infiniband/rdma_cm";
            }
            catch (final IllegalAccessError ex)
            {
                return ADD_EXPORTS + " missing (" + text(ex) + ")";
            }
            catch (final LinkageError | RuntimeException ex)
            {
                return "RDMA CM unavailable: " + ex;
            }
        }
    }
}
