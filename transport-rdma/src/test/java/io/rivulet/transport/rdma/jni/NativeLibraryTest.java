package io.rivulet.transport.rdma.jni;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NativeLibraryTest
{
    private static final String RESOURCE = "META-INF/native/linux-x86_64/librivulet-verbs.so";
    private static final String FILE_NAME = System.mapLibraryName("rivulet-verbs");

    @TempDir
    Path root;

    /** Records what it was asked to load; fails for the files it was told to, and may report an ABI mismatch. */
    private static class FakeLinker implements NativeLibrary.Linker
    {
        final List<Path> loaded = new ArrayList<>();
        final List<Path> refuse = new ArrayList<>();
        String mismatch;

        public void load(final Path file)
        {
            loaded.add(file);
            if (refuse.contains(file))
            {
                throw new UnsatisfiedLinkError(file + ": libibverbs.so.1: cannot open shared object file");
            }
        }

        public String mismatch()
        {
            return mismatch;
        }
    }

    @Test
    void shouldLoadTheLibraryTheBuildCompiledOrSayItWasNotFound() throws IOException
    {
        final NativeLibrary.Status status = NativeLibrary.status();
        final boolean inClassPath;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(NativeLibrary.resourcePath()))
        {
            inClassPath = null != in;
        }
        if (NativeLibraryTestSupport.expected())
        {
            assertThat(inClassPath).as("the native jar put " + NativeLibrary.resourcePath() + " on the class path")
                .isTrue();
            assertThat(status.loaded()).as(status.description()).isTrue();
            assertThat(status.description()).startsWith("librivulet-verbs loaded from ");
        }
        else if (!inClassPath && null == System.getProperty(NativeLibrary.LIBRARY_PROPERTY))
        {
            assertThat(status.loaded()).isFalse();
            assertThat(status.description()).startsWith(NativeLibrary.NOT_BUILT)
                .contains("class path resource " + NativeLibrary.resourcePath() + ": absent");
        }
        else
        {
            assertThat(status.description()).isNotBlank();
        }
    }

    @Test
    void shouldAgreeWithTheLibraryOnAbiAndDescriptorLayout()
    {
        NativeLibraryTestSupport.requireLibrary();
        assertThat(Verbs.abiVersion()).isEqualTo(NativeLibrary.ABI_VERSION);
        assertThat(Verbs.layoutSize(Verbs.LAYOUT_SEND)).isEqualTo(SendChain.SIZE).isEqualTo(136);
        assertThat(Verbs.layoutSize(Verbs.LAYOUT_RECEIVE)).isEqualTo(ReceiveChain.SIZE).isEqualTo(24);
        assertThat(Verbs.layoutSize(Verbs.LAYOUT_COMPLETION)).isEqualTo(CompletionBatch.SIZE).isEqualTo(48);
        assertThat(Verbs.layoutSize(Verbs.LAYOUT_EVENT)).isEqualTo(RdmaCm.E_SIZE);
        assertThat(Verbs.layoutSize(Verbs.LAYOUT_ID_INFO)).isEqualTo(RdmaCm.I_SIZE);
        assertThat(Verbs.layoutSize(Verbs.LAYOUT_MAX_CHAIN)).isEqualTo(Verbs.MAX_CHAIN);
        assertThat(Verbs.layoutSize(99)).isEqualTo(-Verbs.EINVAL);
    }

    @Test
    void shouldNameEverySourceTriedWhenNoneHasTheLibrary()
    {
        final FakeLinker linker = new FakeLinker();
        final NativeLibrary.Status status = NativeLibrary.load(null, root.toString(), empty(), RESOURCE, linker);

        assertThat(status.loaded()).isFalse();
        assertThat(status.description()).isEqualTo(NativeLibrary.NOT_BUILT + "; tried, in order: " +
            "-Drivulet.rdma.verbs.library: not set; " +
            "java.library.path [" + root + "]: no " + FILE_NAME + " in any of its directories; " +
            "class path resource " + RESOURCE + ": absent");
        assertThat(linker.loaded).isEmpty();
    }

    @Test
    void shouldTryEverySourceInOrderAndSayWhyEachFailed() throws IOException
    {
        final Path missing = root.resolve("nowhere/librivulet-verbs.so");
        final Path dir = Files.createDirectories(root.resolve("lib"));
        final Path onLibraryPath = Files.writeString(dir.resolve(FILE_NAME), "not an ELF file");
        final Path jar = jarWithLibrary("jar");
        final FakeLinker linker = new FakeLinker()
        {
            public void load(final Path file)
            {
                loaded.add(file);
                throw new UnsatisfiedLinkError(file + ": invalid ELF header");
            }
        };

        final NativeLibrary.Status status = NativeLibrary.load(
            missing.toString(), root.resolve("empty") + File.pathSeparator + dir, loader(jar), RESOURCE, linker);

        assertThat(status.loaded()).isFalse();
        assertThat(linker.loaded).hasSize(2);
        assertThat(linker.loaded.get(0)).isEqualTo(onLibraryPath);
        final Path extracted = linker.loaded.get(1);
        assertThat(extracted.getFileName().toString()).startsWith("librivulet-verbs-").endsWith(".so");
        assertThat(Files.readString(extracted)).isEqualTo("the jar's copy");
        assertThat(status.description()).isEqualTo("librivulet-verbs could not be loaded; tried, in order: " +
            "-Drivulet.rdma.verbs.library (" + missing + "): no such file; " +
            "java.library.path (" + onLibraryPath + "): failed to load (" + onLibraryPath + ": invalid ELF header); " +
            "class path resource " + RESOURCE + " (" + extracted + "): failed to load (" + extracted +
            ": invalid ELF header). Install rdma-core's user-space libraries (Debian: apt-get install libibverbs1 " +
            "librdmacm1, or rdma-core), or rebuild the library from this version's sources");
    }

    @Test
    void shouldGoOnToTheNextSourceAndNameTheOnesThatFailed() throws IOException
    {
        final Path explicit = Files.writeString(root.resolve("explicit.so"), "x");
        final Path jar = jarWithLibrary("jar");
        final FakeLinker linker = new FakeLinker();
        linker.refuse.add(explicit);

        final NativeLibrary.Status status = NativeLibrary.load(explicit.toString(), "", loader(jar), RESOURCE, linker);

        assertThat(status.loaded()).isTrue();
        assertThat(linker.loaded).hasSize(2).startsWith(explicit);
        assertThat(status.description()).isEqualTo("librivulet-verbs loaded from " + linker.loaded.get(1) +
            " (class path resource " + RESOURCE + "); before it: -Drivulet.rdma.verbs.library (" + explicit +
            "): failed to load (" + explicit + ": libibverbs.so.1: cannot open shared object file)");
    }

    @Test
    void shouldPreferTheExplicitFileThenJavaLibraryPathToTheJarsCopy() throws IOException
    {
        final Path explicit = Files.writeString(root.resolve("explicit.so"), "x");
        final Path dir = Files.createDirectories(root.resolve("lib"));
        final Path onLibraryPath = Files.writeString(dir.resolve(FILE_NAME), "x");
        final Path jar = jarWithLibrary("jar");

        final FakeLinker first = new FakeLinker();
        assertThat(NativeLibrary.load(" " + explicit + " ", dir.toString(), loader(jar), RESOURCE, first).description())
            .isEqualTo("librivulet-verbs loaded from " + explicit + " (-Drivulet.rdma.verbs.library)");
        assertThat(first.loaded).containsExactly(explicit);

        final FakeLinker second = new FakeLinker();
        assertThat(NativeLibrary.load("", dir.toString(), loader(jar), RESOURCE, second).description())
            .isEqualTo("librivulet-verbs loaded from " + onLibraryPath + " (java.library.path)");
        assertThat(second.loaded).containsExactly(onLibraryPath);
    }

    @Test
    void shouldStopAtALibraryOfAnotherAbiBecauseTheNativesAreBoundToIt() throws IOException
    {
        final Path dir = Files.createDirectories(root.resolve("lib"));
        final Path old = Files.writeString(dir.resolve(FILE_NAME), "x");
        final FakeLinker linker = new FakeLinker();
        linker.mismatch = "speaks ABI 1; this Rivulet needs ABI 2";

        final NativeLibrary.Status status = NativeLibrary.load(
            null, dir.toString(), loader(jarWithLibrary("jar")), RESOURCE, linker);

        assertThat(status.loaded()).isFalse();
        assertThat(linker.loaded).containsExactly(old);
        assertThat(status.description()).isEqualTo("librivulet-verbs at " + old + " (from java.library.path) " +
            "speaks ABI 1; this Rivulet needs ABI 2: rebuild it from this version's sources");
    }

    @Test
    void shouldReportAnExplicitFileThatIsNotALibraryThroughTheRealLoader() throws IOException
    {
        final Path bogus = Files.writeString(root.resolve("librivulet-verbs.so"), "not an ELF file");
        final NativeLibrary.Status status = NativeLibrary.load(
            bogus.toString(), "", empty(), RESOURCE, realLinker());

        assertThat(status.loaded()).isFalse();
        assertThat(status.description())
            .startsWith("librivulet-verbs could not be loaded; tried, in order: -Drivulet.rdma.verbs.library (" +
                bogus + "): failed to load (")
            .contains("; java.library.path []: no " + FILE_NAME + " in any of its directories; class path resource " +
                RESOURCE + ": absent. Install rdma-core's user-space libraries");
    }

    @Test
    void shouldNameThePlatformAsNativeJarClassifiersDo()
    {
        assertThat(NativeLibrary.platform("Linux", "amd64")).isEqualTo("linux-x86_64");
        assertThat(NativeLibrary.platform("Linux", "x86_64")).isEqualTo("linux-x86_64");
        assertThat(NativeLibrary.platform("Linux", "aarch64")).isEqualTo("linux-aarch_64");
        assertThat(NativeLibrary.platform("Mac OS X", "aarch64")).isEqualTo("osx-aarch_64");
        assertThat(NativeLibrary.platform("Windows 11", "amd64")).isEqualTo("windows-x86_64");
        assertThat(NativeLibrary.platform("FreeBSD", "riscv64")).isEqualTo("freebsd-riscv64");
        assertThat(NativeLibrary.resourcePath())
            .isEqualTo("META-INF/native/" + NativeLibrary.platform() + "/" + FILE_NAME);
    }

    @Test
    void shouldSayWhatNeedsTheExtensionWhenRequiredAndUnavailable()
    {
        final NativeLibrary.Status status = NativeLibrary.status();
        if (status.loaded())
        {
            // loaded: require passes silently, and must not throw for any feature
            assertThatCode(() -> NativeLibrary.require("a UD queue pair"))
                .doesNotThrowAnyException();
        }
        else
        {
            assertThatThrownBy(() -> NativeLibrary.require("a UD queue pair"))
                .hasMessageStartingWith("a UD queue pair needs librivulet-verbs, Rivulet's JNI binding to rdma-core")
                .hasMessageContaining(status.description());
        }
    }

    /** @return a class path directory holding a library resource, as the native jar does. */
    private Path jarWithLibrary(final String name) throws IOException
    {
        final Path dir = root.resolve(name);
        final Path library = dir.resolve(RESOURCE);
        Files.createDirectories(library.getParent());
        Files.writeString(library, "the jar's copy");
        return dir;
    }

    private static ClassLoader loader(final Path classPathEntry) throws IOException
    {
        return new URLClassLoader(new URL[] {classPathEntry.toUri().toURL()}, null);
    }

    private static ClassLoader empty()
    {
        return new URLClassLoader(new URL[0], null);
    }

    /** System.load itself, and no ABI check: these files never load. */
    private static NativeLibrary.Linker realLinker()
    {
        return new NativeLibrary.Linker()
        {
            public void load(final Path file)
            {
                System.load(file.toString());
            }

            public String mismatch()
            {
                throw new AssertionError("a file that is no library loaded");
            }
        };
    }
}
