package io.rivulet.tck;

import io.rivulet.RivuletException;
import io.rivulet.codec.FrameReader;
import io.rivulet.spi.ConnectionExtension;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.NodeExtension;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A node extension whose node-level duty cycle throws the error it is armed with, once: how tests make a node's
 * engine fail (an {@code OutOfMemoryError} on the conductor) without exhausting anything. Claims no frame type.
 */
public final class FailingLayer implements NodeExtension
{
    private final AtomicReference<Throwable> armed = new AtomicReference<>();

    /** Any thread: the next node-level duty cycle throws this. */
    public void arm(final Throwable error)
    {
        armed.set(error);
    }

    @Override
    public int[] frameTypes()
    {
        return new int[0];
    }

    @Override
    public ConnectionExtension attach(final ConnectionServices connection)
    {
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
                // Holds nothing per connection.
            }
        };
    }

    @Override
    public int doWork(final long nowNs)
    {
        final Throwable error = armed.getAndSet(null);
        if (error instanceof Error fatal)
        {
            throw fatal;
        }
        if (error != null)
        {
            throw (RuntimeException)error;
        }
        return 0;
    }

    @Override
    public String toString()
    {
        return "FailingLayer";
    }
}
