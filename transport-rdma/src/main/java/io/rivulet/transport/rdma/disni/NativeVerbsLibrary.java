package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads librivulet-verbs, Rivulet's JNI extension for what DiSNI 2.1 lacks (UD queue pairs, address
 * handles, multicast, atomics), at most once per JVM, and remembers why it is not there.
 *
 * <p>Where it comes from, first match wins: the file named by {@code -Drivulet.rdma.verbs.library};
 * {@code librivulet-verbs.so} on {@code java.library.path}; the copy the Maven build put in the jar
 * ({@link #resourcePath()}), extracted to a temporary file. The build compiles it only when rdma-core's
 * headers are installed; without them the jar holds no library and {@link #status()} says so.
 *
 * <p>Thread-safe.
 */
final class NativeVerbsLibrary
{
    /** The library's name for {@code System.loadLibrary}. */
    static final String LIBRARY_NAME = "rivulet-verbs";
    /** Explicit path to the library, overriding the other sources. */
    static final String LIBRARY_PROPERTY = "rivulet.rdma.verbs.library";
    /** What the build writes next to the library in the jar: present means "it was built". */
    static final String NOT_BUILT = "librivulet-verbs not built (rdma-core headers were missing at build time: " +
        "install libibverbs-dev and librdmacm-dev and rebuild)";
    /** The ABI version this Java side speaks; the C side reports its own. */
    static final int ABI_VERSION = 1;

    /**
     * Whether the library is usable.
     *
     * @param loaded      true when loaded and its ABI matches.
     * @param description where it was loaded from, or why it is not usable.
     */
    record Status(boolean loaded, String description)
    {
    }

    private static Status status;

    private NativeVerbsLibrary()
    {
    }

    /** @return the load outcome; the first call loads. */
    static synchronized Status status()
    {
        if (null == status)
        {
            status = load(
                System.getProperty(LIBRARY_PROPERTY),
                System.getProperty("java.library.path", ""),
                NativeVerbsLibrary.class.getClassLoader());
        }
        return status;
    }

    /**
     * @param feature what needs the extension, for the message.
     * @throws VerbsException saying why the library is not usable.
     */
    static void require(final String feature) throws VerbsException
    {
        final Status current = status();
        if (!current.loaded())
        {
            throw new VerbsException(feature + " needs Rivulet's JNI extension (DiSNI 2.1 cannot do it), which is " +
                "unavailable: " + current.description());
        }
    }

    /** @return the jar resource of this platform's library, e.g. {@code META-INF/native/linux-amd64/librivulet-verbs.so}. */
    static String resourcePath()
    {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).replace(' ', '-');
        return "META-INF/native/" + os + "-" + System.getProperty("os.arch", "") + "/" +
            System.mapLibraryName(LIBRARY_NAME);
    }

    /**
     * Loads from the first source that has the library. Loading the same file again is harmless
     * ({@code System.load} ignores a library its class loader already has).
     *
     * @param explicit    the value of {@value #LIBRARY_PROPERTY}, or null.
     * @param libraryPath {@code java.library.path}.
     * @param resources   where to look for the jar's copy.
     * @return the outcome.
     */
    static Status load(final String explicit, final String libraryPath, final ClassLoader resources)
    {
        if (null != explicit && !explicit.isBlank())
        {
            return loadFile(Path.of(explicit.strip()).toAbsolutePath(), "-D" + LIBRARY_PROPERTY);
        }
        final Path onLibraryPath = DisniAvailability.findLibrary(libraryPath, LIBRARY_NAME);
        if (null != onLibraryPath)
        {
            return loadFile(onLibraryPath, "java.library.path");
        }
        final String resource = resourcePath();
        try (InputStream in = resources.getResourceAsStream(resource))
        {
            if (null == in)
            {
                return new Status(false, NOT_BUILT + "; no " + resource + " in the class path");
            }
            final Path file = Files.createTempFile("librivulet-verbs-", ".so");
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return loadFile(file, resource);
        }
        catch (final IOException | SecurityException ex)
        {
            return new Status(false, "cannot extract " + resource + " to a temporary file: " +
                DisniAvailability.text(ex));
        }
    }

    private static Status loadFile(final Path file, final String source)
    {
        try
        {
            System.load(file.toString());
        }
        catch (final UnsatisfiedLinkError ex)
        {
            return new Status(false, "librivulet-verbs at " + file + " (from " + source + ") failed to load (" +
                DisniAvailability.text(ex) + "): install rdma-core's libibverbs1, or rebuild on this machine");
        }
        catch (final SecurityException ex)
        {
            return new Status(false, "librivulet-verbs at " + file + " may not be loaded: " + DisniAvailability.text(ex));
        }
        final int abi;
        try
        {
            abi = NativeVerbs.abiVersion();
        }
        catch (final UnsatisfiedLinkError ex)
        {
            return new Status(false, "librivulet-verbs at " + file + " is not Rivulet's JNI extension (" +
                DisniAvailability.text(ex) + ")");
        }
        if (abi != ABI_VERSION || NativeVerbs.descriptorSize() != NativeWorkRequest.SIZE)
        {
            return new Status(false, "librivulet-verbs at " + file + " speaks ABI " + abi + " with a " +
                NativeVerbs.descriptorSize() + "-byte send descriptor; this Rivulet needs ABI " + ABI_VERSION +
                " with " + NativeWorkRequest.SIZE + ": rebuild it from this version's sources");
        }
        return new Status(true, "librivulet-verbs loaded from " + file + " (" + source + ")");
    }
}
