/**
 * The {@code ibverbs} verbs provider: RDMA hardware through rdma-core (libibverbs and librdmacm) with Rivulet's
 * own JNI binding, librivulet-verbs ({@link io.rivulet.transport.rdma.jni}), which the jar carries. A host needs
 * only its distribution's rdma-core packages.
 *
 * <h2>What it does</h2>
 * <ul>
 *     <li>Device and port queries ({@code ibv_query_device}, {@code ibv_query_port}, {@code ibv_query_gid_ex}:
 *     the UD source GID is chosen by type, RoCE v2 first), protection domains, memory regions, completion queues
 *     without completion channels (busy-polled).</li>
 *     <li>RC queue pairs through RDMA CM on one non-blocking event channel per context: connect, accept, reject,
 *     disconnect, with a deadline around the whole set-up ({@link io.rivulet.transport.rdma.cm.ConnectionSetup});
 *     READs and atomics in flight are agreed at set-up as the smaller of the two ends' limits.</li>
 *     <li>UD queue pairs and address handles ({@code ibv_create_ah} may block for address resolution: callers keep
 *     it off the duty cycle), recovery of a UD queue pair that went to ERROR.</li>
 *     <li>Posting chains of work requests and polling batches of completions, one JNI call each, nothing
 *     allocated; error completions report only what ibverbs defines (wr_id, status, qp_num, vendor_err).</li>
 * </ul>
 *
 * <h2>Threading</h2>
 * A context belongs to one thread (the engine's conductor), which alone takes connection manager events
 * ({@link io.rivulet.transport.rdma.verbs.VerbsContext#pollConnectionEvents()}); a queue pair's sends may be posted,
 * and its send completions polled, by one other thread (the sender), as ibverbs allows.
 */
package io.rivulet.transport.rdma.ibverbs;
