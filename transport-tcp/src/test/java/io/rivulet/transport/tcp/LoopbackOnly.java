package io.rivulet.transport.tcp;

import com.code_intelligence.jazzer.api.BugDetectors;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Jazzer's server-side request forgery detector reports every socket connect while fuzzing; fuzz tests that talk to a
 * node over loopback on purpose allow exactly that, and any other destination still counts as a finding.
 */
final class LoopbackOnly
{
    private LoopbackOnly()
    {
    }

    /** Allows loopback connections for the rest of the JVM's life (the detector's setting is global). */
    static void allow()
    {
        BugDetectors.allowNetworkConnections((host, port) -> isLoopback(host));
    }

    private static boolean isLoopback(final String host)
    {
        try
        {
            return InetAddress.getByName(host).isLoopbackAddress();
        }
        catch (final UnknownHostException ex)
        {
            return false;
        }
    }
}
