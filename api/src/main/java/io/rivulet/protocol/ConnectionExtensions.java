package io.rivulet.protocol;

import io.rivulet.ConnectionLostException;
import io.rivulet.RivuletException;
import io.rivulet.counters.ConnectionCounters;
import io.rivulet.spi.ConnectionExtension;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.NodeExtension;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.Violation;
import org.agrona.DirectBuffer;

import java.util.List;
import java.util.function.Consumer;

/**
 * One connection's extensions (topics, regions, datagram channels, …) and what the connection offers them: each
 * node extension attaches once when the connection opens, in the node's order, and claims its frame types.
 * Dispatch is by frame type through a table; the duty cycle and the close reach every extension in order.
 *
 * <p>Conductor thread, except {@link #offer}, {@link #offerRun} and {@link #isSending()}, which the sender's thread
 * calls.
 */
final class ConnectionExtensions implements ConnectionServices
{
    private final ReliableLink link;
    private final Outbound outbound;
    private final ControlFrames control;
    private final ConnectionClose close;
    private final ConnectionCounters counters;
    private final ProtocolSettings settings;
    private final Consumer<Throwable> errorHandler;
    private final ConnectionExtension[] extensions;
    private final ConnectionExtension[] byFrameType;
    /**
     * The connection's logger of sent frames, for those extensions offer straight to the link (topic data); the
     * sender logs the ring's with it too, on the same thread. Null when off.
     */
    private final FrameLogger sentFrames;

    ConnectionExtensions(
        final List<NodeExtension> nodeExtensions,
        final ReliableLink link,
        final Outbound outbound,
        final ControlFrames control,
        final ConnectionClose close,
        final ConnectionCounters counters,
        final ProtocolSettings settings,
        final Consumer<Throwable> errorHandler,
        final FrameLogger sentFrames)
    {
        this.link = link;
        this.outbound = outbound;
        this.control = control;
        this.close = close;
        this.counters = counters;
        this.settings = settings;
        this.errorHandler = errorHandler;
        this.sentFrames = sentFrames;
        this.extensions = new ConnectionExtension[nodeExtensions.size()];
        this.byFrameType = new ConnectionExtension[ExtensionFrameTypes.TABLE_LENGTH];
        final boolean[] claimed = new boolean[ExtensionFrameTypes.TABLE_LENGTH];
        for (int i = 0; i < extensions.length; i++)
        {
            final NodeExtension node = nodeExtensions.get(i);
            // Attach in order: a later extension may look up an earlier one (datagrams find topics).
            extensions[i] = node.attach(this);
            for (final int type : ExtensionFrameTypes.claim(node, claimed))
            {
                byFrameType[type] = extensions[i];
            }
        }
    }

    /** @return the extension that claimed the frame type, or null. */
    ConnectionExtension forFrameType(final int type)
    {
        return type >= 0 && type < byFrameType.length ? byFrameType[type] : null;
    }

    void onSetupComplete()
    {
        for (final ConnectionExtension extension : extensions)
        {
            extension.onSetupComplete();
        }
    }

    int doWork(final long nowNs)
    {
        int work = 0;
        for (int i = 0; i < extensions.length && !close.isClosing(); i++)
        {
            work += extensions[i].doWork(nowNs);
        }
        return work;
    }

    /** @return whether a layer holds state the peer uses without frames (see {@link ConnectionExtension}). */
    boolean keepsConnection()
    {
        for (int i = 0; i < extensions.length; i++)
        {
            if (extensions[i].keepsConnection())
            {
                return true;
            }
        }
        return false;
    }

    void onClose(final RivuletException cause)
    {
        for (final ConnectionExtension extension : extensions)
        {
            extension.onClose(cause);
        }
    }

    // ------------------------------------------------------------------------------ ConnectionServices

    @Override
    public boolean sendControl(final DirectBuffer buffer, final int offset, final int length)
    {
        return control.copy(buffer, offset, length);
    }

    @Override
    public boolean offer(final DirectBuffer buffer, final int offset, final int length)
    {
        if (!link.offer(buffer, offset, length))
        {
            return false;
        }
        outbound.scheduleFlush();
        if (sentFrames != null)
        {
            sentFrames.log(buffer, offset, length);
        }
        return true;
    }

    @Override
    public int offerRun(final DirectBuffer buffer, final int offset, final int length)
    {
        if (sentFrames != null)
        {
            return ConnectionServices.super.offerRun(buffer, offset, length); // frame by frame, each logged
        }
        final int taken = link.offerRun(buffer, offset, length);
        if (taken > 0)
        {
            outbound.scheduleFlush();
        }
        return taken;
    }

    @Override
    public boolean isSending()
    {
        return close.sendMode() == SendMode.ACTIVE;
    }

    @Override
    public int maxFrameLength()
    {
        return outbound.maxFrameLength();
    }

    @Override
    public String remoteAddress()
    {
        return link.remoteAddress();
    }

    @Override
    public long connectionId()
    {
        return counters.connectionId();
    }

    @Override
    public long keepaliveTimeoutNs()
    {
        return settings.keepaliveTimeoutNs();
    }

    @Override
    public void countFrameReceived(final int length)
    {
        counters.onFrameReceived(length);
    }

    @Override
    public ReliableLink link()
    {
        return link;
    }

    @Override
    public boolean isClosing()
    {
        return close.isClosing();
    }

    @Override
    public void violation(final Violation reason, final String detail)
    {
        if (!close.isClosing())
        {
            close.protocolViolation(reason, detail, errorHandler);
        }
    }

    @Override
    public void lost(final String reason)
    {
        if (!close.isClosing())
        {
            close.lose(new ConnectionLostException("connection to " + link.remoteAddress() + " lost: " + reason));
        }
    }

    @Override
    public <T> T extension(final Class<T> type)
    {
        for (final ConnectionExtension extension : extensions)
        {
            if (type.isInstance(extension))
            {
                return type.cast(extension);
            }
        }
        return null;
    }
}
