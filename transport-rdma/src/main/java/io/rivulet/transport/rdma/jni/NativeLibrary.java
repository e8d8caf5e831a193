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
 * <p>The sources, tried in this order until one loads:
 * <ol>
 *     <li>the file named by {@code -Drivulet.rdma.verbs.library};</li>
 *     <li>{@code librivulet-verbs.so} in a {@code java.library.path} directory;</li>
 *     <li>the class path resource {@link #resourcePath()} ({@code META-INF/native/linux-x86_64/librivulet-verbs.so}),
 *     which the {@code io.rivulet:rivulet-transport-rdma-native} jar of classifier {@code linux-x86_64} holds
 *     (transport-rdma depends on it), extracted to a temporary file.</li>
 * </ol>
 * A source that has no file, or whose file does not load, is recorded (path and reason) and the next is tried;
 * when none loads, {@link #status()} names every attempt, and {@link #require} puts that in its exception. A file
 * that loads but speaks another ABI ends the search: the JVM has bound the native methods to it, so no other copy
 * can be used in this JVM.
 *
 * <p>The build compiles the library only where rdma-core's headers are installed; elsewhere its jar holds none.
 * Loading it needs rdma-core's user-space libraries ({@code libibverbs.so.1}, {@code librdmacm.so.1}: Debian's
 * libibverbs1 and librdmacm1), which every RDMA host has; a device is not needed to load it.
 *
 * <p>Thread-safe.
 */
public final class NativeLibrary
{
    /** The library's name for {@code System.loadLibrary}. */
    public static final String LIBRARY_NAME = "rivulet-verbs";
    /** Explicit path to the library, tried before the other sources. */
    public static final String LIBRARY_PROPERTY = "rivulet.rdma.verbs.library";
    /** How the status starts when no source had a library file at all. */
    public static final String NOT_BUILT = "librivulet-verbs not found (not built, or its jar " +
        "io.rivulet:rivulet-transport-rdma-native:linux-x86_64 is not on the class path: it holds the library when " +
        "built where rdma-core's headers were installed, libibverbs-dev and librdmacm-dev)";
    /** The ABI version this Java side speaks; the C side reports its own. */
    public static final int ABI_VERSION = 3;

    /**
     * Whether the library is usable.
     *
     * @param loaded      true when loaded and its ABI and layouts match.
     * @param description where it was loaded from, or what was tried and why it is not usable.
     */
    public record Status(boolean loaded, String description)
    {
    }

    /** Links a library file into the JVM and checks it: the seam the tests replace. */
    interface Linker
    {
        /**
         * @param file the library.
         * @throws UnsatisfiedLinkError when the file is no loadable library or its dependencies are missing.
         * @throws SecurityException    when loading is not allowed.
         */
        void load(Path file);

        /** @return null when the library just loaded is the one this Java side speaks to, else why not. */
        String mismatch();
    }

    private static final Linker SYSTEM = new Linker()
    {
        public void load(final Path file)
        {
            System.load(file.toString());
        }

        public String mismatch()
        {
            return abiMismatch();
        }
    };

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
                NativeLibrary.class.getClassLoader(),
                resourcePath(),
                SYSTEM);
        }
        return status;
    }

    /**
     * @param feature what needs the library, for the message.
     * @throws VerbsException saying why the library is not usable: every source tried, with its path and reason.
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

    /** @return this platform's name as the native jar's classifier spells it, e.g. {@code linux-x86_64}. */
    public static String platform()
    {
        return platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
    }

    /**
     * @param osName the {@code os.name} to name.
     * @param osArch the {@code os.arch} to name.
     * @return {@code <os>-<arch>} in the spelling of native jar classifiers: {@code amd64} is {@code x86_64} and
     * {@code aarch64} is {@code aarch_64}, so one name holds whatever the JVM calls the machine.
     */
    public static String platform(final String osName, final String osArch)
    {
        final String os = osName.toLowerCase(Locale.ROOT);
        final String arch = osArch.toLowerCase(Locale.ROOT);
        final String osPart = os.startsWith("linux") ? "linux" :
            os.startsWith("mac") || os.startsWith("darwin") ? "osx" :
            os.startsWith("windows") ? "windows" : os.replace(' ', '-');
        final String archPart = switch (arch)
        {
            case "amd64", "x86_64", "x86-64", "x64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch_64";
            default -> arch;
        };
        return osPart + "-" + archPart;
    }

    /**
     * @return the class path resource of this platform's library, e.g.
     * {@code META-INF/native/linux-x86_64/librivulet-verbs.so}.
     */
    public static String resourcePath()
    {
        return "META-INF/native/" + platform() + "/" + System.mapLibraryName(LIBRARY_NAME);
    }

    /**
     * Tries each source in turn (see the class comment). Loading the same file again is harmless
     * ({@code System.load} ignores a library its class loader already has).
     *
     * @param explicit    the value of {@value #LIBRARY_PROPERTY}, or null.
     * @param libraryPath {@code java.library.path}.
     * @param resources   where to look for the jar's copy.
     * @param resource    the jar's copy's name, {@link #resourcePath()}.
     * @param linker      loads and checks a file.
     * @return the outcome: where it was loaded from, or every source tried with its path and why it failed.
     */
    static Status load(
        final String explicit,
        final String libraryPath,
        final ClassLoader resources,
        final String resource,
        final Linker linker)
    {
        final List<String> tried = new ArrayList<>();
        // the sources that had a file which did not load: a later success still names them
        final List<String> failed = new ArrayList<>();

        final String property = "-D" + LIBRARY_PROPERTY;
        if (null == explicit || explicit.isBlank())
        {
            tried.add(property + ": not set");
        }
        else
        {
            final Attempt attempt = loadFile(explicit.strip(), property, linker);
            if (attempt.ends())
            {
                return attempt.status(failed);
            }
            tried.add(attempt.failure());
            failed.add(attempt.failure());
        }

        final Path onLibraryPath = findLibrary(libraryPath, LIBRARY_NAME);
        if (null == onLibraryPath)
        {
            tried.add("java.library.path [" + libraryPath + "]: no " + System.mapLibraryName(LIBRARY_NAME) +
                " in any of its directories");
        }
        else
        {
            final Attempt attempt = loadFile(onLibraryPath.toString(), "java.library.path", linker);
            if (attempt.ends())
            {
                return attempt.status(failed);
            }
            tried.add(attempt.failure());
            failed.add(attempt.failure());
        }

        final String fromClassPath = "class path resource " + resource;
        try (InputStream in = resources.getResourceAsStream(resource))
        {
            if (null == in)
            {
                tried.add(fromClassPath + ": absent");
            }
            else
            {
                final Path file = Files.createTempFile("librivulet-verbs-", ".so");
                file.toFile().deleteOnExit();
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                final Attempt attempt = loadFile(file.toString(), fromClassPath, linker);
                if (attempt.ends())
                {
                    return attempt.status(failed);
                }
                tried.add(attempt.failure());
                failed.add(attempt.failure());
            }
        }
        catch (final IOException | SecurityException ex)
        {
            final String failure = fromClassPath + ": cannot be extracted to a temporary file (" + text(ex) + ")";
            tried.add(failure);
            failed.add(failure);
        }

        final String attempts = "tried, in order: " + String.join("; ", tried);
        return new Status(false, failed.isEmpty() ? NOT_BUILT + "; " + attempts :
            "librivulet-verbs could not be loaded; " + attempts + ". Install rdma-core's user-space libraries " +
            "(Debian: apt-get install libibverbs1 librdmacm1, or rdma-core), or rebuild the library from this " +
            "version's sources");
    }

    /**
     * @param libraryPath the {@code java.library.path} to search; null searches nothing.
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

    /**
     * @param ex what went wrong.
     * @return an exception's message, stripped, or its class name when it has none.
     */
    public static String text(final Throwable ex)
    {
        final String message = ex.getMessage();
        return null == message ? ex.getClass().getName() : message.strip();
    }

    /**
     * One source's outcome: loaded and usable, loaded but speaking another ABI (both end the search), or not loaded
     * with a reason (the search goes on).
     */
    private record Attempt(String file, String source, boolean loaded, String problem)
    {
        boolean ends()
        {
            return loaded;
        }

        String failure()
        {
            return source + " (" + file + "): " + problem;
        }

        Status status(final List<String> failed)
        {
            final String before = failed.isEmpty() ? "" : "; before it: " + String.join("; ", failed);
            if (null != problem)
            {
                return new Status(false, "librivulet-verbs at " + file + " (from " + source + ") " + problem +
                    ": rebuild it from this version's sources" + before);
            }
            return new Status(true, "librivulet-verbs loaded from " + file + " (" + source + ")" + before);
        }
    }

    private static Attempt loadFile(final String name, final String source, final Linker linker)
    {
        final Path file;
        try
        {
            file = Path.of(name).toAbsolutePath();
        }
        catch (final InvalidPathException ex)
        {
            return new Attempt(name, source, false, "not a path (" + text(ex) + ")");
        }
        final String where = file.toString();
        if (!Files.isRegularFile(file))
        {
            return new Attempt(where, source, false, Files.exists(file) ? "not a regular file" : "no such file");
        }
        try
        {
            linker.load(file);
        }
        catch (final UnsatisfiedLinkError ex)
        {
            return new Attempt(where, source, false, "failed to load (" + text(ex) + ")");
        }
        catch (final SecurityException ex)
        {
            return new Attempt(where, source, false, "may not be loaded (" + text(ex) + ")");
        }
        // Loaded: the JVM has bound the natives to this file, so even a mismatch ends the search.
        return new Attempt(where, source, true, linker.mismatch());
    }

    /** @return null when the loaded library's ABI and layouts are this Java side's, else what differs. */
    private static String abiMismatch()
    {
        final int abi;
        try
        {
            abi = Verbs.abiVersion();
        }
        catch (final UnsatisfiedLinkError ex)
        {
            return "is not this version's JNI binding (" + text(ex) + ")";
        }
        final String layouts = abi == ABI_VERSION ? layoutMismatch() : null;
        if (abi != ABI_VERSION || null != layouts)
        {
            return "speaks ABI " + abi + (null == layouts ? "" : " with " + layouts) + "; this Rivulet needs ABI " +
                ABI_VERSION;
        }
        return null;
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
            { Verbs.LAYOUT_UD, UdAttributes.SIZE },
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
