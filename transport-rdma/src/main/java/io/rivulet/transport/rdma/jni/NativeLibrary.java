package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads librivulet-verbs, Rivulet's JNI binding to rdma-core, at most once per JVM, and remembers what it tried
 * and why it is not there.
 *
 * <p>Where it comes from, first match wins: the file named by {@code -Drivulet.rdma.verbs.library};
 * {@code librivulet-verbs.so} on {@code java.library.path}; the copy the Maven build put in the jar
 * ({@link #resourcePath()}), extracted to a temporary file. The build compiles it only when rdma-core's headers
 * are installed; without them the jar holds no library and {@link #status()} says so. Loading it needs rdma-core's
 * user-space libraries ({@code libibverbs.so.1}, {@code librdmacm.so.1}: Debian's libibverbs1 and librdmacm1), which
 * every RDMA host has; a device is not needed to load it.
 *
 * <p>Thread-safe.
 */
public final class NativeLibrary
{
    /** The library's name for {@code System.loadLibrary}. */
    public static final String LIBRARY_NAME = "rivulet-verbs";
    /** Explicit path to the library, overriding the other sources. */
    public static final String LIBRARY_PROPERTY = "rivulet.rdma.verbs.library";
    /** Why the jar may hold no library. */
    public static final String NOT_BUILT = "librivulet-verbs not built (rdma-core headers were missing at build " +
        "time: install libibverbs-dev and librdmacm-dev and rebuild)";
    /** The ABI version this Java side speaks; the C side reports its own. */
    public static final int ABI_VERSION = 2;

    /**
     * Whether the library is usable.
     *
     * @param loaded      true when loaded and its ABI and layouts match.
     * @param description where it was loaded from, or what was tried and why it is not usable.
     */
    public record Status(boolean loaded, String description)
    {
    }

    private static Status status;

    private NativeLibrary()
    {
    }

    /** @return the load outcome; the first call loads. */
    public static synchronized Status status()
    {
        if (null == status)
        {
            status = load(
                System.getProperty(LIBRARY_PROPERTY),
                System.getProperty("java.library.path", ""),
                NativeLibrary.class.getClassLoader());
        }
        return status;
    }

    /**
     * @param feature what needs the library, for the message.
     * @throws VerbsException saying why the library is not usable.
     */
    public static void require(final String feature) throws VerbsException
    {
        final Status current = status();
        if (!current.loaded())
        {
            throw new VerbsException(feature + " needs librivulet-verbs, Rivulet's JNI binding to rdma-core, which " +
                "is unavailable: " + current.description());
        }
    }

    /** @return the jar resource of this platform's library, e.g. {@code META-INF/native/linux-amd64/librivulet-verbs.so}. */
    public static String resourcePath()
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
     * @return the outcome, naming every source tried when none worked.
     */
    static Status load(final String explicit, final String libraryPath, final ClassLoader resources)
    {
        if (null != explicit && !explicit.isBlank())
        {
            return loadFile(Path.of(explicit.strip()).toAbsolutePath(), "-D" + LIBRARY_PROPERTY);
        }
        final List<String> tried = new ArrayList<>();
        final Path onLibraryPath = findLibrary(libraryPath, LIBRARY_NAME);
        if (null != onLibraryPath)
        {
            return loadFile(onLibraryPath, "java.library.path");
        }
        tried.add("no " + System.mapLibraryName(LIBRARY_NAME) + " on java.library.path");
        final String resource = resourcePath();
        try (InputStream in = resources.getResourceAsStream(resource))
        {
            if (null == in)
            {
                tried.add("no " + resource + " in the class path");
                return new Status(false, NOT_BUILT + " (tried: " + String.join("; ", tried) + ")");
            }
            final Path file = Files.createTempFile("librivulet-verbs-", ".so");
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return loadFile(file, resource);
        }
        catch (final IOException | SecurityException ex)
        {
            return new Status(false, "cannot extract " + resource + " to a temporary file: " + text(ex));
        }
    }

    /**
     * @param libraryName the name {@code System.loadLibrary} would be given.
     * @return the first {@code java.library.path} file with that library's mapped name, or null.
     */
    public static Path findLibrary(final String libraryPath, final String libraryName)
    {
        if (null == libraryPath)
        {
            return null;
        }
        final String fileName = System.mapLibraryName(libraryName);
        for (final String entry : libraryPath.split(File.pathSeparator))
        {
            if (entry.isBlank())
            {
                continue;
            }
            try
            {
                final Path candidate = Path.of(entry).resolve(fileName);
                if (Files.isRegularFile(candidate))
                {
                    return candidate;
                }
            }
            catch (final InvalidPathException ignore)
            {
                // a malformed entry cannot hold the library
            }
        }
        return null;
    }

    /** @return an exception's message, stripped, or its class name when it has none. */
    public static String text(final Throwable ex)
    {
        final String message = ex.getMessage();
        return null == message ? ex.getClass().getName() : message.strip();
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
                text(ex) + "): install rdma-core's user-space libraries (Debian: apt-get install libibverbs1 " +
                "librdmacm1, or rdma-core), or rebuild on this machine");
        }
        catch (final SecurityException ex)
        {
            return new Status(false, "librivulet-verbs at " + file + " may not be loaded: " + text(ex));
        }
        final int abi;
        try
        {
            abi = Verbs.abiVersion();
        }
        catch (final UnsatisfiedLinkError ex)
        {
            return new Status(false, "librivulet-verbs at " + file + " is not this version's JNI binding (" +
                text(ex) + "): rebuild it from this version's sources");
        }
        final String layouts = abi == ABI_VERSION ? layoutMismatch() : null;
        if (abi != ABI_VERSION || null != layouts)
        {
            return new Status(false, "librivulet-verbs at " + file + " speaks ABI " + abi +
                (null == layouts ? "" : " with " + layouts) + "; this Rivulet needs ABI " + ABI_VERSION +
                ": rebuild it from this version's sources");
        }
        return new Status(true, "librivulet-verbs loaded from " + file + " (" + source + ")");
    }

    /** @return the first layout whose size C and Java disagree on, or null. */
    private static String layoutMismatch()
    {
        final int[][] expected =
        {
            { Verbs.LAYOUT_SEND, SendChain.SIZE },
            { Verbs.LAYOUT_RECEIVE, ReceiveChain.SIZE },
            { Verbs.LAYOUT_COMPLETION, CompletionBatch.SIZE },
            { Verbs.LAYOUT_DEVICE, Verbs.A_SIZE },
            { Verbs.LAYOUT_PORT, Verbs.P_SIZE },
            { Verbs.LAYOUT_GID, Verbs.G_SIZE },
            { Verbs.LAYOUT_QP, Verbs.Q_SIZE },
            { Verbs.LAYOUT_MR, Verbs.M_SIZE },
            { Verbs.LAYOUT_EVENT, RdmaCm.E_SIZE },
            { Verbs.LAYOUT_ID_INFO, RdmaCm.I_SIZE },
            { Verbs.LAYOUT_MAX_CHAIN, Verbs.MAX_CHAIN },
        };
        for (final int[] layout : expected)
        {
            final int size = Verbs.layoutSize(layout[0]);
            if (size != layout[1])
            {
                return "layout " + layout[0] + " of " + size + " bytes (Java expects " + layout[1] + ")";
            }
        }
        return null;
    }
}
