package io.rivulet.bench.coordinator;

import java.util.List;

/**
 * One row group of the comparison: a system in one configuration, and how to start its JVMs.
 *
 * @param id            short name, used for logs and {@code --systems}.
 * @param label         the name in tables and plots.
 * @param module        the benchmarks module whose class path the JVMs get.
 * @param serverMain    the server's main class, or null when the client runs both sides in one JVM.
 * @param clientMain    the client's main class.
 * @param serverArgs    the server's options.
 * @param clientArgs    the client's options besides counts, sizes and ports.
 * @param jvmFlags      flags this system needs on every one of its JVMs.
 * @param settings      the settings that matter for its numbers, stated in every row.
 * @param rivulet       a Rivulet row (ratios are Rivulet against each peer).
 * @param needsRdma     needs the RDMA transport; skipped when it is not built.
 * @param oneWayApis    how many one-way rows each size gives (Rivulet measures two send APIs).
 */
record SystemSpec(
    String id,
    String label,
    String module,
    String serverMain,
    String clientMain,
    List<String> serverArgs,
    List<String> clientArgs,
    List<String> jvmFlags,
    String settings,
    boolean rivulet,
    boolean needsRdma,
    int oneWayApis)
{
}
