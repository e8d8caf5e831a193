package io.rivulet.topic;

import io.rivulet.counters.CounterFactory;
import io.rivulet.counters.CounterTypes;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * One publication's counters in the node file: messages published, subscribers now, slow-consumer drops,
 * back-pressure results and bytes appended to its log. The conductor copies them from the publication's own
 * statistics on each heartbeat ({@link TopicRegistry#sampleCounters()}), so publishing pays nothing for them; they
 * lag by up to ~100 ms.
 *
 * <p>Conductor only.
 */
final class TopicCounters implements AutoCloseable
{
    private final AtomicCounter published;
    private final AtomicCounter subscribers;
    private final AtomicCounter drops;
    private final AtomicCounter backPressure;
    private final AtomicCounter logBytes;

    TopicCounters(final CounterFactory factory, final String topic)
    {
        published = factory.newCounter(CounterTypes.TOPIC_PUBLISHED, CounterTypes.NO_OWNER, topic,
            "topic " + topic + " published");
        subscribers = factory.newCounter(CounterTypes.TOPIC_SUBSCRIBERS, CounterTypes.NO_OWNER, topic,
            "topic " + topic + " subscribers");
        drops = factory.newCounter(CounterTypes.TOPIC_DROPS, CounterTypes.NO_OWNER, topic,
            "topic " + topic + " slow-consumer events");
        backPressure = factory.newCounter(CounterTypes.TOPIC_BACK_PRESSURE, CounterTypes.NO_OWNER, topic,
            "topic " + topic + " back-pressured offers");
        logBytes = factory.newCounter(CounterTypes.TOPIC_LOG_BYTES, CounterTypes.NO_OWNER, topic,
            "topic " + topic + " log bytes");
    }

    void sample(final Publication publication)
    {
        published.setRelease(publication.sequence());
        subscribers.setRelease(publication.subscriberCount());
        drops.setRelease(publication.slowConsumerEvents());
        backPressure.setRelease(publication.backPressureEvents());
        logBytes.setRelease(publication.published());
    }

    @Override
    public void close()
    {
        published.close();
        subscribers.close();
        drops.close();
        backPressure.close();
        logBytes.close();
    }
}
