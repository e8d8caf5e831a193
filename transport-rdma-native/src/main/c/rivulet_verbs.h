/*
 * librivulet-verbs: Rivulet's JNI binding to rdma-core (libibverbs and librdmacm).
 *
 * Two Java classes call into it: io.rivulet.transport.rdma.jni.Verbs (verbs.c: devices, protection domains,
 * memory regions, completion queues, queue pairs, address handles, posting and polling) and
 * io.rivulet.transport.rdma.jni.RdmaCm (rdma_cm.c: the connection manager). The ibverbs provider uses both for
 * everything; the disni provider uses Verbs for what DiSNI 2.1 lacks, on DiSNI's own objects (its
 * NatObject.getObjId() is the C pointer of the ibv_pd, ibv_cq, ibv_qp, ibv_context or rdma_cm_id it wraps).
 *
 * Conventions, kept by every function:
 * - arguments and results are primitives only: no JNI object access and no Java allocation on any path the
 *   engine takes per message (strings are made only for error text and device names, on the control path);
 * - pointers travel as jlong handles; a function that makes one returns it as a positive jlong (user-space
 *   addresses are below 2^63) and failure as -errno;
 * - failure is -errno, never 0; argument checks return -EINVAL;
 * - structured input and output go through memory Java owns (a direct buffer), at offsets defined below and
 *   mirrored by the Java side, which checks the sizes at load time (Verbs.layoutSize).
 */
#ifndef RIVULET_VERBS_H
#define RIVULET_VERBS_H

/* selects GNU strerror_r, which returns the text */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <jni.h>

/* Bumped whenever a signature or a layout changes; the Java side checks it when it loads the library. */
#define RIVULET_ABI_VERSION 3
#define RIVULET_MAX_SGE 4
/* The longest chain of work requests posted with one call, and the most completions polled at once. */
#define RIVULET_MAX_CHAIN 64

/* Send descriptor (one per work request of a chain): io.rivulet.transport.rdma.jni.SendChain mirrors it. */
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

/* Receive descriptor (one SGE): io.rivulet.transport.rdma.jni.ReceiveChain mirrors it. */
#define R_WR_ID 0
#define R_ADDR 8
#define R_LENGTH 16
#define R_LKEY 20
#define R_SIZE 24

/* Completion record written by pollCq: io.rivulet.transport.rdma.jni.CompletionBatch mirrors it. */
#define C_WR_ID 0
#define C_STATUS 8
#define C_OPCODE 12
#define C_VENDOR_ERR 16
#define C_BYTE_LEN 20
#define C_IMM_DATA 24
#define C_QP_NUM 28
#define C_SRC_QP 32
#define C_WC_FLAGS 36
#define C_SLID 40
#define C_SIZE 48

/* Device attributes written by queryDevice (ints, then one long). */
#define A_MAX_QP_WR 0
#define A_MAX_SGE 4
#define A_MAX_CQE 8
#define A_MAX_QP_RD_ATOM 12
#define A_MAX_QP_INIT_RD_ATOM 16
#define A_ATOMIC_CAP 20
#define A_PHYS_PORT_CNT 24
#define A_MAX_QP 28
#define A_MAX_CQ 32
#define A_MAX_MR 36
#define A_MAX_PD 40
#define A_MAX_AH 44
#define A_VENDOR_ID 48
#define A_VENDOR_PART_ID 52
#define A_MAX_MR_SIZE 56
#define A_SIZE 64

/* Port attributes written by queryPort (ints). */
#define P_STATE 0
#define P_LID 4
#define P_GID_TABLE 8
#define P_ACTIVE_MTU 12
#define P_MAX_MSG 16
#define P_LINK_LAYER 20
#define P_MAX_MTU 24
#define P_SIZE 28

/* GID entry written by queryGid: 16 raw bytes, then the type and the network device's ifindex. */
#define G_RAW 0
#define G_TYPE 16
#define G_IFINDEX 20
#define G_SIZE 24

/* Queue pair capabilities written by createQp after creation (what the device granted). */
#define Q_QP_NUM 0
#define Q_MAX_SEND_WR 4
#define Q_MAX_RECV_WR 8
#define Q_MAX_SEND_SGE 12
#define Q_MAX_RECV_SGE 16
#define Q_MAX_INLINE 20
#define Q_SIZE 24

/* Memory region keys written by regMr. */
#define M_LKEY 0
#define M_RKEY 4
#define M_SIZE 8

