package io.rivulet.transport.rdma.jni;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Whether tests may call librivulet-verbs. When the Maven build compiled it (the {@code rdma-core-headers}
 * profile sets {@value #EXPECTED_PROPERTY}), a library that does not load is a failure, never a skip.
 */
public final class NativeLibraryTestSupport
{
    public static final String EXPECTED_PROPERTY = "rivulet.rdma.verbs.expected";

    private NativeLibraryTestSupport()
    {
    }

    public static boolean expected()
    {
        return Boolean.getBoolean(EXPECTED_PROPERTY);
    }

    /** Fails when the library was built but does not load; skips, with the reason, when it was not built. */
    public static void requireLibrary()
    {
        final NativeLibrary.Status status = NativeLibrary.status();
        if (expected() && !status.loaded())
        {
            fail("librivulet-verbs was built (" + EXPECTED_PROPERTY + "=true) but is unusable: " + status.description());
        }
        assumeTrue(status.loaded(), () -> "librivulet-verbs unavailable: " + status.description());
    }
}
