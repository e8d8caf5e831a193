/*
 * librivulet-verbs: the verbs DiSNI 2.1 lacks (UD queue pairs, address handles, multicast attachment,
 * atomics), called from io.rivulet.transport.rdma.disni.NativeVerbs on DiSNI's own native objects.
 *
 * DiSNI's NatObject.getObjId() is the C pointer of the ibv_pd / ibv_cq / ibv_qp / ibv_context /
 * rdma_cm_id it wraps (libdisni's createObjectId casts the pointer, see zrlio/disni
 * libdisni/src/verbs/com_ibm_disni_verbs_impl_NativeDispatcher.cpp), so these functions take those
 * pointers as jlongs. Every function takes and
 * returns primitives only (no JNI object access, no allocation on the Java side) and reports failure
 * as a negative errno, which NativeVerbs turns into a VerbsException naming the call and strerror.
 * Functions that return a pointer return it as a positive jlong (user-space addresses are below 2^63).
 *
 * Send work requests are passed as the address of a fixed-layout descriptor that Java fills in place
 * (see NativeWorkRequest for the same offsets); the layout is checked at start-up by
 * NativeVerbs.descriptorSize() and by the round-trip test through decodeSendWr.
 */
/* selects GNU strerror_r, which returns the text */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <jni.h>

#if defined(__has_include)
#if __has_include(<rdma/rdma_cma.h>)
#include <rdma/rdma_cma.h>
#define RIVULET_HAVE_RDMA_CM 1
#endif
#endif

#include "io_rivulet_transport_rdma_disni_NativeVerbs.h"

/* Bumped whenever a signature or the descriptor layout changes; NativeVerbs checks it on load. */
#define RIVULET_ABI_VERSION 1
#define RIVULET_MAX_SGE 4

/* Send descriptor layout (bytes); NativeWorkRequest mirrors these offsets. */
#define D_WR_ID 0
#define D_OPCODE 8
#define D_SEND_FLAGS 12
#define D_IMM_DATA 16
#define D_NUM_SGE 20
#define D_REMOTE_ADDR 24
#define D_RKEY 32
#define D_REMOTE_QPN 36
#define D_REMOTE_QKEY 40
#define D_COMPARE_ADD 48
#define D_SWAP 56
#define D_AH 64
#define D_SGE 72
#define D_SGE_SIZE 16
#define D_SIZE (D_SGE + RIVULET_MAX_SGE * D_SGE_SIZE)

/* Port descriptor written by queryPort (ints). */
#define P_STATE 0
#define P_LID 4
#define P_GID_TABLE 8
#define P_ACTIVE_MTU 12
#define P_MAX_MSG 16
#define P_LINK_LAYER 20
#define P_SIZE 24

#define AS_PTR(handle) ((void *)(intptr_t)(handle))
#define AS_HANDLE(ptr) ((jlong)(intptr_t)(ptr))

static int64_t get64(const uint8_t *base, int offset)
{
    int64_t value;
    memcpy(&value, base + offset, sizeof value);
    return value;
}

static int32_t get32(const uint8_t *base, int offset)
{
    int32_t value;
    memcpy(&value, base + offset, sizeof value);
    return value;
}

static void put64(uint8_t *base, int offset, int64_t value)
{
    memcpy(base + offset, &value, sizeof value);
}

static void put32(uint8_t *base, int offset, int32_t value)
{
    memcpy(base + offset, &value, sizeof value);
}

/* errno of a failed call that returns NULL; never 0, so a failure is never reported as success. */
static jlong failed_pointer(void)
{
    return errno > 0 ? -(jlong)errno : -(jlong)EIO;
}

/* rdma-core's int-returning verbs return the errno value (some return -1 and set errno). */
static jint failed_status(int rc)
{
    if (rc > 0)
    {
        return -rc;
    }
    return errno > 0 ? -errno : -EIO;
}

static void gid_from(jlong high, jlong low, union ibv_gid *gid)
{
    for (int i = 0; i < 8; i++)
    {
        gid->raw[i] = (uint8_t)((uint64_t)high >> (56 - 8 * i));
        gid->raw[8 + i] = (uint8_t)((uint64_t)low >> (56 - 8 * i));
    }
}

