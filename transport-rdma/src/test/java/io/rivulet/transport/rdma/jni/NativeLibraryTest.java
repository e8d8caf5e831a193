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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NativeLibraryTest
{
    @TempDir
    Path root;

    @Test
    void shouldLoadTheLibraryTheBuildCompiledOrSayItWasNotBuilt() throws IOException
    {
        final NativeLibrary.Status status = NativeLibrary.status();
        final boolean inClassPath;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(NativeLibrary.resourcePath()))
        {
            inClassPath = null != in;
        }
        if (NativeLibraryTestSupport.expected())
        {
            assertThat(inClassPath).as("the build put " + NativeLibrary.resourcePath() + " in the classes").isTrue();
            assertThat(status.loaded()).as(status.description()).isTrue();
            assertThat(status.description()).startsWith("librivulet-verbs loaded from ");
        }
        else if (!inClassPath && null == System.getProperty(NativeLibrary.LIBRARY_PROPERTY))
        {
            assertThat(status.loaded()).isFalse();
            assertThat(status.description()).startsWith(NativeLibrary.NOT_BUILT)
                .contains("rdma-core headers were missing at build time");
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
    void shouldSayTheLibraryWasNotBuiltWhenNoSourceHasIt()
    {
        final ClassLoader empty = new URLClassLoader(new URL[0], null);
        final NativeLibrary.Status status = NativeLibrary.load(null, root.toString(), empty);

        assertThat(status.loaded()).isFalse();
        assertThat(status.description()).isEqualTo(NativeLibrary.NOT_BUILT + " (tried: no " +
            System.mapLibraryName("rivulet-verbs") + " on java.library.path; no " + NativeLibrary.resourcePath() +
            " in the class path)");
    }

    @Test
    void shouldReportAnExplicitFileThatIsNotALibrary() throws IOException
    {
        final Path bogus = Files.writeString(root.resolve("librivulet-verbs.so"), "not an ELF file");
        final NativeLibrary.Status status = NativeLibrary.load(" " + bogus + " ", "", getClass().getClassLoader());

        assertThat(status.loaded()).isFalse();
        assertThat(status.description())
            .startsWith("librivulet-verbs at " + bogus + " (from -D" + NativeLibrary.LIBRARY_PROPERTY + ") failed to load (")
            .endsWith("): install rdma-core's user-space libraries (Debian: apt-get install libibverbs1 librdmacm1, " +
                "or rdma-core), or rebuild on this machine");
    }

    @Test
    void shouldPreferJavaLibraryPathToTheJarsCopy() throws IOException
    {
        final Path dir = Files.createDirectories(root.resolve("lib"));
        final Path bogus = Files.writeString(dir.resolve(System.mapLibraryName("rivulet-verbs")), "not an ELF file");
        final NativeLibrary.Status status = NativeLibrary.load(
            null, root.resolve("nothing") + File.pathSeparator + dir, getClass().getClassLoader());

        assertThat(status.loaded()).isFalse();
        assertThat(status.description()).startsWith("librivulet-verbs at " + bogus + " (from java.library.path) failed");
    }

    @Test
    void shouldNameThePlatformsResource()
    {
        assertThat(NativeLibrary.resourcePath())
            .startsWith("META-INF/native/")
            .endsWith("/" + System.mapLibraryName("rivulet-verbs"))
            .contains(System.getProperty("os.arch"));
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
}
