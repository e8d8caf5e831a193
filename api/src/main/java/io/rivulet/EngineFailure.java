package io.rivulet;

/**
 * What a node does once its engine failed: an error escaped one of its agents (conductor, sender, topic sender),
 * such as an {@link OutOfMemoryError}. Either way the node first closes every connection (pending operations fail
 * with a {@link RivuletException} naming the cause, peers see the connection end) and its listeners, marks its node
 * file DEAD with the cause and passes the cause to {@link Rivulet.Context#errorHandler}; never does it run on
 * half-alive ({@code rivulet.engineFailure}, {@link Rivulet.Context#engineFailure(EngineFailure)}).
 */
public enum EngineFailure
{
    /**
     * The JVM keeps running with the node closed: later calls on the node fail at once with "node failed: &lt;cause&gt;".
     * The default: the application decides (its error handler heard the cause), e.g. closes the node and starts a
     * new one.
     */
    CLOSE,
    /**
     * Then the JVM halts with a non-zero status ({@link Rivulet.Context#engineFailureExit}; by default
     * {@code Runtime.halt(70)}, without shutdown hooks, which could wait on the failed engine), for a supervisor
     * (systemd, Kubernetes) to restart the process.
     */
    EXIT
}
