package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.ConfigurationException;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Settings of the {@code ibverbs} provider, with defaults from system properties:
 * <ul>
 *     <li>{@value #CONNECT_TIMEOUT_PROP} (ms, default {@value #DEFAULT_CONNECT_TIMEOUT_MS}): the whole RC set-up,
 *     address resolution to ESTABLISHED, on either side;</li>
 *     <li>{@value #CM_POLL_INTERVAL_PROP} (µs, default {@value #DEFAULT_CM_POLL_INTERVAL_US}): how often the
 *     connection manager's event channel is read (each read is a system call), however often the engine polls;</li>
 *     <li>{@value #GID_INDEX_PROP} (default -1, meaning: find it): the source GID index of UD address handles
 *     (see {@code jni.UdPort});</li>
 *     <li>{@value #TRAFFIC_CLASS_PROP} (0-255, default 0): the traffic class (DSCP and ECN bits on RoCE v2) of UD
 *     address handles, for fabrics that put RDMA in a lossless class by DSCP.</li>
 * </ul>
 * Fluent, mutable until handed to the provider, which calls {@link #conclude()}.
 */
public final class IbverbsSettings
{
    public static final String CONNECT_TIMEOUT_PROP = "rivulet.rdma.ibverbs.connectTimeoutMs";
    public static final String CM_POLL_INTERVAL_PROP = "rivulet.rdma.ibverbs.cmPollIntervalUs";
    public static final String GID_INDEX_PROP = "rivulet.rdma.ibverbs.gidIndex";
    public static final String TRAFFIC_CLASS_PROP = "rivulet.rdma.ibverbs.trafficClass";
    public static final long DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
    public static final long DEFAULT_CM_POLL_INTERVAL_US = 1_000;

    private long connectTimeoutNs;
    private long cmPollIntervalNs;
    private int gidIndex;
    private int trafficClass;
    private LongSupplier nanoClock = System::nanoTime;

    /** Defaults from the system properties. */
    public IbverbsSettings()
    {
        connectTimeoutNs = TimeUnit.MILLISECONDS.toNanos(longProperty(CONNECT_TIMEOUT_PROP, DEFAULT_CONNECT_TIMEOUT_MS));
        cmPollIntervalNs = TimeUnit.MICROSECONDS.toNanos(longProperty(CM_POLL_INTERVAL_PROP, DEFAULT_CM_POLL_INTERVAL_US));
        gidIndex = intProperty(GID_INDEX_PROP, -1);
        trafficClass = intProperty(TRAFFIC_CLASS_PROP, 0);
    }

    public long connectTimeoutNs()
    {
        return connectTimeoutNs;
    }

    public IbverbsSettings connectTimeoutNs(final long connectTimeoutNs)
    {
        this.connectTimeoutNs = connectTimeoutNs;
        return this;
    }

    public long cmPollIntervalNs()
    {
        return cmPollIntervalNs;
    }

    public IbverbsSettings cmPollIntervalNs(final long cmPollIntervalNs)
    {
        this.cmPollIntervalNs = cmPollIntervalNs;
        return this;
    }

    public int gidIndex()
    {
        return gidIndex;
    }

    /** @param gidIndex the source GID index of UD address handles, or -1 to find the one of the context's address. */
    public IbverbsSettings gidIndex(final int gidIndex)
    {
        this.gidIndex = gidIndex;
        return this;
    }

    public int trafficClass()
    {
        return trafficClass;
    }

    public IbverbsSettings trafficClass(final int trafficClass)
    {
        this.trafficClass = trafficClass;
        return this;
    }

    public LongSupplier nanoClock()
    {
        return nanoClock;
    }

    /** The clock of connection deadlines and CM poll pacing; {@code System::nanoTime} unless a test injects one. */
    public IbverbsSettings nanoClock(final LongSupplier nanoClock)
    {
        this.nanoClock = nanoClock;
        return this;
    }

    /**
     * @return this, validated.
     * @throws ConfigurationException naming the bad setting and what a good value looks like.
     */
    public IbverbsSettings conclude()
    {
        if (connectTimeoutNs <= 0)
        {
            throw new ConfigurationException(CONNECT_TIMEOUT_PROP + " must be a positive number of milliseconds: " +
                TimeUnit.NANOSECONDS.toMillis(connectTimeoutNs));
        }
        if (cmPollIntervalNs < 0)
        {
            throw new ConfigurationException(CM_POLL_INTERVAL_PROP + " must be 0 or more microseconds: " +
                TimeUnit.NANOSECONDS.toMicros(cmPollIntervalNs));
        }
        if (gidIndex < -1 || gidIndex > 255)
        {
            throw new ConfigurationException(GID_INDEX_PROP + " must be -1 (find it) or 0-255: " + gidIndex);
        }
        if (trafficClass < 0 || trafficClass > 255)
        {
            throw new ConfigurationException(TRAFFIC_CLASS_PROP + " must be 0-255 (DSCP << 2 | ECN): " + trafficClass);
        }
        if (null == nanoClock)
        {
            throw new ConfigurationException("nanoClock must not be null");
        }
        return this;
    }

    /** @return the timeout in whole milliseconds for librdmacm's int-millisecond calls. */
    int connectTimeoutMs()
    {
        return (int)Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(connectTimeoutNs)));
    }

    private static int intProperty(final String name, final int defaultValue)
    {
        final long value = longProperty(name, defaultValue);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE)
        {
            throw new ConfigurationException(name + " is out of range: " + value);
        }
        return (int)value;
    }

    private static long longProperty(final String name, final long defaultValue)
    {
        final String value = System.getProperty(name);
        if (null == value || value.isBlank())
        {
            return defaultValue;
        }
        try
        {
            return Long.parseLong(value.strip());
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigurationException(name + " must be a whole number: '" + value + "'");
        }
    }

    @Override
    public String toString()
    {
        return "IbverbsSettings{connectTimeoutMs=" + TimeUnit.NANOSECONDS.toMillis(connectTimeoutNs) +
            ", cmPollIntervalUs=" + TimeUnit.NANOSECONDS.toMicros(cmPollIntervalNs) + ", gidIndex=" + gidIndex +
            ", trafficClass=" + trafficClass + "}";
    }
}
