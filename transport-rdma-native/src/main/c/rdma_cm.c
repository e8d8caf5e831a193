/*
 * io.rivulet.transport.rdma.jni.RdmaCm: librdmacm, the RDMA connection manager, for the ibverbs provider.
 * See rivulet_verbs.h for the conventions and layouts.
 *
 * Event channels are made non-blocking, so getEvent never blocks the thread that drives them (the engine's
 * conductor): it returns 0 when nothing is pending. Every event is acknowledged before getEvent returns, after
 * its fields (and private data) are copied out, so rdma_destroy_id never waits for an unacknowledged event.
 *
 * Addresses cross as (family, high, low, port): family 4 with the IPv4 address in the low 32 bits of low
 * (a.b.c.d as (a << 24) | (b << 16) | (c << 8) | d), or family 6 with the 16 bytes big-endian in high, low.
 */
#include "rivulet_verbs.h"

#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "io_rivulet_transport_rdma_jni_RdmaCm.h"

#define UNUSED_JNI (void)env; (void)cls

static int to_sockaddr(jint family, jlong high, jlong low, jint port, struct sockaddr_storage *storage)
{
    memset(storage, 0, sizeof *storage);
    if (port < 0 || port > 0xffff)
    {
        return -EINVAL;
    }
    if (family == 4)
    {
        struct sockaddr_in *in = (struct sockaddr_in *)storage;
        in->sin_family = AF_INET;
        in->sin_port = htons((uint16_t)port);
        in->sin_addr.s_addr = htonl((uint32_t)low);
        return 0;
    }
    if (family == 6)
    {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)storage;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        rv_gid_from(high, low, in6->sin6_addr.s6_addr);
        return 0;
    }
    return -EINVAL;
}

/* Writes family (4, 6 or 0), port and 16 address bytes (IPv4 in the first 4) at the given offsets. */
static void from_sockaddr(const struct sockaddr *address, uint8_t *o, int family_at, int port_at, int addr_at)
{
    memset(o + addr_at, 0, 16);
    if (NULL != address && address->sa_family == AF_INET)
    {
        const struct sockaddr_in *in = (const struct sockaddr_in *)address;
        rv_put32(o, family_at, 4);
        rv_put32(o, port_at, ntohs(in->sin_port));
        memcpy(o + addr_at, &in->sin_addr.s_addr, 4);
    }
    else if (NULL != address && address->sa_family == AF_INET6)
    {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)address;
        rv_put32(o, family_at, 6);
        rv_put32(o, port_at, ntohs(in6->sin6_port));
        memcpy(o + addr_at, in6->sin6_addr.s6_addr, 16);
    }
    else
    {
        rv_put32(o, family_at, 0);
        rv_put32(o, port_at, 0);
    }
}

static void conn_param(
    struct rdma_conn_param *param, jint responder_resources, jint initiator_depth, jint retry_count,
    jint rnr_retry_count, jlong private_data, jint private_data_length)
{
    memset(param, 0, sizeof *param);
    param->responder_resources = (uint8_t)responder_resources;
    param->initiator_depth = (uint8_t)initiator_depth;
    param->flow_control = 1;
    param->retry_count = (uint8_t)retry_count;
    param->rnr_retry_count = (uint8_t)rnr_retry_count;
    if (private_data != 0 && private_data_length > 0)
    {
        param->private_data = AS_PTR(private_data);
        param->private_data_len = (uint8_t)private_data_length;
    }
}

static int check_conn_args(
    jint responder_resources, jint initiator_depth, jint retry_count, jint rnr_retry_count, jlong private_data,
    jint private_data_length)
{
    if (responder_resources < 0 || responder_resources > 255 || initiator_depth < 0 || initiator_depth > 255 ||
        retry_count < 0 || retry_count > 7 || rnr_retry_count < 0 || rnr_retry_count > 7 ||
        private_data_length < 0 || private_data_length > E_PRIVATE_DATA_MAX ||
        (private_data_length > 0 && private_data == 0))
    {
        return -EINVAL;
    }
    return 0;
}

