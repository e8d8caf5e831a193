package io.rivulet.samples.marketdata;

import io.rivulet.samples.marketdata.sbe.QuoteDecoder;
import io.rivulet.samples.marketdata.sbe.TradeDecoder;
import io.rivulet.topic.SlowConsumerException;
import io.rivulet.topic.TopicMessage;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One subscriber of the sample: checks every item as it arrives (per topic: snapshot within the joined
 * sequence, data contiguous, gaps explicit, the end where the data ended), records latency from the
 * message's send time, and prints a report line.
 *
 * <p>Signals arrive on one thread at a time (the engine's, or the slow subscriber's own); the report is
 * read after {@link #isDone()}.
 */
final class SubscriberStats extends BaseSubscriber<TopicMessage>
{
    /** The slow subscriber's deliberate work per message. */
    private static final long SLOW_WORK_NS = TimeUnit.MICROSECONDS.toNanos(100);

    final String name;
    final String pattern;
    private final boolean slow;
    private final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    private final MarketDataCodecs.Decoders decoders = new MarketDataCodecs.Decoders();
    private final Map<String, long[]> topics = new HashMap<>(); // last sequence, last snapshot entry
    private final List<String> problems = new ArrayList<>();
    private final long[] lastBid;
    private long data;
    private long snapshots;
    private long gaps;
    private long otherGaps;
    private long gapSequences;
    private long firstNs;
    private long lastNs;
    private volatile int joined;
    private volatile int ended;
    private volatile Throwable error;

    SubscriberStats(final String name, final String pattern, final boolean slow, final int instruments)
    {
        this.name = name;
        this.pattern = pattern;
        this.slow = slow;
        this.lastBid = new long[instruments + 1];
    }

    @Override
    protected void hookOnSubscribe(final Subscription subscription)
    {
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    protected void hookOnNext(final TopicMessage item)
    {
        if (slow)
        {
            LockSupport.parkNanos(SLOW_WORK_NS);
        }
        final String topic = item.topic();
        switch (item.kind())
        {
            case JOINED:
                topics.put(topic, new long[]{ item.sequence(), 0 });
                joined++;
                break;

            case SNAPSHOT:
            {
                final long[] state = topics.get(topic);
                if (item.sequence() > state[0] || item.sequence() <= state[1])
                {
                    problem(topic + ": snapshot entry " + item.sequence() + " out of place");
                }
                state[1] = item.sequence();
                snapshots++;
                onMessage(item, false);
                break;
            }

            case DATA:
            {
                final long[] state = topics.get(topic);
                if (item.sequence() != state[0] + 1)
                {
                    problem(topic + ": sequence " + item.sequence() + " after " + state[0] + " without a gap signal");
                }
                state[0] = item.sequence();
                data++;
                onMessage(item, true);
                break;
            }

            case GAP:
            {
                final long[] state = topics.get(topic);
                if (item.gapFrom() > state[0] + 1)
                {
                    problem(topic + ": gap from " + item.gapFrom() + " after " + state[0]);
                }
                state[0] = Math.max(state[0], item.gapTo());
                state[1] = item.gapFrom() - 1; // catch-up entries follow, in sequence order
                gaps++;
                if (item.gapReason() != TopicMessage.GapReason.CONFLATED)
                {
                    otherGaps++;
                    problem(topic + ": " + item.gapReason() + " gap " + item.gapFrom() + ".." + item.gapTo());
                }
                gapSequences += item.gapTo() - item.gapFrom() + 1;
                break;
            }

            default: // END
            {
                final long[] state = topics.get(topic);
                if (item.sequence() != state[0])
                {
                    problem(topic + ": ended at " + item.sequence() + " after receiving up to " + state[0]);
                }
                ended++;
            }
        }
    }

    private void onMessage(final TopicMessage item, final boolean live)
    {
        final DirectBuffer buffer = item.data();
        final int templateId = decoders.wrap(buffer, 0, item.dataLength());
        final long nowNs = System.nanoTime();
        final long sendTimeNs;
        if (templateId == QuoteDecoder.TEMPLATE_ID)
        {
            final QuoteDecoder quote = decoders.quote;
            sendTimeNs = quote.sendTimeNs();
            final long instrument = quote.instrumentId();
            if (instrument > 0 && instrument < lastBid.length)
            {
                lastBid[(int)instrument] = quote.bid();
            }
        }
        else if (templateId == TradeDecoder.TEMPLATE_ID)
        {
            sendTimeNs = decoders.trade.sendTimeNs();
        }
        else
        {
            problem(item.topic() + ": not a Quote or Trade at sequence " + item.sequence());
            return;
        }
        if (live)
        {
            latency.recordValue(Math.min(Math.max(nowNs - sendTimeNs, 0), latency.getHighestTrackableValue()));
            if (firstNs == 0)
            {
                firstNs = nowNs;
            }
            lastNs = nowNs;
        }
    }

    private void problem(final String text)
    {
        if (problems.size() < 10)
        {
            problems.add(text);
        }
    }

    @Override
    protected void hookOnError(final Throwable throwable)
    {
        if (joined > 0 && ended >= joined)
        {
            return; // every topic ended first: the publisher's process going away afterwards is no failure
        }
        error = throwable;
    }

    /** @return true once every joined topic ended, or the subscription failed. */
    boolean isDone()
    {
        return (joined > 0 && ended >= joined) || error != null;
    }

    int joinedTopics()
    {
        return joined;
    }

    boolean slow()
    {
        return slow;
    }

    /** @return true when it received every message of its topics: no gap, no error. */
    boolean isComplete()
    {
        return error == null && gaps == 0 && problems.isEmpty() && joined > 0;
    }

    Throwable error()
    {
        return error;
    }

    static void printHeader(final PrintStream out)
    {
        out.println("subscriber  pattern       topics   messages  snapshot  gaps (sequences)      msg/s" +
            "   latency us: p50     p90     p99   p99.9     max  result");
    }

    /**
     * Prints this subscriber's line.
     *
     * @param feed the publisher in the same JVM (to check a conflated subscriber's final values), or null.
     * @return true when it received what its topics' policies promise.
     */
    boolean report(final PrintStream out, final MarketData.Feed feed)
    {
        // What passes is what the topics promise: every sequence delivered or covered by an explicit signal,
        // in order; a conflated subscriber ends with the latest value of every instrument. A fast subscriber
        // that a loaded machine made fall a whole log behind is conflated (or cut off) too, and says so.
        final List<String> failures = new ArrayList<>(problems);
        String result = "ok: every message, in order, once";
        if (error instanceof SlowConsumerException)
        {
            result = "ok: cut off (DROP_SLOW) after sequence " + ((SlowConsumerException)error).lastSequence() +
                " of " + ((SlowConsumerException)error).topic() + (slow ? "" : " (fell behind under load)");
        }
        else if (error != null)
        {
            failures.add("failed: " + error);
        }
        else if (gaps > 0 && otherGaps == 0)
        {
            final boolean checkLatest = feed != null && ("md.quotes.*".equals(pattern) || "md.>".equals(pattern));
            result = "ok: conflated" + (checkLatest ? ", latest value of every instrument" : ", in order") +
                (slow ? "" : " (fell behind under load)");
            if (checkLatest) // its topics carry every instrument's quotes
            {
                for (int instrument = 1; instrument < lastBid.length; instrument++)
                {
                    if (lastBid[instrument] != feed.lastBid(instrument))
                    {
                        failures.add("instrument " + instrument + " ended at bid " + lastBid[instrument] +
                            ", the publisher's last was " + feed.lastBid(instrument));
                        break;
                    }
                }
            }
        }
        if (joined == 0)
        {
            failures.add("attached to no topic");
        }
        final double seconds = (lastNs - firstNs) / 1e9;
        out.printf(Locale.ROOT, "%-11s %-13s %6d %10s %9s %6s (%,9d) %10s %15s %7s %7s %7s %7s  %s%n",
            name, pattern, joined, String.format(Locale.ROOT, "%,d", data), String.format(Locale.ROOT, "%,d", snapshots),
            String.format(Locale.ROOT, "%,d", gaps), gapSequences,
            seconds > 0 ? String.format(Locale.ROOT, "%,.0f", data / seconds) : "-",
            micros(latency.getValueAtPercentile(50)), micros(latency.getValueAtPercentile(90)),
            micros(latency.getValueAtPercentile(99)), micros(latency.getValueAtPercentile(99.9)),
            micros(latency.getMaxValue()), failures.isEmpty() ? result : "FAILED: " + String.join("; ", failures));
        return failures.isEmpty();
    }

    private static String micros(final long nanos)
    {
        return String.format(Locale.ROOT, "%.1f", nanos / 1000.0);
    }
}
