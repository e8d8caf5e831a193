package io.rivulet.transport.rdma.disni;

import io.rivulet.ConfigurationException;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Settings of the {@code disni} provider, with defaults from system properties:
 * <ul>
 *     <li>{@value #CONNECT_TIMEOUT_PROP} (ms, default {@value #DEFAULT_CONNECT_TIMEOUT_MS}): the whole
 *     RC set-up, address resolution to ESTABLISHED, on either side;</li>
 *     <li>{@value #CM_POLL_INTERVAL_PROP} (µs, default {@value #DEFAULT_CM_POLL_INTERVAL_US}): how often
 *     the RDMA CM event channel is polled (each poll is a JNI call and a {@code poll(2)}), however often
 *     listeners and connections are polled;</li>
 *     <li>{@value #IMM_CACHE_SIZE_PROP} (default {@value #DEFAULT_IMM_CACHE_SIZE}): prebuilt send calls
 *     kept per immediate-data shape and queue pair (see {@code PostSendCalls});</li>
 *     <li>{@value #GID_INDEX_PROP} (default {@value #DEFAULT_GID_INDEX}, meaning: find it): the source GID
 *     index of UD address handles (see {@code jni.UdPort});</li>
 *     <li>{@value #TRAFFIC_CLASS_PROP} (0-255, default 0): the traffic class (DSCP and ECN bits on RoCE v2) of UD
 *     address handles, for fabrics that put RDMA in a lossless class by DSCP.</li>
 * </ul>
 * Fluent, mutable until handed to the provider, which calls {@link #conclude()}.
 */
public final class DisniSettings
{
    public static final String CONNECT_TIMEOUT_PROP = "rivulet.rdma.disni.connectTimeoutMs";
    public static final String CM_POLL_INTERVAL_PROP = "rivulet.rdma.disni.cmPollIntervalUs";
    public static final String IMM_CACHE_SIZE_PROP = "rivulet.rdma.disni.immCacheSize";
    public static final long DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
    public static final long DEFAULT_CM_POLL_INTERVAL_US = 1_000;
    public static final int DEFAULT_IMM_CACHE_SIZE = 8;
    public static final String GID_INDEX_PROP = "rivulet.rdma.disni.gidIndex";
    public static final int DEFAULT_GID_INDEX = -1;
    public static final String TRAFFIC_CLASS_PROP = "rivulet.rdma.disni.trafficClass";

    private long connectTimeoutNs;
    private long cmPollIntervalNs;
    private int immCacheSize;
    private int gidIndex;
    private int trafficClass;
    private LongSupplier nanoClock = System::nanoTime;

    /** Defaults from the system properties. */
    public DisniSettings()
    {
        connectTimeoutNs = TimeUnit.MILLISECONDS.toNanos(
            longProperty(CONNECT_TIMEOUT_PROP, DEFAULT_CONNECT_TIMEOUT_MS));
        cmPollIntervalNs = TimeUnit.MICROSECONDS.toNanos(
            longProperty(CM_POLL_INTERVAL_PROP, DEFAULT_CM_POLL_INTERVAL_US));
        immCacheSize = (int)Math.min(Integer.MAX_VALUE, longProperty(IMM_CACHE_SIZE_PROP, DEFAULT_IMM_CACHE_SIZE));
        gidIndex = (int)Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE,
            longProperty(GID_INDEX_PROP, DEFAULT_GID_INDEX)));
        trafficClass = (int)Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE,
            longProperty(TRAFFIC_CLASS_PROP, 0)));
    }

    public int trafficClass()
    {
        return trafficClass;
    }

    /** @param trafficClass of UD address handles: {@code DSCP << 2 | ECN} on RoCE v2, 0-255. */
    public DisniSettings trafficClass(final int trafficClass)
    {
        this.trafficClass = trafficClass;
        return this;
    }

    public int gidIndex()
    {
        return gidIndex;
    }

    /** @param gidIndex the source GID index of UD address handles, or -1 to find the one of the context's address. */
    public DisniSettings gidIndex(final int gidIndex)
    {
        this.gidIndex = gidIndex;
        return this;
    }

    public long connectTimeoutNs()
    {
        return connectTimeoutNs;
    }

    public DisniSettings connectTimeoutNs(final long connectTimeoutNs)
    {
        this.connectTimeoutNs = connectTimeoutNs;
        return this;
    }

    public long cmPollIntervalNs()
    {
        return cmPollIntervalNs;
    }

    public DisniSettings cmPollIntervalNs(final long cmPollIntervalNs)
    {
        this.cmPollIntervalNs = cmPollIntervalNs;
        return this;
    }

    public int immCacheSize()
    {
        return immCacheSize;
    }

    public DisniSettings immCacheSize(final int immCacheSize)
    {
        this.immCacheSize = immCacheSize;
        return this;
    }

    public LongSupplier nanoClock()
    {
        return nanoClock;
    }

    /** The clock of connection deadlines and CM poll pacing; {@code System::nanoTime} unless a test injects one. */
    public DisniSettings nanoClock(final LongSupplier nanoClock)
    {
        this.nanoClock = nanoClock;
        return this;
    }

    /**
     * @return this, validated.
     * @throws ConfigurationException naming the bad setting.
     */
    public DisniSettings conclude()
    {
        if (connectTimeoutNs <= 0)
        {
            throw new ConfigurationException(CONNECT_TIMEOUT_PROP + " must be positive: " +
                TimeUnit.NANOSECONDS.toMillis(connectTimeoutNs) + " ms");
        }
        if (cmPollIntervalNs < 0)
        {
            throw new ConfigurationException(CM_POLL_INTERVAL_PROP + " must not be negative: " +
                TimeUnit.NANOSECONDS.toMicros(cmPollIntervalNs) + " us");
        }
        if (immCacheSize < 1 || immCacheSize > 4096)
        {
            throw new ConfigurationException(IMM_CACHE_SIZE_PROP + " must be 1-4096: " + immCacheSize);
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

    /** @return the timeout in whole milliseconds for DiSNI's int-millisecond CM calls. */
    int connectTimeoutMsInt()
    {
        return (int)Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(connectTimeoutNs)));
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
        return "DisniSettings{connectTimeoutMs=" + TimeUnit.NANOSECONDS.toMillis(connectTimeoutNs) +
            ", cmPollIntervalUs=" + TimeUnit.NANOSECONDS.toMicros(cmPollIntervalNs) +
            ", immCacheSize=" + immCacheSize + ", gidIndex=" + gidIndex + ", trafficClass=" + trafficClass + "}";
    }
}
