package io.rivulet.bench.harness;

import org.HdrHistogram.Histogram;

import java.util.List;

/**
 * One system's measuring side. {@link ClientMain} runs the workloads, times them and reports; the system
 * supplies the operations. Every method is called on the harness's one measuring thread.
 *
 * <p>Workloads, with the payload convention of {@link Payloads}:
 * <ul>
 *   <li>ping-pong: {@link #roundTrip()} sends one ECHO message and returns when its echo is back;</li>
 *   <li>one-way: {@link #send} sends DATA messages as fast as the API allows, respecting its back-pressure;
 *       {@link #sync()} asks the receiver how many DATA messages it has counted (after all those sent
 *       before, since the path is ordered);</li>
 *   <li>request-response: {@link #pipelined} sends ECHO requests through each API of {@link #pipelinedApis()},
 *       {@link #inFlight} of them in flight;</li>
 *   <li>fan-out: {@link #fanOut} has one publisher send FANOUT messages to {@code subscribers} subscribers,
 *       when the system has a fan-out ({@link #fanOutApi()} not null).</li>
 * </ul>
 */
public interface BenchClient extends AutoCloseable
{
    /**
     * @return INFO fields: at least {@code system}, {@code version}, {@code transport}, {@code topology}
     * and {@code settings} (threading, idle strategies, how the application thread waits).
     */
    Line info();

    /** Connects (or starts the in-process peer). Called once, before any workload. */
    void start() throws Exception;

    /** Prepares messages of {@code size} bytes; called before the workloads of each size. */
    void prepare(int size) throws Exception;

    /** @return the API the ping-pong uses, e.g. "requestResponse". */
    String pingPongApi();

    /** One round trip; throws when the echo is missing or wrong. */
    void roundTrip() throws Exception;

    /** @return the send APIs measured for one-way throughput, e.g. "offer", "fireAndForget". */
    List<String> oneWayApis();

    /** Sends {@code count} DATA messages with the given API. */
    void send(String api, long count, Progress progress) throws Exception;

    /** @return the number of DATA messages the receiver has counted, after all those sent before. */
    long sync() throws Exception;

    /**
     * @return the request-response APIs measured, each a row of its own, the first keeping {@code window} requests
     * in flight (the one the report compares with every peer), e.g. "flatMap(64)", "concatMap", "block()".
     */
    List<String> pipelinedApis();

    /**
     * @param api    one of {@link #pipelinedApis()}.
     * @param window the requests in flight the harness asks for.
     * @return how many requests {@code api} keeps in flight: {@code window}, or 1 for an API that waits for each
     * reply before it sends the next request (a blocking caller, a {@code concatMap} chain).
     */
    default int inFlight(final String api, final int window)
    {
        return window;
    }

    /**
     * Runs {@code count} request-response exchanges through {@code api}, with {@link #inFlight} of them in
     * flight, recording each one's latency (request sent to reply received) in nanoseconds.
     */
    void pipelined(String api, long count, int window, Histogram latencyNs, Progress progress) throws Exception;

    /** @return the API the fan-out uses, or null when the system has no fan-out (the default). */
    default String fanOutApi()
    {
        return null;
    }

    /**
     * @return the fan-out APIs measured, each a row of its own (by default {@link #fanOutApi()} alone; none when the
     * system has no fan-out).
     */
    default List<String> fanOutApis()
    {
        final String api = fanOutApi();
        return api == null ? List.of() : List.of(api);
    }

    /**
     * @return how the fan-out is laid out: where the publisher and the subscribers run, how many threads
     * poll the subscribers, which idle strategies; stated in the report's fan-out rows.
     */
    default String fanOutSettings()
    {
        return "";
    }

    /** @return {@link #fanOutSettings()} for one of {@link #fanOutApis()}. */
    default String fanOutSettings(final String api)
    {
        return fanOutSettings();
    }

    /** {@link #fanOut(int, long, long, Histogram, Progress)} through one of {@link #fanOutApis()}. */
    default void fanOut(
        final String api, final int subscribers, final long count, final long ratePerSecond,
        final Histogram latencyNs, final Progress progress) throws Exception
    {
        fanOut(subscribers, count, ratePerSecond, latencyNs, progress);
    }

    /**
     * Publishes {@code count} FANOUT messages of the prepared size to {@code subscribers} subscribers, at
     * {@code ratePerSecond} (spaced with a {@link Pacer}), or when it is 0 as fast as the publisher's
     * back-pressure allows, and returns when every subscriber has received every one (in order, none
     * missing). Each subscriber records, for each message, the time from its publication (the timestamp in its
     * payload) to its delivery, in nanoseconds, into {@code latencyNs}; the progress is the count of the
     * slowest subscriber.
     */
    default void fanOut(
        final int subscribers, final long count, final long ratePerSecond, final Histogram latencyNs,
        final Progress progress) throws Exception
    {
        throw new UnsupportedOperationException("this system has no fan-out");
    }

    /**
     * After the last fan-out row of a size: releases what the fan-out opened (subscriber connections,
     * subscriptions, polling threads), so that the next size's ping-pong, one-way and request-response run in the
     * layout their rows describe, as the first size's did. Left open, eight idle subscriber connections change how
     * an engine reads its links, and a polling thread that keeps spinning takes a core from the next workload.
     * The next fan-out opens them again. Nothing to do by default (a system without fan-out).
     */
    default void endFanOut() throws Exception
    {
    }

    @Override
    void close() throws Exception;
}