JNIEXPORT jlong JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_createEventChannel(JNIEnv *env, jclass cls)
{
    UNUSED_JNI;
    errno = 0;
    struct rdma_event_channel *channel = rdma_create_event_channel();
    if (NULL == channel)
    {
        return rv_failed_pointer();
    }
    const int flags = fcntl(channel->fd, F_GETFL);
    if (flags < 0 || fcntl(channel->fd, F_SETFL, flags | O_NONBLOCK) < 0)
    {
        const jlong failure = rv_failed_pointer();
        rdma_destroy_event_channel(channel);
        return failure;
    }
    return AS_HANDLE(channel);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_destroyEventChannel(
    JNIEnv *env, jclass cls, jlong channel)
{
    UNUSED_JNI;
    if (channel == 0)
    {
        return -EINVAL;
    }
    rdma_destroy_event_channel((struct rdma_event_channel *)AS_PTR(channel));
    return 0;
}

/* rdma_create_id in the TCP port space (RC); the id's events go to the channel. */
JNIEXPORT jlong JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_createId(JNIEnv *env, jclass cls, jlong channel)
{
    struct rdma_cm_id *id = NULL;
    UNUSED_JNI;
    if (channel == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = rdma_create_id((struct rdma_event_channel *)AS_PTR(channel), &id, NULL, RDMA_PS_TCP);
    return rc == 0 && NULL != id ? AS_HANDLE(id) : rv_failed_pointer();
}

/*
 * rdma_create_id in the UDP port space: a UD id, for multicast membership (rdma_join_multicast). librdmacm gives
 * such ids the Q_Key RDMA_UDP_QKEY, which the groups they join carry too.
 */
JNIEXPORT jlong JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_createUdId(JNIEnv *env, jclass cls, jlong channel)
{
    struct rdma_cm_id *id = NULL;
    UNUSED_JNI;
    if (channel == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = rdma_create_id((struct rdma_event_channel *)AS_PTR(channel), &id, NULL, RDMA_PS_UDP);
    return rc == 0 && NULL != id ? AS_HANDLE(id) : rv_failed_pointer();
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_destroyId(JNIEnv *env, jclass cls, jlong id)
{
    UNUSED_JNI;
    if (id == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = rdma_destroy_id((struct rdma_cm_id *)AS_PTR(id));
    return rc == 0 ? 0 : rv_failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_bindAddr(
    JNIEnv *env, jclass cls, jlong id, jint family, jlong high, jlong low, jint port)
{
    struct sockaddr_storage address;
    UNUSED_JNI;
    if (id == 0 || to_sockaddr(family, high, low, port, &address) != 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = rdma_bind_addr((struct rdma_cm_id *)AS_PTR(id), (struct sockaddr *)&address);
    return rc == 0 ? 0 : rv_failed_status(rc);
}

/* rdma_resolve_addr from the id's bound address to a destination; ADDR_RESOLVED or ADDR_ERROR follows. */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_resolveAddr(
    JNIEnv *env, jclass cls, jlong id, jint family, jlong high, jlong low, jint port, jint timeout_ms)
{
    struct sockaddr_storage address;
    UNUSED_JNI;
    if (id == 0 || timeout_ms < 1 || to_sockaddr(family, high, low, port, &address) != 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = rdma_resolve_addr((struct rdma_cm_id *)AS_PTR(id), NULL, (struct sockaddr *)&address, timeout_ms);
    return rc == 0 ? 0 : rv_failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_resolveRoute(
    JNIEnv *env, jclass cls, jlong id, jint timeout_ms)
{
    UNUSED_JNI;
    if (id == 0 || timeout_ms < 1)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = rdma_resolve_route((struct rdma_cm_id *)AS_PTR(id), timeout_ms);
    return rc == 0 ? 0 : rv_failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_listen(
    JNIEnv *env, jclass cls, jlong id, jint backlog)
{
    UNUSED_JNI;
    if (id == 0 || backlog < 1)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = rdma_listen((struct rdma_cm_id *)AS_PTR(id), backlog);
    return rc == 0 ? 0 : rv_failed_status(rc);
}

/*
 * rdma_create_qp: an RC queue pair on the id's device, owned by the id (the connection manager moves it to
 * RTR and RTS on connect or accept, and to ERROR on disconnect). The granted capabilities go to out (Q_*).
 */
JNIEXPORT jlong JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_createQp(
    JNIEnv *env, jclass cls, jlong id, jlong pd, jlong send_cq, jlong recv_cq, jint max_send_wr, jint max_recv_wr,
    jint max_send_sge, jint max_recv_sge, jint max_inline, jlong out)
{
    struct ibv_qp_init_attr attr;
    UNUSED_JNI;
    if (id == 0 || pd == 0 || rv_init_qp_attr(&attr, send_cq, recv_cq, IBV_QPT_RC, max_send_wr, max_recv_wr,
        max_send_sge, max_recv_sge, max_inline) != 0)
    {
        return -EINVAL;
    }
    struct rdma_cm_id *cm_id = (struct rdma_cm_id *)AS_PTR(id);
    errno = 0;
    const int rc = rdma_create_qp(cm_id, (struct ibv_pd *)AS_PTR(pd), &attr);
    if (rc != 0 || NULL == cm_id->qp)
    {
        return rv_failed_pointer();
    }
    rv_write_caps(out, cm_id->qp, &attr.cap);
    return AS_HANDLE(cm_id->qp);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_destroyQp(JNIEnv *env, jclass cls, jlong id)
{
    UNUSED_JNI;
    if (id == 0)
    {
        return -EINVAL;
    }
    rdma_destroy_qp((struct rdma_cm_id *)AS_PTR(id));
    return 0;
}

/*
 * rdma_connect. responder_resources: READs and atomics this side serves at once; initiator_depth: the ones it
 * issues at once. The passive side answers with the smaller of each pair (see accept).
 */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_connect(
    JNIEnv *env, jclass cls, jlong id, jint responder_resources, jint initiator_depth, jint retry_count,
    jint rnr_retry_count, jlong private_data, jint private_data_length)
{
    struct rdma_conn_param param;
    UNUSED_JNI;
    if (id == 0 || check_conn_args(responder_resources, initiator_depth, retry_count, rnr_retry_count, private_data,
        private_data_length) != 0)
    {
        return -EINVAL;
    }
    conn_param(&param, responder_resources, initiator_depth, retry_count, rnr_retry_count, private_data,
        private_data_length);
    errno = 0;
    const int rc = rdma_connect((struct rdma_cm_id *)AS_PTR(id), &param);
    return rc == 0 ? 0 : rv_failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_accept(
    JNIEnv *env, jclass cls, jlong id, jint responder_resources, jint initiator_depth, jint rnr_retry_count,
    jlong private_data, jint private_data_length)
{
    struct rdma_conn_param param;
    UNUSED_JNI;
    if (id == 0 || check_conn_args(responder_resources, initiator_depth, 0, rnr_retry_count, private_data,
        private_data_length) != 0)
    {
        return -EINVAL;
    }
    conn_param(&param, responder_resources, initiator_depth, 0, rnr_retry_count, private_data, private_data_length);
    errno = 0;
    const int rc = rdma_accept((struct rdma_cm_id *)AS_PTR(id), &param);
    return rc == 0 ? 0 : rv_failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_reject(
    JNIEnv *env, jclass cls, jlong id, jlong private_data, jint private_data_length)
{
    UNUSED_JNI;
    if (id == 0 || private_data_length < 0 || private_data_length > E_PRIVATE_DATA_MAX ||
        (private_data_length > 0 && private_data == 0))
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = rdma_reject((struct rdma_cm_id *)AS_PTR(id), private_data_length > 0 ? AS_PTR(private_data) : NULL,
        (uint8_t)private_data_length);
    return rc == 0 ? 0 : rv_failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_disconnect(JNIEnv *env, jclass cls, jlong id)
{
    UNUSED_JNI;
    if (id == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = rdma_disconnect((struct rdma_cm_id *)AS_PTR(id));
    return rc == 0 ? 0 : rv_failed_status(rc);
}

/* rdma_join_multicast (join != 0) or rdma_leave_multicast of a group address (family 4 or 6, port 0). */
static jint multicast(jlong id, jint family, jlong high, jlong low, int join)
{
    struct sockaddr_storage address;
    if (id == 0 || to_sockaddr(family, high, low, 0, &address) != 0)
    {
        return -EINVAL;
    }
    struct rdma_cm_id *cm_id = (struct rdma_cm_id *)AS_PTR(id);
    errno = 0;
    const int rc = join ? rdma_join_multicast(cm_id, (struct sockaddr *)&address, NULL) :
        rdma_leave_multicast(cm_id, (struct sockaddr *)&address);
    return rc == 0 ? 0 : rv_failed_status(rc);
}

/*
 * rdma_join_multicast of a bound UD id (RDMA_PS_UDP): MULTICAST_JOIN or MULTICAST_ERROR follows on the id's channel.
 * The id owns no queue pair, so librdmacm attaches none: the caller attaches its own UD queue pair (ibv_attach_mcast)
 * with the MGID and MLID the join event gives. On RoCE the kernel refuses some groups at once (an IPv6 group on a
 * RoCE v2 port: -ENOTSUPP, 524); on InfiniBand the subnet manager answers with the event.
 */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_joinMulticast(
    JNIEnv *env, jclass cls, jlong id, jint family, jlong high, jlong low)
{
    UNUSED_JNI;
    return multicast(id, family, high, low, 1);
}

/*
 * rdma_leave_multicast of a group joined with joinMulticast. librdmacm waits there until every event of the
 * membership was acknowledged; getEvent acknowledges each one before it returns, so this never waits on the caller.
 */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_leaveMulticast(
    JNIEnv *env, jclass cls, jlong id, jint family, jlong high, jlong low)
{
    UNUSED_JNI;
    return multicast(id, family, high, low, 0);
}

/* Writes a UD event's param.ud (ah_attr, qp_num, qkey) at o + E_UD in the U_* layout. */
static void put_ud_param(uint8_t *o, const struct rdma_ud_param *ud)
{
    uint8_t *u = o + E_UD;
    const struct ibv_ah_attr *ah = &ud->ah_attr;
    memcpy(u + U_DGID, ah->grh.dgid.raw, 16);
    rv_put32(u, U_FLOW_LABEL, (int32_t)ah->grh.flow_label);
    rv_put32(u, U_SGID_INDEX, ah->grh.sgid_index);
    rv_put32(u, U_HOP_LIMIT, ah->grh.hop_limit);
    rv_put32(u, U_TRAFFIC_CLASS, ah->grh.traffic_class);
    rv_put32(u, U_DLID, ah->dlid);
    rv_put32(u, U_SL, ah->sl);
    rv_put32(u, U_SRC_PATH_BITS, ah->src_path_bits);
    rv_put32(u, U_STATIC_RATE, ah->static_rate);
    rv_put32(u, U_IS_GLOBAL, ah->is_global);
    rv_put32(u, U_PORT_NUM, ah->port_num);
    rv_put32(u, U_QP_NUM, (int32_t)ud->qp_num);
    rv_put32(u, U_QKEY, (int32_t)ud->qkey);
}

/*
 * Takes one pending event without blocking and acknowledges it: 1 with the event at out (E_* layout), 0 when
 * none is pending, -errno when the channel failed. For CONNECT_REQUEST the id is the new connection's and
 * listen_id the listener's; responder resources, initiator depth and private data are the peer's (on
 * CONNECT_REQUEST and ESTABLISHED/CONNECT_RESPONSE) or the rejection's (REJECTED, private data only). For a UD id's
 * MULTICAST_JOIN and MULTICAST_ERROR, param.ud goes to E_UD (U_* layout): the group's address attributes, QP number
 * (0xffffff) and Q_Key.
 */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_getEvent(
    JNIEnv *env, jclass cls, jlong channel, jlong out)
{
    struct rdma_cm_event *event = NULL;
    UNUSED_JNI;
    if (channel == 0 || out == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    if (rdma_get_cm_event((struct rdma_event_channel *)AS_PTR(channel), &event) != 0)
    {
        if (errno == EAGAIN || errno == EWOULDBLOCK)
        {
            return 0;
        }
        return errno > 0 ? -errno : -EIO;
    }
    uint8_t *o = (uint8_t *)AS_PTR(out);
    memset(o, 0, E_SIZE);
    rv_put32(o, E_TYPE, event->event);
    rv_put32(o, E_STATUS, event->status);
    rv_put64(o, E_ID, AS_HANDLE(event->id));
    rv_put64(o, E_LISTEN_ID, AS_HANDLE(event->listen_id));
    if (NULL != event->id && event->id->ps != RDMA_PS_UDP && event->id->ps != RDMA_PS_IPOIB)
    {
        const struct rdma_conn_param *conn = &event->param.conn;
        int length = conn->private_data_len;
        if (NULL == conn->private_data || length < 0)
        {
            length = 0;
        }
        if (length > E_PRIVATE_DATA_MAX)
        {
            length = E_PRIVATE_DATA_MAX;
        }
        rv_put32(o, E_RESPONDER_RESOURCES, conn->responder_resources);
        rv_put32(o, E_INITIATOR_DEPTH, conn->initiator_depth);
        rv_put32(o, E_PRIVATE_DATA_LEN, length);
        rv_put32(o, E_QP_NUM, (int32_t)conn->qp_num);
        if (length > 0)
        {
            memcpy(o + E_PRIVATE_DATA, conn->private_data, (size_t)length);
        }
    }
    else if (NULL != event->id && (event->event == RDMA_CM_EVENT_MULTICAST_JOIN ||
        event->event == RDMA_CM_EVENT_MULTICAST_ERROR))
    {
        /* param.ud lives in the event, which the ack frees: copied out first */
        put_ud_param(o, &event->param.ud);
    }
    rdma_ack_cm_event(event);
    return 1;
}

/* What an id is bound to: its device context, port, local and remote addresses, and queue pair. */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_idInfo(JNIEnv *env, jclass cls, jlong id, jlong out)
{
    UNUSED_JNI;
    if (id == 0 || out == 0)
    {
        return -EINVAL;
    }
    struct rdma_cm_id *cm_id = (struct rdma_cm_id *)AS_PTR(id);
    uint8_t *o = (uint8_t *)AS_PTR(out);
    memset(o, 0, I_SIZE);
    rv_put64(o, I_VERBS, AS_HANDLE(cm_id->verbs));
    rv_put32(o, I_PORT, cm_id->port_num);
    from_sockaddr(rdma_get_local_addr(cm_id), o, I_LOCAL_FAMILY, I_LOCAL_PORT, I_LOCAL_ADDR);
    from_sockaddr(rdma_get_peer_addr(cm_id), o, I_REMOTE_FAMILY, I_REMOTE_PORT, I_REMOTE_ADDR);
    rv_put64(o, I_QP, AS_HANDLE(cm_id->qp));
    return 0;
}

JNIEXPORT jstring JNICALL Java_io_rivulet_transport_rdma_jni_RdmaCm_eventName(JNIEnv *env, jclass cls, jint type)
{
    (void)cls;
    return (*env)->NewStringUTF(env, rdma_event_str((enum rdma_cm_event_type)type));
}
