/**
 * The {@code disni} verbs provider: RDMA hardware through DiSNI 2.1 (com.ibm.disni).
 *
 * <h2>Mapping</h2>
 * <ul>
 *     <li>Context: an RDMA CM id bound to the local address; its {@code getVerbs()} is the device
 *     (DiSNI has no device list). One RDMA CM event channel per context, polled with
 *     {@code getCmEvent(0)} (never blocks), events routed by id ({@code CmDispatcher}).</li>
 *     <li>Protection domain: {@code allocPd}; memory: {@code regMr(buffer, access).execute().free().getMr()},
 *     at most 2 GiB - 1 per region (int lengths).</li>
 *     <li>Completion queue: {@code createCQ} on one shared completion channel (DiSNI requires one; it is
 *     never waited on), polled through one prebuilt {@code SVCPollCq}.</li>
 *     <li>RC connection: bind, create the QP (with {@code max_inline_data} from the config: DiSNI's
 *     default 0 makes every inline send fail), resolve address, resolve route, connect with
 *     retry and RNR retry counts from the config (DiSNI's default 0 breaks on the first loss), all
 *     inside one deadline ({@code ConnectionSetup}). The passive side
 *     accepts on its first poll, so receives posted after {@code accept(config)} are in place first.</li>
 *     <li>Posting: prebuilt stateful verb calls modified in place
 *     ({@code PostSendCalls}, {@code PostRecvCalls}):
 *     no allocation and one JNI call per post once warm. Immediate data is fixed per DiSNI call, so
 *     calls carrying it are cached per value (LRU, {@code rivulet.rdma.disni.immCacheSize}); receives
 *     cannot be modified at all, so they are cached per wr_id.</li>
 *     <li>Immediate data is carried in network byte order (DiSNI writes host order), so C peers see
 *     the same value after {@code ntohl}.</li>
 * </ul>
 *
 * <h2>What DiSNI 2.1 cannot do, and the JNI extension</h2>
 * UD queue pairs, address handles, multicast, atomics (their operands never reach native memory),
 * shared receive queues, IPv6, {@code rdma_reject} (a request is rejected by destroying its id),
 * private data, {@code ibv_query_qp} (queue pair state is tracked from CM events and completions).
 * The first four go through librivulet-verbs, Rivulet's JNI extension ({@code src/main/c}, loaded by
 * {@code io.rivulet.transport.rdma.jni.NativeLibrary}), on DiSNI's own PD, CQ and QP pointers ({@code NatObject.getObjId()}):
 * {@code DisniUdQueuePair}, {@code DisniAddressHandle}, {@link io.rivulet.transport.rdma.disni.DisniMulticast}
 * and atomics in {@code DisniQueuePair}. Without the extension they fail with a
 * {@link io.rivulet.transport.rdma.verbs.VerbsException} saying why it is missing. Error completions carry
 * only wr_id, status and opcode (DiSNI does not copy the rest); the queue pair number is filled in when a
 * CQ serves one queue pair.
 *
 * <h2>Running it</h2>
 * Build libdisni from DiSNI's sources on the RDMA host ({@code ./autoprepare.sh && ./configure
 * --with-jdk=$JAVA_HOME && make install}, needs libibverbs-dev and librdmacm-dev), put it on
 * {@code java.library.path} (or {@code LD_LIBRARY_PATH=/usr/local/lib}), run with
 * {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}, and raise the locked-memory limit to cover the
 * registered memory. {@link io.rivulet.transport.rdma.disni.DisniVerbsProvider#availability()} says
 * which of these is missing.
 */
package io.rivulet.transport.rdma.disni;
