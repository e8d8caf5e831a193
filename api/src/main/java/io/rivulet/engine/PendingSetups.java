package io.rivulet.engine;

import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.SocketAddresses;
import org.agrona.collections.Object2IntHashMap;
import org.agrona.concurrent.status.AtomicCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.function.BooleanSupplier;

/**
 * The per-address bound on accepted connections that have not completed SETUP ({@code
 * rivulet.maxPendingSetupsPerAddress}). Before SETUP a connection is anyone's, and each one holds a slot of
 * {@code maxConnections} until its set-up timeout: without this bound one address opening thousands of idle sockets
 * would fill them all and lock every other client out. With it, a link accepted from an address (its host, never the
 * port) that holds the bound already is closed at once, before any connection state, ring or counter is made for
 * it; the refusal is counted in {@code limit rejections} and logged through the node's {@link RateLimitedLog}, so a
 * flood logs a few lines a second. Links from other addresses are still accepted.
 *
 * <p>A connection holds its address's slot until it completes SETUP or begins to close ({@link #hold}'s condition
 * turns false): {@link #release()} frees the slots of those once per duty cycle, before the next links are accepted.
 *
 * <p>Conductor thread only.
 */
final class PendingSetups
{
    /** Under the conductor's name: where the node's other connection refusals are logged. */
    private static final Logger LOG = LoggerFactory.getLogger(Conductor.class);
    private static final Object LOG_KEY = "connection refused: too many waiting for SETUP from one address";

    private final int maxPerAddress;
    private final AtomicCounter refusals;
    private final RateLimitedLog log;
    private final Object2IntHashMap<String> perAddress = new Object2IntHashMap<>(0);
    /** The connections holding a slot, and their addresses, at the same index. */
    private final ArrayList<BooleanSupplier> holders = new ArrayList<>();
    private final ArrayList<String> holderAddresses = new ArrayList<>();

    /**
     * @param maxPerAddress connections from one address that may wait for SETUP at once; at least 1.
     * @param refusals      counts each link closed for the bound (the node's {@code limit rejections}).
     * @param log           limits the lines about refusals.
     */
    PendingSetups(final int maxPerAddress, final AtomicCounter refusals, final RateLimitedLog log)
    {
        if (maxPerAddress < 1)
        {
            throw new IllegalArgumentException("maxPerAddress must be positive: " + maxPerAddress);
        }
        this.maxPerAddress = maxPerAddress;
        this.refusals = refusals;
        this.log = log;
    }

    /**
     * A link just accepted: admitted when its address has room, else closed, counted and logged.
     *
     * @param link the accepted link.
     * @return the address to {@link #hold} its connection's slot under, or null when the link was closed.
     */
    String admit(final ReliableLink link)
    {
        final String remoteAddress = link.remoteAddress();
        final String address = SocketAddresses.host(remoteAddress);
        final int waiting = perAddress.getValue(address);
        if (waiting < maxPerAddress)
        {
            return address;
        }
        refusals.increment();
        link.close();
        log.log(LOG_KEY, LOG::info, () -> "connection from " + remoteAddress + " closed at once: " + address +
            " has " + waiting + " connections waiting for SETUP already (rivulet.maxPendingSetupsPerAddress " +
            maxPerAddress + ")");
        return null;
    }

    /**
     * Takes a slot of the address for a connection just made from an admitted link.
     *
     * @param address       as {@link #admit} returned it.
     * @param awaitingSetup true while the connection still waits for SETUP and is not closing.
     */
    void hold(final String address, final BooleanSupplier awaitingSetup)
    {
        perAddress.put(address, perAddress.getValue(address) + 1);
        holders.add(awaitingSetup);
        holderAddresses.add(address);
    }

    /** @return the slots freed: those of connections that completed SETUP or began to close. */
    int release()
    {
        int freed = 0;
        for (int i = holders.size() - 1; i >= 0; i--)
        {
            if (!holders.get(i).getAsBoolean())
            {
                final String address = holderAddresses.get(i);
                final int last = holders.size() - 1;
                // Order does not matter: the last entry moves into the freed one.
                holders.set(i, holders.get(last));
                holderAddresses.set(i, holderAddresses.get(last));
                holders.remove(last);
                holderAddresses.remove(last);
                final int waiting = perAddress.getValue(address) - 1;
                if (waiting > 0)
                {
                    perAddress.put(address, waiting);
                }
                else
                {
                    perAddress.removeKey(address); // an address with nothing waiting is forgotten
                }
                freed++;
            }
        }
        return freed;
    }

    /** @return connections from this address waiting for SETUP (tests, diagnostics). */
    int waiting(final String address)
    {
        return perAddress.getValue(address);
    }
}
