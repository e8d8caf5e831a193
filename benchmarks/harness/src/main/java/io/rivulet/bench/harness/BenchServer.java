package io.rivulet.bench.harness;

import java.util.Map;

/** One system's serving side: echoes ECHO messages, counts DATA, answers SYNC. */
public interface BenchServer extends AutoCloseable
{
    /**
     * Starts serving on 127.0.0.1.
     *
     * @return READY fields, at least {@code port}; more when the system needs them (Aeron's second port).
     */
    Map<String, Object> start() throws Exception;

    @Override
    void close() throws Exception;
}
