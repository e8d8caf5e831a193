package io.rivulet.transport.rdma.disni;

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

class NativeVerbsLibraryTest
{
    @TempDir
    Path root;

    @Test
    void shouldLoadTheLibraryTheBuildCompiledOrSayItWasNotBuilt() throws IOException
    {
        final NativeVerbsLibrary.Status status = NativeVerbsLibrary.status();
        final boolean inClassPath;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(NativeVerbsLibrary.resourcePath()))
        {
            inClassPath = null != in;
        }
        if (NativeVerbsTestSupport.expected())
        {
            assertThat(inClassPath).as("the build put " + NativeVerbsLibrary.resourcePath() + " in the classes").isTrue();
            assertThat(status.loaded()).as(status.description()).isTrue();
            assertThat(status.description()).startsWith("librivulet-verbs loaded from ");
        }
        else if (!inClassPath && null == System.getProperty(NativeVerbsLibrary.LIBRARY_PROPERTY))
        {
            assertThat(status.loaded()).isFalse();
            assertThat(status.description()).startsWith(NativeVerbsLibrary.NOT_BUILT)
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
        NativeVerbsTestSupport.requireLibrary();
        assertThat(NativeVerbs.abiVersion()).isEqualTo(NativeVerbsLibrary.ABI_VERSION);
        assertThat(NativeVerbs.descriptorSize()).isEqualTo(NativeWorkRequest.SIZE).isEqualTo(136);
    }

    @Test
    void shouldSayTheLibraryWasNotBuiltWhenNoSourceHasIt()
    {
        final ClassLoader empty = new URLClassLoader(new URL[0], null);
        final NativeVerbsLibrary.Status status = NativeVerbsLibrary.load(null, root.toString(), empty);

        assertThat(status.loaded()).isFalse();
        assertThat(status.description()).isEqualTo(NativeVerbsLibrary.NOT_BUILT + "; no " +
            NativeVerbsLibrary.resourcePath() + " in the class path");
    }

    @Test
    void shouldReportAnExplicitFileThatIsNotALibrary() throws IOException
    {
        final Path bogus = Files.writeString(root.resolve("librivulet-verbs.so"), "not an ELF file");
        final NativeVerbsLibrary.Status status = NativeVerbsLibrary.load(" " + bogus + " ", "", getClass().getClassLoader());

        assertThat(status.loaded()).isFalse();
        assertThat(status.description())
            .startsWith("librivulet-verbs at " + bogus + " (from -D" + NativeVerbsLibrary.LIBRARY_PROPERTY + ") failed to load (")
            .endsWith("): install rdma-core's libibverbs1, or rebuild on this machine");
    }

    @Test
    void shouldPreferJavaLibraryPathToTheJarsCopy() throws IOException
    {
        final Path dir = Files.createDirectories(root.resolve("lib"));
        final Path bogus = Files.writeString(dir.resolve(System.mapLibraryName("rivulet-verbs")), "not an ELF file");
        final NativeVerbsLibrary.Status status = NativeVerbsLibrary.load(
            null, root.resolve("nothing") + File.pathSeparator + dir, getClass().getClassLoader());

        assertThat(status.loaded()).isFalse();
        assertThat(status.description()).startsWith("librivulet-verbs at " + bogus + " (from java.library.path) failed");
    }

    @Test
    void shouldNameThePlatformsResource()
    {
        assertThat(NativeVerbsLibrary.resourcePath())
            .startsWith("META-INF/native/")
            .endsWith("/" + System.mapLibraryName("rivulet-verbs"))
            .contains(System.getProperty("os.arch"));
    }

    @Test
    void shouldSayWhatNeedsTheExtensionWhenRequiredAndUnavailable()
    {
        final NativeVerbsLibrary.Status status = NativeVerbsLibrary.status();
        if (status.loaded())
        {
            // loaded: require passes silently, and must not throw for any feature
            assertThatCode(() -> NativeVerbsLibrary.require("a UD queue pair"))
                .doesNotThrowAnyException();
        }
        else
        {
            assertThatThrownBy(() -> NativeVerbsLibrary.require("a UD queue pair"))
                .hasMessageStartingWith("a UD queue pair needs Rivulet's JNI extension")
                .hasMessageContaining(status.description());
        }
    }
}
