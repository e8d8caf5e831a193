package io.rivulet.engine;

import io.rivulet.RivuletException;
import io.rivulet.codec.FrameReader;
import io.rivulet.spi.ConnectionExtension;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.NodeExtension;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The conductor's own connection layer, claiming no frame: it keeps each live connection's services so that, when
 * the engine fails, the conductor can end every connection at once as lost, with a reason naming the failure, on
 * the failure path itself ({@link ConnectionServices#lost}: the connection's streams and extensions end now, not in a
 * duty cycle that will not come).
 *
 * <p>Conductor thread only.
 */
final class FailStopLayer implements NodeExtension
{
    private static final int[] NO_FRAME_TYPES = new int[0];

    private final Long2ObjectHashMap<ConnectionServices> live = new Long2ObjectHashMap<>();

    @Override
    public int[] frameTypes()
    {
        return NO_FRAME_TYPES;
    }

    @Override
    public ConnectionExtension attach(final ConnectionServices connection)
    {
        final long connectionId = connection.connectionId();
        live.put(connectionId, connection);
        return new ConnectionExtension()
        {
            @Override
            public void onFrame(final FrameReader frame, final long nowNs)
            {
                // Claims no frame type: never called.
            }

            @Override
            public int doWork(final long nowNs)
            {
                return 0;
            }

            @Override
            public void onClose(final RivuletException cause)
            {
                live.remove(connectionId);
            }
        };
    }

    /**
     * Ends a connection as lost now: its pending requests and streams fail with a {@code ConnectionLostException}
     * carrying the reason.
     *
     * @return true when the connection was live here.
     */
    boolean lose(final long connectionId, final String reason)
    {
        final ConnectionServices connection = live.get(connectionId);
        if (connection == null)
        {
            return false;
        }
        connection.lost(reason);
        return true;
    }

    @Override
    public String toString()
    {
        return "FailStopLayer";
    }
}
