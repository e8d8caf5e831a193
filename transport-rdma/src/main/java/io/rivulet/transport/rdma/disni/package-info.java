/**
 * The {@code disni} verbs provider: RDMA hardware through DiSNI 2.1 (com.ibm.disni).
 *
 * <h2>Mapping</h2>
 * <ul>
 *     <li>Context: an RDMA CM id bound to the local address; its {@code getVerbs()} is the device
 *     (DiSNI has no device list). One RDMA CM event channel per context, polled with
 *     {@code getCmEvent(0)} (never blocks), events routed by id ({@code CmDispatcher}), only on the
 *     context's owner thread: {@code pollConnectionEvents()} every duty cycle, and the {@code poll}
 *     methods of listeners and connections. {@code isDisconnected()} reads a volatile flag, so the
 *     sender thread may ask it without touching DiSNI's (unsynchronised) id map.</li>
 *     <li>Protection domain: {@code allocPd}; memory: {@code regMr(buffer, access).execute().free().getMr()},
 *     at most 2 GiB - 1 per region (int lengths).</li>
 *     <li>Completion queue: {@code createCQ} on one shared completion channel (DiSNI requires one; it is
 *     never waited on), polled through prebuilt {@code SVCPollCq}s, one per count asked for
 *     ({@code PollCqCalls}).</li>
 *     <li>RC connection: bind, create the QP (with {@code max_inline_data} from the config: DiSNI's
 *     default 0 makes every inline send fail), resolve address, resolve route, connect with
 *     retry and RNR retry counts from the config (DiSNI's default 0 breaks on the first loss), all
 *     inside one deadline ({@code ConnectionSetup}). The passive side
 *     accepts on its first poll, so receives posted after {@code accept(config)} are in place first.
 *     Initiator depth and responder resources cannot be set: libdisni offers the local device's
 *     {@code max_qp_rd_atom} for both on either side, so what a requester keeps in flight is bounded
 *     above the verbs layer (the one-sided paths keep within the smaller end's limit).</li>
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
 * The first four go through librivulet-verbs, Rivulet's JNI extension
 * ({@code transport-rdma-native/src/main/c}, loaded by
 * {@code io.rivulet.transport.rdma.jni.NativeLibrary}), on DiSNI's own PD, CQ and QP pointers ({@code NatObject.getObjId()}):
 * {@code DisniUdQueuePair}, {@code DisniAddressHandle}, multicast (the fabric join through the library's own RDMA CM
 * on a UD id, {@code io.rivulet.transport.rdma.jni.CmMulticast}, with DiSNI's queue pair attached to the group) and
 * atomics in {@code DisniQueuePair} (refused when the device's {@code atomic_cap} is NONE), plus
 * device attributes, the UD port and UD recovery. Without the extension they fail with a
 * {@link io.rivulet.transport.rdma.verbs.VerbsException} saying why it is missing. libdisni hands DiSNI
 * the whole {@code ibv_wc}, but DiSNI copies only wr_id, status and opcode of an error completion into
 * Java: errors are reported with opcode UNKNOWN and no vendor_err, and the queue pair number is filled in
 * when a CQ serves one queue pair.
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
