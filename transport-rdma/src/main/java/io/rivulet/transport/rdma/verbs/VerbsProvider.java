package io.rivulet.transport.rdma.verbs;

import java.io.IOException;
import java.net.InetAddress;

/**
 * A source of RDMA verbs: {@code ibverbs} (hardware through rdma-core and Rivulet's JNI library),
 * {@code disni} (hardware through DiSNI) or {@code soft} (user space).
 * Implementations are stateless factories; {@link #open(InetAddress)} gives the device context.
 */
public interface VerbsProvider
{
    /** @return "ibverbs", "disni", "soft", ... */
    String name();

    /**
     * @return whether the provider can be used here, and if not, what is missing and how to fix it.
     */
    Availability availability();

    /**
     * Opens the device that serves a local address (as RDMA CM resolves it).
     *
     * @param localAddress an address of this host on the RDMA fabric; loopback for {@code soft}.
     * @return the device context.
     * @throws IOException naming what failed (no device, no library...).
     */
    VerbsContext open(InetAddress localAddress) throws IOException;

    /**
     * Whether a provider can be used.
     *
     * @param available true when usable.
     * @param reason    why not (what is missing and how to fix it), or a short description when available.
     */
    record Availability(boolean available, String reason)
    {
        public static Availability yes(final String description)
        {
            return new Availability(true, description);
        }

        public static Availability no(final String reason)
        {
            return new Availability(false, reason);
        }
    }
}
