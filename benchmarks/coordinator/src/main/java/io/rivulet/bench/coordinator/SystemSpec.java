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
 * @param oneWayApis    how many one-way rows each size gives (Rivulet measures three send APIs).
 * @param reqRespApis   how many request-response rows each size gives (Rivulet and RSocket: flatMap, concatMap
 *                      and block(), where the row allows them).
 * @param noFanOut      null when the fan-out 1→8 is measured; else why the system has no fan-out row.
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
    int oneWayApis,
    int reqRespApis,
    String noFanOut)
{
    /** Every workload, in the order a client runs them for each size. */
    static final List<String> ALL_WORKLOADS = List.of("pingpong", "oneway", "reqresp", "fanout");

    /** @return the workloads of {@code selected} its client runs for each size (fan-out only when it has one). */
    List<String> workloads(final List<String> selected)
    {
        final List<String> workloads = new java.util.ArrayList<>();
        for (final String workload : ALL_WORKLOADS)
        {
            if (selected.contains(workload) && (noFanOut == null || !"fanout".equals(workload)))
            {
                workloads.add(workload);
            }
        }
        return workloads;
    }

    /** @return the results (or errors) each payload size gives. */
    int stepsPerSize(final List<String> selected)
    {
        int steps = 0;
        for (final String workload : workloads(selected))
        {
            steps += "oneway".equals(workload) ? oneWayApis : "reqresp".equals(workload) ? reqRespApis : 1;
        }
        return steps;
    }
}
