/*
 * io.rivulet.transport.rdma.jni.Verbs: libibverbs for the ibverbs provider, and for what DiSNI lacks.
 * See rivulet_verbs.h for the conventions and layouts.
 */
#include "rivulet_verbs.h"

#include <stdlib.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "io_rivulet_transport_rdma_jni_Verbs.h"

#define UNUSED_JNI (void)env; (void)cls

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
 * Builds an ibv_send_wr from a descriptor. A non-zero address handle makes it a UD send (only SEND and
 * SEND_WITH_IMM); otherwise RDMA or atomic fields are filled by opcode. Returns 0 or -EINVAL.
 */
static int build_send_wr(const uint8_t *d, struct ibv_send_wr *wr, struct ibv_sge *sges)
{
    const int32_t opcode = rv_get32(d, D_OPCODE);
    const int32_t num_sge = rv_get32(d, D_NUM_SGE);
    const int64_t ah = rv_get64(d, D_AH);

    if (!is_known_opcode(opcode) || num_sge < 0 || num_sge > RIVULET_MAX_SGE)
    {
        return -EINVAL;
    }
    memset(wr, 0, sizeof *wr);
    wr->wr_id = (uint64_t)rv_get64(d, D_WR_ID);
    wr->opcode = (enum ibv_wr_opcode)opcode;
    wr->send_flags = (unsigned int)rv_get32(d, D_SEND_FLAGS);
    wr->num_sge = num_sge;
    wr->sg_list = num_sge > 0 ? sges : NULL;
    for (int i = 0; i < num_sge; i++)
    {
        const int offset = D_SGE + i * D_SGE_SIZE;
        sges[i].addr = (uint64_t)rv_get64(d, offset);
        sges[i].length = (uint32_t)rv_get32(d, offset + 8);
        sges[i].lkey = (uint32_t)rv_get32(d, offset + 12);
    }
    if (opcode == IBV_WR_SEND_WITH_IMM || opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
    {
        /* the wire carries immediate data big-endian; Java hands over the value */
        wr->imm_data = htonl((uint32_t)rv_get32(d, D_IMM_DATA));
    }

    if (ah != 0)
    {
        if (opcode != IBV_WR_SEND && opcode != IBV_WR_SEND_WITH_IMM)
        {
            return -EINVAL;
        }
        wr->wr.ud.ah = (struct ibv_ah *)AS_PTR(ah);
        wr->wr.ud.remote_qpn = (uint32_t)rv_get32(d, D_REMOTE_QPN);
        wr->wr.ud.remote_qkey = (uint32_t)rv_get32(d, D_REMOTE_QKEY);
    }
    else if (is_atomic(opcode))
    {
        const uint64_t remote_addr = (uint64_t)rv_get64(d, D_REMOTE_ADDR);
        /* the device writes the 8-byte original value, in host order, into exactly one 8-byte local SGE */
        if (num_sge != 1 || sges[0].length != 8 || (remote_addr & 7) != 0)
        {
            return -EINVAL;
        }
        wr->wr.atomic.remote_addr = remote_addr;
        wr->wr.atomic.rkey = (uint32_t)rv_get32(d, D_RKEY);
        wr->wr.atomic.compare_add = (uint64_t)rv_get64(d, D_COMPARE_ADD);
        wr->wr.atomic.swap = (uint64_t)rv_get64(d, D_SWAP);
    }
    else if (opcode != IBV_WR_SEND && opcode != IBV_WR_SEND_WITH_IMM)
    {
        wr->wr.rdma.remote_addr = (uint64_t)rv_get64(d, D_REMOTE_ADDR);
        wr->wr.rdma.rkey = (uint32_t)rv_get32(d, D_RKEY);
    }
    return 0;
}

/* A failed chain post: the errno in the low 16 bits, the index of the first request not posted above them. */
static jint chain_failure(int error, int index)
{
    return -(jint)((error & 0xffff) | (index << 16));
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_abiVersion(JNIEnv *env, jclass cls)
{
    UNUSED_JNI;
    return RIVULET_ABI_VERSION;
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_layoutSize(JNIEnv *env, jclass cls, jint layout)
{
    UNUSED_JNI;
    switch (layout)
    {
        case LAYOUT_SEND: return D_SIZE;
        case LAYOUT_RECEIVE: return R_SIZE;
        case LAYOUT_COMPLETION: return C_SIZE;
        case LAYOUT_DEVICE: return A_SIZE;
        case LAYOUT_PORT: return P_SIZE;
        case LAYOUT_GID: return G_SIZE;
        case LAYOUT_QP: return Q_SIZE;
        case LAYOUT_MR: return M_SIZE;
        case LAYOUT_EVENT: return E_SIZE;
        case LAYOUT_ID_INFO: return I_SIZE;
        case LAYOUT_MAX_CHAIN: return RIVULET_MAX_CHAIN;
        case LAYOUT_UD: return U_SIZE;
        default: return -EINVAL;
    }
}

JNIEXPORT jstring JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_errnoText(JNIEnv *env, jclass cls, jint error)
{
    char buffer[256];
    (void)cls;
    /* the returned text may or may not be the buffer */
    const char *text = strerror_r(error, buffer, sizeof buffer);
    return (*env)->NewStringUTF(env, text);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_deviceCount(JNIEnv *env, jclass cls)
{
    int count = 0;
    struct ibv_device **devices;
    UNUSED_JNI;
    errno = 0;
    devices = ibv_get_device_list(&count);
    if (NULL == devices)
    {
        return errno > 0 ? -errno : -ENODEV;
    }
    ibv_free_device_list(devices);
    return count;
}

JNIEXPORT jobjectArray JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_deviceNames(JNIEnv *env, jclass cls)
{
    int count = 0;
    struct ibv_device **devices;
    (void)cls;
    jclass string_class = (*env)->FindClass(env, "java/lang/String");
    if (NULL == string_class)
    {
        return NULL;
    }
    devices = ibv_get_device_list(&count);
    if (NULL == devices)
    {
        count = 0;
    }
    jobjectArray names = (*env)->NewObjectArray(env, count, string_class, NULL);
    for (int i = 0; NULL != names && i < count; i++)
    {
        jstring name = (*env)->NewStringUTF(env, ibv_get_device_name(devices[i]));
        if (NULL == name)
        {
            names = NULL;
            break;
        }
        (*env)->SetObjectArrayElement(env, names, i, name);
        (*env)->DeleteLocalRef(env, name);
    }
    if (NULL != devices)
    {
        ibv_free_device_list(devices);
    }
    return names;
}

JNIEXPORT jstring JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_deviceName(JNIEnv *env, jclass cls, jlong context)
{
    (void)cls;
    if (context == 0)
    {
        return NULL;
    }
    const char *name = ibv_get_device_name(((struct ibv_context *)AS_PTR(context))->device);
    return NULL == name ? NULL : (*env)->NewStringUTF(env, name);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_queryDevice(
    JNIEnv *env, jclass cls, jlong context, jlong out)
{
    struct ibv_device_attr attr;
    UNUSED_JNI;
    if (context == 0 || out == 0)
    {
        return -EINVAL;
    }
    memset(&attr, 0, sizeof attr);
    errno = 0;
    const int rc = ibv_query_device((struct ibv_context *)AS_PTR(context), &attr);
    if (rc != 0)
    {
        return rv_failed_status(rc);
    }
    uint8_t *o = (uint8_t *)AS_PTR(out);
    rv_put32(o, A_MAX_QP_WR, attr.max_qp_wr);
    rv_put32(o, A_MAX_SGE, attr.max_sge);
    rv_put32(o, A_MAX_CQE, attr.max_cqe);
    rv_put32(o, A_MAX_QP_RD_ATOM, attr.max_qp_rd_atom);
    rv_put32(o, A_MAX_QP_INIT_RD_ATOM, attr.max_qp_init_rd_atom);
    rv_put32(o, A_ATOMIC_CAP, attr.atomic_cap);
    rv_put32(o, A_PHYS_PORT_CNT, attr.phys_port_cnt);
    rv_put32(o, A_MAX_QP, attr.max_qp);
    rv_put32(o, A_MAX_CQ, attr.max_cq);
    rv_put32(o, A_MAX_MR, attr.max_mr);
    rv_put32(o, A_MAX_PD, attr.max_pd);
    rv_put32(o, A_MAX_AH, attr.max_ah);
    rv_put32(o, A_VENDOR_ID, (int32_t)attr.vendor_id);
    rv_put32(o, A_VENDOR_PART_ID, (int32_t)attr.vendor_part_id);
    rv_put64(o, A_MAX_MR_SIZE, (int64_t)(attr.max_mr_size > INT64_MAX ? INT64_MAX : attr.max_mr_size));
    return 0;
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_queryPort(
    JNIEnv *env, jclass cls, jlong context, jint port, jlong out)
{
    struct ibv_port_attr attr;
    UNUSED_JNI;
    if (context == 0 || out == 0 || port < 1 || port > 255)
    {
        return -EINVAL;
    }
    memset(&attr, 0, sizeof attr);
    errno = 0;
    const int rc = ibv_query_port((struct ibv_context *)AS_PTR(context), (uint8_t)port, &attr);
    if (rc != 0)
    {
        return rv_failed_status(rc);
    }
    uint8_t *o = (uint8_t *)AS_PTR(out);
    rv_put32(o, P_STATE, attr.state);
    rv_put32(o, P_LID, attr.lid);
    rv_put32(o, P_GID_TABLE, attr.gid_tbl_len);
    rv_put32(o, P_ACTIVE_MTU, 128 << attr.active_mtu);
    rv_put32(o, P_MAX_MSG, (int32_t)(attr.max_msg_sz > INT32_MAX ? INT32_MAX : attr.max_msg_sz));
    rv_put32(o, P_LINK_LAYER, attr.link_layer);
    rv_put32(o, P_MAX_MTU, 128 << attr.max_mtu);
    return 0;
}

/*
 * One GID table entry with its type (ibv_query_gid_ex: IBV_GID_TYPE_IB 0, ROCE_V1 1, ROCE_V2 2) and the
 * ifindex of its network device. An empty entry is -ENODATA. Where the kernel cannot tell the type, the raw
 * GID comes from ibv_query_gid and the type is -1.
 */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_queryGid(
    JNIEnv *env, jclass cls, jlong context, jint port, jint index, jlong out)
{
    struct ibv_gid_entry entry;
    UNUSED_JNI;
    if (context == 0 || out == 0 || port < 1 || port > 255 || index < 0)
    {
        return -EINVAL;
    }
    uint8_t *o = (uint8_t *)AS_PTR(out);
    memset(&entry, 0, sizeof entry);
    errno = 0;
    int rc = ibv_query_gid_ex((struct ibv_context *)AS_PTR(context), (uint32_t)port, (uint32_t)index, &entry, 0);
    if (rc == 0)
    {
        memcpy(o + G_RAW, entry.gid.raw, 16);
        rv_put32(o, G_TYPE, (int32_t)entry.gid_type);
        rv_put32(o, G_IFINDEX, (int32_t)entry.ndev_ifindex);
        return 0;
    }
    if (rc == ENODATA)
    {
        return -ENODATA;
    }
    union ibv_gid gid;
    errno = 0;
    rc = ibv_query_gid((struct ibv_context *)AS_PTR(context), (uint8_t)port, index, &gid);
    if (rc != 0)
    {
        return rv_failed_status(rc);
    }
    memcpy(o + G_RAW, gid.raw, 16);
    rv_put32(o, G_TYPE, -1);
    rv_put32(o, G_IFINDEX, 0);
    return 0;
}

JNIEXPORT jlong JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_allocPd(JNIEnv *env, jclass cls, jlong context)
{
    UNUSED_JNI;
    if (context == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    struct ibv_pd *pd = ibv_alloc_pd((struct ibv_context *)AS_PTR(context));
    return NULL == pd ? rv_failed_pointer() : AS_HANDLE(pd);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_deallocPd(JNIEnv *env, jclass cls, jlong pd)
{
    UNUSED_JNI;
    if (pd == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = ibv_dealloc_pd((struct ibv_pd *)AS_PTR(pd));
    return rc == 0 ? 0 : rv_failed_status(rc);
}

JNIEXPORT jlong JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_regMr(
    JNIEnv *env, jclass cls, jlong pd, jlong address, jlong length, jint access, jlong out)
{
    UNUSED_JNI;
    if (pd == 0 || address == 0 || length <= 0 || out == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    struct ibv_mr *mr = ibv_reg_mr((struct ibv_pd *)AS_PTR(pd), AS_PTR(address), (size_t)length, access);
    if (NULL == mr)
    {
        return rv_failed_pointer();
    }
    uint8_t *o = (uint8_t *)AS_PTR(out);
    rv_put32(o, M_LKEY, (int32_t)mr->lkey);
    rv_put32(o, M_RKEY, (int32_t)mr->rkey);
    return AS_HANDLE(mr);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_deregMr(JNIEnv *env, jclass cls, jlong mr)
{
    UNUSED_JNI;
    if (mr == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = ibv_dereg_mr((struct ibv_mr *)AS_PTR(mr));
    return rc == 0 ? 0 : rv_failed_status(rc);
}

/* A completion queue without a completion channel: Rivulet busy-polls, it never waits for an event. */
JNIEXPORT jlong JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_createCq(
    JNIEnv *env, jclass cls, jlong context, jint entries)
{
    UNUSED_JNI;
    if (context == 0 || entries < 1)
    {
        return -EINVAL;
    }
    errno = 0;
    struct ibv_cq *cq = ibv_create_cq((struct ibv_context *)AS_PTR(context), entries, NULL, NULL, 0);
    return NULL == cq ? rv_failed_pointer() : AS_HANDLE(cq);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_cqEntries(JNIEnv *env, jclass cls, jlong cq)
{
    UNUSED_JNI;
    return cq == 0 ? -EINVAL : ((struct ibv_cq *)AS_PTR(cq))->cqe;
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_destroyCq(JNIEnv *env, jclass cls, jlong cq)
{
    UNUSED_JNI;
    if (cq == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = ibv_destroy_cq((struct ibv_cq *)AS_PTR(cq));
    return rc == 0 ? 0 : rv_failed_status(rc);
}

/*
 * Polls up to max completions into records at out (C_* layout). In an error completion only wr_id, status,
 * qp_num and vendor_err are defined, so only those are copied; the rest is zero.
 */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_pollCq(
    JNIEnv *env, jclass cls, jlong cq, jint max, jlong out)
{
    struct ibv_wc wcs[RIVULET_MAX_CHAIN];
    UNUSED_JNI;
    if (cq == 0 || out == 0 || max < 0)
    {
        return -EINVAL;
    }
    uint8_t *o = (uint8_t *)AS_PTR(out);
    int total = 0;
    while (total < max)
    {
        const int want = max - total < RIVULET_MAX_CHAIN ? max - total : RIVULET_MAX_CHAIN;
        const int polled = ibv_poll_cq((struct ibv_cq *)AS_PTR(cq), want, wcs);
        if (polled < 0)
        {
            return total > 0 ? total : -EIO;
        }
        for (int i = 0; i < polled; i++)
        {
            uint8_t *r = o + (size_t)(total + i) * C_SIZE;
            const struct ibv_wc *wc = &wcs[i];
            memset(r, 0, C_SIZE);
            rv_put64(r, C_WR_ID, (int64_t)wc->wr_id);
            rv_put32(r, C_STATUS, wc->status);
            rv_put32(r, C_VENDOR_ERR, (int32_t)wc->vendor_err);
            rv_put32(r, C_QP_NUM, (int32_t)wc->qp_num);
            if (wc->status == IBV_WC_SUCCESS)
            {
                rv_put32(r, C_OPCODE, wc->opcode);
                rv_put32(r, C_BYTE_LEN, (int32_t)wc->byte_len);
                rv_put32(r, C_IMM_DATA, (wc->wc_flags & IBV_WC_WITH_IMM) ? (int32_t)ntohl(wc->imm_data) : 0);
                rv_put32(r, C_SRC_QP, (int32_t)wc->src_qp);
                rv_put32(r, C_WC_FLAGS, (int32_t)wc->wc_flags);
                rv_put32(r, C_SLID, wc->slid);
            }
            else
            {
                rv_put32(r, C_OPCODE, -1);
            }
        }
        total += polled;
        if (polled < want)
        {
            break;
        }
    }
    return total;
}

void rv_write_caps(jlong out, const struct ibv_qp *qp, const struct ibv_qp_cap *cap)
{
    if (out != 0)
    {
        uint8_t *o = (uint8_t *)AS_PTR(out);
        rv_put32(o, Q_QP_NUM, (int32_t)qp->qp_num);
        rv_put32(o, Q_MAX_SEND_WR, (int32_t)cap->max_send_wr);
        rv_put32(o, Q_MAX_RECV_WR, (int32_t)cap->max_recv_wr);
        rv_put32(o, Q_MAX_SEND_SGE, (int32_t)cap->max_send_sge);
        rv_put32(o, Q_MAX_RECV_SGE, (int32_t)cap->max_recv_sge);
        rv_put32(o, Q_MAX_INLINE, (int32_t)cap->max_inline_data);
    }
}

int rv_init_qp_attr(
    struct ibv_qp_init_attr *attr, jlong send_cq, jlong recv_cq, jint type, jint max_send_wr, jint max_recv_wr,
    jint max_send_sge, jint max_recv_sge, jint max_inline)
{
    if (send_cq == 0 || recv_cq == 0 || (type != IBV_QPT_RC && type != IBV_QPT_UD) || max_send_wr < 1 ||
        max_recv_wr < 1 || max_send_sge < 1 || max_send_sge > RIVULET_MAX_SGE || max_recv_sge < 1 ||
        max_recv_sge > RIVULET_MAX_SGE || max_inline < 0)
    {
        return -EINVAL;
    }
    memset(attr, 0, sizeof *attr);
    attr->send_cq = (struct ibv_cq *)AS_PTR(send_cq);
    attr->recv_cq = (struct ibv_cq *)AS_PTR(recv_cq);
    attr->qp_type = (enum ibv_qp_type)type;
    attr->sq_sig_all = 0;
    attr->cap.max_send_wr = (uint32_t)max_send_wr;
    attr->cap.max_recv_wr = (uint32_t)max_recv_wr;
    attr->cap.max_send_sge = (uint32_t)max_send_sge;
    attr->cap.max_recv_sge = (uint32_t)max_recv_sge;
    attr->cap.max_inline_data = (uint32_t)max_inline;
    return 0;
}

/* ibv_create_qp (UD, or RC outside the connection manager); the granted capabilities go to out (Q_*). */
JNIEXPORT jlong JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_createQp(
    JNIEnv *env, jclass cls, jlong pd, jlong send_cq, jlong recv_cq, jint type, jint max_send_wr, jint max_recv_wr,
    jint max_send_sge, jint max_recv_sge, jint max_inline, jlong out)
{
    struct ibv_qp_init_attr attr;
    UNUSED_JNI;
    if (pd == 0 || rv_init_qp_attr(&attr, send_cq, recv_cq, type, max_send_wr, max_recv_wr, max_send_sge,
        max_recv_sge, max_inline) != 0)
    {
        return -EINVAL;
    }
    errno = 0;
    struct ibv_qp *qp = ibv_create_qp((struct ibv_pd *)AS_PTR(pd), &attr);
    if (NULL == qp)
    {
        return rv_failed_pointer();
    }
    rv_write_caps(out, qp, &attr.cap);
    return AS_HANDLE(qp);
}

/* A UD queue pair from RESET through INIT (port, P_Key index, Q_Key) and RTR to RTS; also after a reset. */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_udQpToRts(
    JNIEnv *env, jclass cls, jlong qp, jint port, jint pkey_index, jint qkey)
{
    struct ibv_qp_attr attr;
    UNUSED_JNI;
    if (qp == 0 || port < 1 || port > 255 || pkey_index < 0 || pkey_index > 0xffff)
    {
        return -EINVAL;
    }
    struct ibv_qp *q = (struct ibv_qp *)AS_PTR(qp);
    memset(&attr, 0, sizeof attr);
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = (uint16_t)pkey_index;
    attr.port_num = (uint8_t)port;
    attr.qkey = (uint32_t)qkey;
    errno = 0;
    int rc = ibv_modify_qp(q, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
    if (rc != 0)
    {
        return rv_failed_status(rc);
    }
    memset(&attr, 0, sizeof attr);
    attr.qp_state = IBV_QPS_RTR;
    errno = 0;
    rc = ibv_modify_qp(q, &attr, IBV_QP_STATE);
    if (rc != 0)
    {
        return rv_failed_status(rc);
    }
    memset(&attr, 0, sizeof attr);
    attr.qp_state = IBV_QPS_RTS;
    attr.sq_psn = 0;
    errno = 0;
    rc = ibv_modify_qp(q, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);
    return rc == 0 ? 0 : rv_failed_status(rc);
}

static jint modify_state(jlong qp, enum ibv_qp_state state)
{
    struct ibv_qp_attr attr;
    if (qp == 0)
    {
        return -EINVAL;
    }
    memset(&attr, 0, sizeof attr);
    attr.qp_state = state;
    errno = 0;
    const int rc = ibv_modify_qp((struct ibv_qp *)AS_PTR(qp), &attr, IBV_QP_STATE);
    return rc == 0 ? 0 : rv_failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_modifyQpToReset(JNIEnv *env, jclass cls, jlong qp)
{
    UNUSED_JNI;
    return modify_state(qp, IBV_QPS_RESET);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_modifyQpToError(JNIEnv *env, jclass cls, jlong qp)
{
    UNUSED_JNI;
    return modify_state(qp, IBV_QPS_ERR);
}

/* ibv_query_qp's current state (enum ibv_qp_state: RESET 0, INIT 1, RTR 2, RTS 3, SQD 4, SQE 5, ERR 6). */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_queryQpState(JNIEnv *env, jclass cls, jlong qp)
{
    struct ibv_qp_attr attr;
    struct ibv_qp_init_attr init;
    UNUSED_JNI;
    if (qp == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = ibv_query_qp((struct ibv_qp *)AS_PTR(qp), &attr, IBV_QP_STATE, &init);
    return rc == 0 ? (jint)attr.qp_state : rv_failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_qpNumber(JNIEnv *env, jclass cls, jlong qp)
{
    UNUSED_JNI;
    return qp == 0 ? -EINVAL : (jint)((struct ibv_qp *)AS_PTR(qp))->qp_num;
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_destroyQp(JNIEnv *env, jclass cls, jlong qp)
{
    UNUSED_JNI;
    if (qp == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = ibv_destroy_qp((struct ibv_qp *)AS_PTR(qp));
    return rc == 0 ? 0 : rv_failed_status(rc);
}

/*
 * ibv_create_ah. A zero GID means LID routing (InfiniBand within a subnet); any other sets the GRH with the
 * source GID index, hop limit and traffic class. May block while the kernel resolves the peer's MAC on RoCE:
 * the Java side keeps it off the duty cycle.
 */
JNIEXPORT jlong JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_createAh(
    JNIEnv *env, jclass cls, jlong pd, jlong gid_high, jlong gid_low, jint lid, jint port, jint sgid_index,
    jint hop_limit, jint traffic_class, jint service_level)
{
    struct ibv_ah_attr attr;
    UNUSED_JNI;
    if (pd == 0 || lid < 0 || lid > 0xffff || port < 1 || port > 255 || sgid_index < 0 || sgid_index > 255 ||
        hop_limit < 0 || hop_limit > 255 || traffic_class < 0 || traffic_class > 255 || service_level < 0 ||
        service_level > 15)
    {
        return -EINVAL;
    }
    memset(&attr, 0, sizeof attr);
    attr.dlid = (uint16_t)lid;
    attr.sl = (uint8_t)service_level;
    attr.port_num = (uint8_t)port;
    if (gid_high != 0 || gid_low != 0)
    {
        attr.is_global = 1;
        rv_gid_from(gid_high, gid_low, attr.grh.dgid.raw);
        attr.grh.sgid_index = (uint8_t)sgid_index;
        attr.grh.hop_limit = (uint8_t)hop_limit;
        attr.grh.traffic_class = (uint8_t)traffic_class;
    }
    errno = 0;
    struct ibv_ah *ah = ibv_create_ah((struct ibv_pd *)AS_PTR(pd), &attr);
    return NULL == ah ? rv_failed_pointer() : AS_HANDLE(ah);
}

/*
 * ibv_create_ah from the U_* attributes a UD id's event carried (RdmaCm.getEvent): for a multicast group, the join
 * event's ah_attr exactly as rdma_cm gave it (MGID, MLID, SL, rate, flow label, hop limit, source GID index), as
 * librdmacm's own examples do. Every field is range-checked first: -EINVAL before the PD is touched.
 */
JNIEXPORT jlong JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_createAhFromAttr(
    JNIEnv *env, jclass cls, jlong pd, jlong attributes)
{
    struct ibv_ah_attr attr;
    UNUSED_JNI;
    if (pd == 0 || attributes == 0)
    {
        return -EINVAL;
    }
    const uint8_t *u = (const uint8_t *)AS_PTR(attributes);
    const int32_t flow_label = rv_get32(u, U_FLOW_LABEL);
    const int32_t sgid_index = rv_get32(u, U_SGID_INDEX);
    const int32_t hop_limit = rv_get32(u, U_HOP_LIMIT);
    const int32_t traffic_class = rv_get32(u, U_TRAFFIC_CLASS);
    const int32_t dlid = rv_get32(u, U_DLID);
    const int32_t sl = rv_get32(u, U_SL);
    const int32_t src_path_bits = rv_get32(u, U_SRC_PATH_BITS);
    const int32_t static_rate = rv_get32(u, U_STATIC_RATE);
    const int32_t is_global = rv_get32(u, U_IS_GLOBAL);
    const int32_t port_num = rv_get32(u, U_PORT_NUM);
    if (flow_label < 0 || flow_label > 0xfffff || sgid_index < 0 || sgid_index > 255 || hop_limit < 0 ||
        hop_limit > 255 || traffic_class < 0 || traffic_class > 255 || dlid < 0 || dlid > 0xffff || sl < 0 || sl > 15 ||
        src_path_bits < 0 || src_path_bits > 127 || static_rate < 0 || static_rate > 255 || is_global < 0 ||
        is_global > 1 || port_num < 1 || port_num > 255)
    {
        return -EINVAL;
    }
    memset(&attr, 0, sizeof attr);
    memcpy(attr.grh.dgid.raw, u + U_DGID, 16);
    attr.grh.flow_label = (uint32_t)flow_label;
    attr.grh.sgid_index = (uint8_t)sgid_index;
    attr.grh.hop_limit = (uint8_t)hop_limit;
    attr.grh.traffic_class = (uint8_t)traffic_class;
    attr.dlid = (uint16_t)dlid;
    attr.sl = (uint8_t)sl;
    attr.src_path_bits = (uint8_t)src_path_bits;
    attr.static_rate = (uint8_t)static_rate;
    attr.is_global = (uint8_t)is_global;
    attr.port_num = (uint8_t)port_num;
    errno = 0;
    struct ibv_ah *ah = ibv_create_ah((struct ibv_pd *)AS_PTR(pd), &attr);
    return NULL == ah ? rv_failed_pointer() : AS_HANDLE(ah);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_destroyAh(JNIEnv *env, jclass cls, jlong ah)
{
    UNUSED_JNI;
    if (ah == 0)
    {
        return -EINVAL;
    }
    errno = 0;
    const int rc = ibv_destroy_ah((struct ibv_ah *)AS_PTR(ah));
    return rc == 0 ? 0 : rv_failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_attachMulticast(
    JNIEnv *env, jclass cls, jlong qp, jlong gid_high, jlong gid_low, jint lid)
{
    union ibv_gid gid;
    UNUSED_JNI;
    if (qp == 0 || lid < 0 || lid > 0xffff)
    {
        return -EINVAL;
    }
    rv_gid_from(gid_high, gid_low, gid.raw);
    errno = 0;
    const int rc = ibv_attach_mcast((struct ibv_qp *)AS_PTR(qp), &gid, (uint16_t)lid);
    return rc == 0 ? 0 : rv_failed_status(rc);
}

JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_detachMulticast(
    JNIEnv *env, jclass cls, jlong qp, jlong gid_high, jlong gid_low, jint lid)
{
    union ibv_gid gid;
    UNUSED_JNI;
    if (qp == 0 || lid < 0 || lid > 0xffff)
    {
        return -EINVAL;
    }
    rv_gid_from(gid_high, gid_low, gid.raw);
    errno = 0;
    const int rc = ibv_detach_mcast((struct ibv_qp *)AS_PTR(qp), &gid, (uint16_t)lid);
    return rc == 0 ? 0 : rv_failed_status(rc);
}

/*
 * ibv_post_send of count descriptors (1..RIVULET_MAX_CHAIN) as one linked chain. 0 when all were posted;
 * otherwise chain_failure(errno, index of the first not posted): the ones before it were posted.
 */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_postSend(
    JNIEnv *env, jclass cls, jlong qp, jlong descriptors, jint count)
{
    struct ibv_send_wr wrs[RIVULET_MAX_CHAIN];
    struct ibv_sge sges[RIVULET_MAX_CHAIN][RIVULET_MAX_SGE];
    struct ibv_send_wr *bad = NULL;
    UNUSED_JNI;
    if (qp == 0 || descriptors == 0 || count < 1 || count > RIVULET_MAX_CHAIN)
    {
        return chain_failure(EINVAL, 0);
    }
    const uint8_t *d = (const uint8_t *)AS_PTR(descriptors);
    for (int i = 0; i < count; i++)
    {
        if (build_send_wr(d + (size_t)i * D_SIZE, &wrs[i], sges[i]) != 0)
        {
            return chain_failure(EINVAL, i);
        }
        wrs[i].next = i + 1 < count ? &wrs[i + 1] : NULL;
    }
    errno = 0;
    const int rc = ibv_post_send((struct ibv_qp *)AS_PTR(qp), wrs, &bad);
    if (rc == 0)
    {
        return 0;
    }
    const int index = NULL == bad ? 0 : (int)(bad - wrs);
    return chain_failure(rc > 0 ? rc : (errno > 0 ? errno : EIO), index < 0 || index >= count ? 0 : index);
}

/* ibv_post_recv of count single-SGE descriptors (R_* layout) as one chain; results as postSend. */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_postRecv(
    JNIEnv *env, jclass cls, jlong qp, jlong descriptors, jint count)
{
    struct ibv_recv_wr wrs[RIVULET_MAX_CHAIN];
    struct ibv_sge sges[RIVULET_MAX_CHAIN];
    struct ibv_recv_wr *bad = NULL;
    UNUSED_JNI;
    if (qp == 0 || descriptors == 0 || count < 1 || count > RIVULET_MAX_CHAIN)
    {
        return chain_failure(EINVAL, 0);
    }
    const uint8_t *d = (const uint8_t *)AS_PTR(descriptors);
    for (int i = 0; i < count; i++)
    {
        const uint8_t *r = d + (size_t)i * R_SIZE;
        const int32_t length = rv_get32(r, R_LENGTH);
        if (length < 0)
        {
            return chain_failure(EINVAL, i);
        }
        sges[i].addr = (uint64_t)rv_get64(r, R_ADDR);
        sges[i].length = (uint32_t)length;
        sges[i].lkey = (uint32_t)rv_get32(r, R_LKEY);
        memset(&wrs[i], 0, sizeof wrs[i]);
        wrs[i].wr_id = (uint64_t)rv_get64(r, R_WR_ID);
        wrs[i].sg_list = &sges[i];
        wrs[i].num_sge = 1;
        wrs[i].next = i + 1 < count ? &wrs[i + 1] : NULL;
    }
    errno = 0;
    const int rc = ibv_post_recv((struct ibv_qp *)AS_PTR(qp), wrs, &bad);
    if (rc == 0)
    {
        return 0;
    }
    const int index = NULL == bad ? 0 : (int)(bad - wrs);
    return chain_failure(rc > 0 ? rc : (errno > 0 ? errno : EIO), index < 0 || index >= count ? 0 : index);
}

/*
 * Builds the ibv_send_wr postSend would post and writes its fields back in descriptor layout, read from the
 * union member the opcode selects: proves, without a device, that Java's offsets and the C mapping agree
 * (atomics reach wr.atomic, UD fields reach wr.ud, immediate data goes big-endian).
 */
JNIEXPORT jint JNICALL Java_io_rivulet_transport_rdma_jni_Verbs_decodeSendWr(
    JNIEnv *env, jclass cls, jlong descriptor, jlong out)
{
    struct ibv_send_wr wr;
    struct ibv_sge sges[RIVULET_MAX_SGE];
    UNUSED_JNI;
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
    rv_put64(o, D_WR_ID, (int64_t)wr.wr_id);
    rv_put32(o, D_OPCODE, wr.opcode);
    rv_put32(o, D_SEND_FLAGS, (int32_t)wr.send_flags);
    rv_put32(o, D_IMM_DATA, (int32_t)wr.imm_data);
    rv_put32(o, D_NUM_SGE, wr.num_sge);
    for (int i = 0; i < wr.num_sge; i++)
    {
        rv_put64(o, D_SGE + i * D_SGE_SIZE, (int64_t)wr.sg_list[i].addr);
        rv_put32(o, D_SGE + i * D_SGE_SIZE + 8, (int32_t)wr.sg_list[i].length);
        rv_put32(o, D_SGE + i * D_SGE_SIZE + 12, (int32_t)wr.sg_list[i].lkey);
    }
    if (rv_get64(d, D_AH) != 0)
    {
        rv_put64(o, D_AH, AS_HANDLE(wr.wr.ud.ah));
        rv_put32(o, D_REMOTE_QPN, (int32_t)wr.wr.ud.remote_qpn);
        rv_put32(o, D_REMOTE_QKEY, (int32_t)wr.wr.ud.remote_qkey);
    }
    else if (is_atomic(wr.opcode))
    {
        rv_put64(o, D_REMOTE_ADDR, (int64_t)wr.wr.atomic.remote_addr);
        rv_put32(o, D_RKEY, (int32_t)wr.wr.atomic.rkey);
        rv_put64(o, D_COMPARE_ADD, (int64_t)wr.wr.atomic.compare_add);
        rv_put64(o, D_SWAP, (int64_t)wr.wr.atomic.swap);
    }
    else if (wr.opcode != IBV_WR_SEND && wr.opcode != IBV_WR_SEND_WITH_IMM)
    {
        rv_put64(o, D_REMOTE_ADDR, (int64_t)wr.wr.rdma.remote_addr);
        rv_put32(o, D_RKEY, (int32_t)wr.wr.rdma.rkey);
    }
    return 0;
}
