package io.rivulet.spi;

/**
 * What a thread that hands the engine work calls afterwards: a ring frame committed, a stream signalled, a conductor
 * command queued, a topic message published. An engine asleep in its transport's selector (SHARED mode with the
 * default back-off, on a transport that can wait for readiness) is woken by it; otherwise it costs one volatile read.
 */
@FunctionalInterface
public interface EngineWake
{
    /** Wakes nothing: nodes whose engine never sleeps in a selector, and tests. */
    EngineWake NONE = () ->
    {
    };

    /** Any thread, after it handed the engine work. */
    void afterHandOff();

    /**
     * Any thread, after it handed the engine work and then ran a full fence itself ({@code VarHandle.fullFence()}):
     * the same as {@link #afterHandOff()} without a second fence. An outbound ring's commit fences once for both
     * the sender's readiness and the engine's sleep.
     */
    default void afterFencedHandOff()
    {
        afterHandOff();
    }
}