/* Connection manager event written by RdmaCm.getEvent. */
#define E_TYPE 0
#define E_STATUS 4
#define E_ID 8
#define E_LISTEN_ID 16
#define E_RESPONDER_RESOURCES 24
#define E_INITIATOR_DEPTH 28
#define E_PRIVATE_DATA_LEN 32
#define E_QP_NUM 36
#define E_PRIVATE_DATA 40
#define E_PRIVATE_DATA_MAX 56
/* A UD id's event (MULTICAST_JOIN, MULTICAST_ERROR): event->param.ud, copied before the ack, in the U_* layout. */
#define E_UD (E_PRIVATE_DATA + E_PRIVATE_DATA_MAX)
#define E_SIZE (E_UD + U_SIZE)

/*
 * UD address attributes (struct ibv_ah_attr, then rdma_ud_param's qp_num and qkey), one int per field: written by
 * RdmaCm.getEvent for a UD id's event, read back by Verbs.createAhFromAttr, so an address handle for a multicast group
 * is made from exactly what the join event gave (the group's SL, rate, flow label and hop limit matter on InfiniBand).
 */
#define U_DGID 0
#define U_FLOW_LABEL 16
#define U_SGID_INDEX 20
#define U_HOP_LIMIT 24
#define U_TRAFFIC_CLASS 28
#define U_DLID 32
#define U_SL 36
#define U_SRC_PATH_BITS 40
#define U_STATIC_RATE 44
#define U_IS_GLOBAL 48
#define U_PORT_NUM 52
#define U_QP_NUM 56
#define U_QKEY 60
#define U_SIZE 64

/* What RdmaCm.idInfo writes about an id: its device context, port, and both ends' addresses. */
#define I_VERBS 0
#define I_PORT 8
#define I_LOCAL_FAMILY 12
#define I_LOCAL_PORT 16
#define I_LOCAL_ADDR 20
#define I_REMOTE_FAMILY 36
#define I_REMOTE_PORT 40
#define I_REMOTE_ADDR 44
#define I_QP 64
#define I_SIZE 72

/* Layout ids for layoutSize(): the Java side asks each size and refuses a library that disagrees. */
#define LAYOUT_SEND 1
#define LAYOUT_RECEIVE 2
#define LAYOUT_COMPLETION 3
#define LAYOUT_DEVICE 4
#define LAYOUT_PORT 5
#define LAYOUT_GID 6
#define LAYOUT_QP 7
#define LAYOUT_MR 8
#define LAYOUT_EVENT 9
#define LAYOUT_ID_INFO 10
#define LAYOUT_MAX_CHAIN 11
#define LAYOUT_UD 12

#define AS_PTR(handle) ((void *)(intptr_t)(handle))
#define AS_HANDLE(ptr) ((jlong)(intptr_t)(ptr))

static inline int64_t rv_get64(const uint8_t *base, int offset)
{
    int64_t value;
    memcpy(&value, base + offset, sizeof value);
    return value;
}

static inline int32_t rv_get32(const uint8_t *base, int offset)
{
    int32_t value;
    memcpy(&value, base + offset, sizeof value);
    return value;
}

static inline void rv_put64(uint8_t *base, int offset, int64_t value)
{
    memcpy(base + offset, &value, sizeof value);
}

static inline void rv_put32(uint8_t *base, int offset, int32_t value)
{
    memcpy(base + offset, &value, sizeof value);
}

/* errno of a failed call that returns NULL; never 0, so a failure is never reported as success. */
static inline jlong rv_failed_pointer(void)
{
    return errno > 0 ? -(jlong)errno : -(jlong)EIO;
}

/* rdma-core's int-returning calls return the errno value, or -1 with errno set. */
static inline jint rv_failed_status(int rc)
{
    if (rc > 0)
    {
        return -rc;
    }
    return errno > 0 ? -errno : -EIO;
}

static inline void rv_gid_from(jlong high, jlong low, uint8_t raw[16])
{
    for (int i = 0; i < 8; i++)
    {
        raw[i] = (uint8_t)((uint64_t)high >> (56 - 8 * i));
        raw[8 + i] = (uint8_t)((uint64_t)low >> (56 - 8 * i));
    }
}

struct ibv_qp;
struct ibv_qp_cap;
struct ibv_qp_init_attr;

/* Fills an ibv_qp_init_attr from the Java arguments; -EINVAL when one is out of range (verbs.c). */
int rv_init_qp_attr(
    struct ibv_qp_init_attr *attr, jlong send_cq, jlong recv_cq, jint type, jint max_send_wr, jint max_recv_wr,
    jint max_send_sge, jint max_recv_sge, jint max_inline);

/* Writes a created queue pair's number and granted capabilities to out (Q_* layout) unless out is 0 (verbs.c). */
void rv_write_caps(jlong out, const struct ibv_qp *qp, const struct ibv_qp_cap *cap);

#endif