static int is_known_opcode(int32_t opcode)
{
    switch (opcode)
    {
        case IBV_WR_SEND:
        case IBV_WR_SEND_WITH_IMM:
        case IBV_WR_RDMA_WRITE:
        case IBV_WR_RDMA_WRITE_WITH_IMM:
        case IBV_WR_RDMA_READ:
        case IBV_WR_ATOMIC_CMP_AND_SWP:
        case IBV_WR_ATOMIC_FETCH_AND_ADD:
            return 1;
        default:
            return 0;
    }
}

static int is_atomic(int32_t opcode)
{
    return opcode == IBV_WR_ATOMIC_CMP_AND_SWP || opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * Builds an ibv_send_wr from a descriptor. A non-zero address handle makes it a UD send (only SEND
 * and SEND_WITH_IMM); otherwise RDMA or atomic fields are filled by opcode. Returns 0 or -EINVAL.
 */
static int build_send_wr(const uint8_t *d, struct ibv_send_wr *wr, struct ibv_sge *sges)
{
    const int32_t opcode = get32(d, D_OPCODE);
    const int32_t num_sge = get32(d, D_NUM_SGE);
    const int64_t ah = get64(d, D_AH);

    if (!is_known_opcode(opcode) || num_sge < 0 || num_sge > RIVULET_MAX_SGE)
    {
        return -EINVAL;
    }
    memset(wr, 0, sizeof *wr);
    wr->wr_id = (uint64_t)get64(d, D_WR_ID);
    wr->opcode = (enum ibv_wr_opcode)opcode;
    wr->send_flags = (unsigned int)get32(d, D_SEND_FLAGS);
    wr->num_sge = num_sge;
    wr->sg_list = num_sge > 0 ? sges : NULL;
    for (int i = 0; i < num_sge; i++)
    {
        const int offset = D_SGE + i * D_SGE_SIZE;
        sges[i].addr = (uint64_t)get64(d, offset);
        sges[i].length = (uint32_t)get32(d, offset + 8);
        sges[i].lkey = (uint32_t)get32(d, offset + 12);
    }
    if (opcode == IBV_WR_SEND_WITH_IMM || opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
    {
        wr->imm_data = htonl((uint32_t)get32(d, D_IMM_DATA));
    }

    if (ah != 0)
    {
        if (opcode != IBV_WR_SEND && opcode != IBV_WR_SEND_WITH_IMM)
        {
            return -EINVAL;
        }
        wr->wr.ud.ah = (struct ibv_ah *)AS_PTR(ah);
        wr->wr.ud.remote_qpn = (uint32_t)get32(d, D_REMOTE_QPN);
        wr->wr.ud.remote_qkey = (uint32_t)get32(d, D_REMOTE_QKEY);
    }
    else if (is_atomic(opcode))
    {
        const uint64_t remote_addr = (uint64_t)get64(d, D_REMOTE_ADDR);
        /* the device writes the 8-byte original value into exactly one 8-byte local SGE */
        if (num_sge != 1 || sges[0].length != 8 || (remote_addr & 7) != 0)
        {
            return -EINVAL;
        }
        wr->wr.atomic.remote_addr = remote_addr;
        wr->wr.atomic.rkey = (uint32_t)get32(d, D_RKEY);
        wr->wr.atomic.compare_add = (uint64_t)get64(d, D_COMPARE_ADD);
        wr->wr.atomic.swap = (uint64_t)get64(d, D_SWAP);
    }
    else if (opcode != IBV_WR_SEND && opcode != IBV_WR_SEND_WITH_IMM)
    {
        wr->wr.rdma.remote_addr = (uint64_t)get64(d, D_REMOTE_ADDR);
        wr->wr.rdma.rkey = (uint32_t)get32(d, D_RKEY);
    }
    return 0;
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_abiVersion(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    return RIVULET_ABI_VERSION;
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_descriptorSize(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    return D_SIZE;
}

JNIEXPORT jstring JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_errnoText(
    JNIEnv *env, jclass cls, jint error)
{
    char buffer[256];
    (void)cls;
    /* the returned text may or may not be the buffer */
    const char *text = strerror_r(error, buffer, sizeof buffer);
    return (*env)->NewStringUTF(env, text);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_deviceCount(JNIEnv *env, jclass cls)
{
    int count = 0;
    struct ibv_device **devices;
    (void)env;
    (void)cls;
    errno = 0;
    devices = ibv_get_device_list(&count);
    if (NULL == devices)
    {
        return errno > 0 ? -errno : -ENODEV;
    }
    ibv_free_device_list(devices);
    return count;
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_cmIdPort(JNIEnv *env, jclass cls, jlong id)
{
    (void)env;
    (void)cls;
    if (id == 0)
    {
        return -EINVAL;
    }
#ifdef RIVULET_HAVE_RDMA_CM
    return ((struct rdma_cm_id *)AS_PTR(id))->port_num;
#else
    return -ENOSYS;
#endif
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_queryPort(
    JNIEnv *env, jclass cls, jlong context, jint port, jlong out)
{
    struct ibv_port_attr attr;
    int rc;
    (void)env;
    (void)cls;
    if (context == 0 || out == 0 || port < 1 || port > 255)
    {
        return -EINVAL;
    }
    memset(&attr, 0, sizeof attr);
    rc = ibv_query_port((struct ibv_context *)AS_PTR(context), (uint8_t)port, &attr);
    if (rc != 0)
    {
        return failed_status(rc);
    }
    uint8_t *o = (uint8_t *)AS_PTR(out);
    put32(o, P_STATE, attr.state);
    put32(o, P_LID, attr.lid);
    put32(o, P_GID_TABLE, attr.gid_tbl_len);
    put32(o, P_ACTIVE_MTU, 128 << attr.active_mtu);
    put32(o, P_MAX_MSG, (int32_t)(attr.max_msg_sz > INT32_MAX ? INT32_MAX : attr.max_msg_sz));
    put32(o, P_LINK_LAYER, attr.link_layer);
    return 0;
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_queryGid(
    JNIEnv *env, jclass cls, jlong context, jint port, jint index, jlong out)
{
    union ibv_gid gid;
    int rc;
    (void)env;
    (void)cls;
    if (context == 0 || out == 0 || port < 1 || port > 255 || index < 0)
    {
        return -EINVAL;
    }
    rc = ibv_query_gid((struct ibv_context *)AS_PTR(context), (uint8_t)port, index, &gid);
    if (rc != 0)
    {
        return failed_status(rc);
    }
    memcpy(AS_PTR(out), gid.raw, sizeof gid.raw);
    return 0;
}

JNIEXPORT jlong JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_createUdQp(
    JNIEnv *env, jclass cls, jlong pd, jlong send_cq, jlong recv_cq, jint max_send_wr, jint max_recv_wr,
    jint max_inline)
{
    struct ibv_qp_init_attr attr;
    struct ibv_qp *qp;
    (void)env;
    (void)cls;
    if (pd == 0 || send_cq == 0 || recv_cq == 0 || max_send_wr < 1 || max_recv_wr < 1 || max_inline < 0)
    {
        return -EINVAL;
    }
    memset(&attr, 0, sizeof attr);
    attr.send_cq = (struct ibv_cq *)AS_PTR(send_cq);
    attr.recv_cq = (struct ibv_cq *)AS_PTR(recv_cq);
    attr.qp_type = IBV_QPT_UD;
    attr.sq_sig_all = 0;
    attr.cap.max_send_wr = (uint32_t)max_send_wr;
    attr.cap.max_recv_wr = (uint32_t)max_recv_wr;
    attr.cap.max_send_sge = RIVULET_MAX_SGE;
    attr.cap.max_recv_sge = 1;
    attr.cap.max_inline_data = (uint32_t)max_inline;
    errno = 0;
    qp = ibv_create_qp((struct ibv_pd *)AS_PTR(pd), &attr);
    return NULL == qp ? failed_pointer() : AS_HANDLE(qp);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_modifyUdQpToInit(
    JNIEnv *env, jclass cls, jlong qp, jint port, jint qkey, jint pkey_index)
{
    struct ibv_qp_attr attr;
    (void)env;
    (void)cls;
    if (qp == 0 || port < 1 || port > 255 || pkey_index < 0 || pkey_index > 0xffff)
    {
        return -EINVAL;
    }
    memset(&attr, 0, sizeof attr);
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = (uint16_t)pkey_index;
    attr.port_num = (uint8_t)port;
    attr.qkey = (uint32_t)qkey;
    errno = 0;
    const int rc = ibv_modify_qp((struct ibv_qp *)AS_PTR(qp), &attr,
        IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
    return rc == 0 ? 0 : failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_modifyUdQpToRtr(
    JNIEnv *env, jclass cls, jlong qp)
{
    struct ibv_qp_attr attr;
    (void)env;
    (void)cls;
    if (qp == 0)
    {
        return -EINVAL;
    }
    memset(&attr, 0, sizeof attr);
    attr.qp_state = IBV_QPS_RTR;
    errno = 0;
    const int rc = ibv_modify_qp((struct ibv_qp *)AS_PTR(qp), &attr, IBV_QP_STATE);
    return rc == 0 ? 0 : failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_modifyUdQpToRts(
    JNIEnv *env, jclass cls, jlong qp, jint sq_psn)
{
    struct ibv_qp_attr attr;
    (void)env;
    (void)cls;
    if (qp == 0 || sq_psn < 0 || sq_psn > 0xffffff)
    {
        return -EINVAL;
    }
    memset(&attr, 0, sizeof attr);
    attr.qp_state = IBV_QPS_RTS;
    attr.sq_psn = (uint32_t)sq_psn;
    errno = 0;
    const int rc = ibv_modify_qp((struct ibv_qp *)AS_PTR(qp), &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);
    return rc == 0 ? 0 : failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_qpNumber(JNIEnv *env, jclass cls, jlong qp)
{
    (void)env;
    (void)cls;
    if (qp == 0)
    {
        return -EINVAL;
    }
    return (jint)((struct ibv_qp *)AS_PTR(qp))->qp_num;
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_destroyQp(JNIEnv *env, jclass cls, jlong qp)
{
    (void)env;
    (void)cls;
    if (qp == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = ibv_destroy_qp((struct ibv_qp *)AS_PTR(qp));
    return rc == 0 ? 0 : failed_status(rc);
}

JNIEXPORT jlong JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_createAh(
    JNIEnv *env, jclass cls, jlong pd, jlong gid_high, jlong gid_low, jint lid, jint port, jint sgid_index,
    jint hop_limit, jint service_level)
{
    struct ibv_ah_attr attr;
    struct ibv_ah *ah;
    (void)env;
    (void)cls;
    if (pd == 0 || lid < 0 || lid > 0xffff || port < 1 || port > 255 || sgid_index < 0 || sgid_index > 255 ||
        hop_limit < 0 || hop_limit > 255 || service_level < 0 || service_level > 15)
    {
        return -EINVAL;
    }
    memset(&attr, 0, sizeof attr);
    attr.dlid = (uint16_t)lid;
    attr.sl = (uint8_t)service_level;
    attr.port_num = (uint8_t)port;
    /* RoCE needs the GRH; on InfiniBand a zero GID means a LID-routed destination in the same subnet */
    if (gid_high != 0 || gid_low != 0)
    {
        attr.is_global = 1;
        gid_from(gid_high, gid_low, &attr.grh.dgid);
        attr.grh.sgid_index = (uint8_t)sgid_index;
        attr.grh.hop_limit = (uint8_t)hop_limit;
    }
    errno = 0;
    ah = ibv_create_ah((struct ibv_pd *)AS_PTR(pd), &attr);
    return NULL == ah ? failed_pointer() : AS_HANDLE(ah);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_destroyAh(JNIEnv *env, jclass cls, jlong ah)
{
    (void)env;
    (void)cls;
    if (ah == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = ibv_destroy_ah((struct ibv_ah *)AS_PTR(ah));
    return rc == 0 ? 0 : failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_attachMulticast(
    JNIEnv *env, jclass cls, jlong qp, jlong gid_high, jlong gid_low, jint lid)
{
    union ibv_gid gid;
    (void)env;
    (void)cls;
    if (qp == 0 || lid < 0 || lid > 0xffff)
    {
        return -EINVAL;
    }
    gid_from(gid_high, gid_low, &gid);
    errno = 0;
    const int rc = ibv_attach_mcast((struct ibv_qp *)AS_PTR(qp), &gid, (uint16_t)lid);
    return rc == 0 ? 0 : failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_detachMulticast(
    JNIEnv *env, jclass cls, jlong qp, jlong gid_high, jlong gid_low, jint lid)
{
    union ibv_gid gid;
    (void)env;
    (void)cls;
    if (qp == 0 || lid < 0 || lid > 0xffff)
    {
        return -EINVAL;
    }
    gid_from(gid_high, gid_low, &gid);
    errno = 0;
    const int rc = ibv_detach_mcast((struct ibv_qp *)AS_PTR(qp), &gid, (uint16_t)lid);
    return rc == 0 ? 0 : failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_postSend(
    JNIEnv *env, jclass cls, jlong qp, jlong descriptor)
{
    struct ibv_send_wr wr;
    struct ibv_send_wr *bad = NULL;
    struct ibv_sge sges[RIVULET_MAX_SGE];
    (void)env;
    (void)cls;
    if (qp == 0 || descriptor == 0)
    {
        return -EINVAL;
    }
    const int built = build_send_wr((const uint8_t *)AS_PTR(descriptor), &wr, sges);
    if (built != 0)
    {
        return built;
    }
    errno = 0;
    const int rc = ibv_post_send((struct ibv_qp *)AS_PTR(qp), &wr, &bad);
    return rc == 0 ? 0 : failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_postReceive(
    JNIEnv *env, jclass cls, jlong qp, jlong wr_id, jlong address, jint length, jint lkey)
{
    struct ibv_recv_wr wr;
    struct ibv_recv_wr *bad = NULL;
    struct ibv_sge sge;
    (void)env;
    (void)cls;
    if (qp == 0 || length < 0)
    {
        return -EINVAL;
    }
    sge.addr = (uint64_t)address;
    sge.length = (uint32_t)length;
    sge.lkey = (uint32_t)lkey;
    memset(&wr, 0, sizeof wr);
    wr.wr_id = (uint64_t)wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    errno = 0;
    const int rc = ibv_post_recv((struct ibv_qp *)AS_PTR(qp), &wr, &bad);
    return rc == 0 ? 0 : failed_status(rc);
}

/*
 * Builds the ibv_send_wr postSend would post and writes its fields back in descriptor layout, read from
 * the ibv_send_wr union member the opcode selects: proves, without a device, that Java's offsets and
 * the C mapping agree (atomics reach wr.atomic, UD fields reach wr.ud).
 */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_disni_NativeVerbs_decodeSendWr(
    JNIEnv *env, jclass cls, jlong descriptor, jlong out)
{
    struct ibv_send_wr wr;
    struct ibv_sge sges[RIVULET_MAX_SGE];
    (void)env;
    (void)cls;
    if (descriptor == 0 || out == 0)
    {
        return -EINVAL;
    }
    const uint8_t *d = (const uint8_t *)AS_PTR(descriptor);
    const int built = build_send_wr(d, &wr, sges);
    if (built != 0)
    {
        return built;
    }
    uint8_t *o = (uint8_t *)AS_PTR(out);
    memset(o, 0, D_SIZE);
    put64(o, D_WR_ID, (int64_t)wr.wr_id);
    put32(o, D_OPCODE, wr.opcode);
    put32(o, D_SEND_FLAGS, (int32_t)wr.send_flags);
    put32(o, D_IMM_DATA, (int32_t)ntohl(wr.imm_data));
    put32(o, D_NUM_SGE, wr.num_sge);
    for (int i = 0; i < wr.num_sge; i++)
    {
        put64(o, D_SGE + i * D_SGE_SIZE, (int64_t)wr.sg_list[i].addr);
        put32(o, D_SGE + i * D_SGE_SIZE + 8, (int32_t)wr.sg_list[i].length);
        put32(o, D_SGE + i * D_SGE_SIZE + 12, (int32_t)wr.sg_list[i].lkey);
    }
    if (get64(d, D_AH) != 0)
    {
        put64(o, D_AH, AS_HANDLE(wr.wr.ud.ah));
        put32(o, D_REMOTE_QPN, (int32_t)wr.wr.ud.remote_qpn);
        put32(o, D_REMOTE_QKEY, (int32_t)wr.wr.ud.remote_qkey);
    }
    else if (is_atomic(wr.opcode))
    {
        put64(o, D_REMOTE_ADDR, (int64_t)wr.wr.atomic.remote_addr);
        put32(o, D_RKEY, (int32_t)wr.wr.atomic.rkey);
        put64(o, D_COMPARE_ADD, (int64_t)wr.wr.atomic.compare_add);
        put64(o, D_SWAP, (int64_t)wr.wr.atomic.swap);
    }
    else if (wr.opcode != IBV_WR_SEND && wr.opcode != IBV_WR_SEND_WITH_IMM)
    {
        put64(o, D_REMOTE_ADDR, (int64_t)wr.wr.rdma.remote_addr);
        put32(o, D_RKEY, (int32_t)wr.wr.rdma.rkey);
    }
    return 0;
}
