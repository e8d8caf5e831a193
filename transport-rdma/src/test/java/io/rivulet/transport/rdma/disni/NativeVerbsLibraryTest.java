package io.rivulet.transport.rdma.disni;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NativeVerbsLibraryTest
{
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
