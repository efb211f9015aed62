/* SPDX-License-Identifier: MIT */
/* rdma_cm's defaults per RDMA device port, through its configfs (the kernel's
 * drivers/infiniband/core/cma_configfs.c): /sys/kernel/config/rdma_cm/DEV/ports/N/default_roce_tos
 * (the ToS byte of the connections rdma_cm makes, "106"; what `cma_roce_tos -d DEV -t 106` sets) and
 * default_roce_mode ("RoCE v2"). The directory rdma_cm exists while configfs is mounted on
 * /sys/kernel/config and rdma_cm (loaded with rdma_ucm) is; DEV only after `mkdir` of it, which makes
 * ports/1..N; removing DEV keeps the values in the kernel. */
#pragma once

#include <errno.h>

#include "basic/host.h"
#include "basic/macro.h"

#define RDMA_CM_CONFIGFS_DIR "/sys/kernel/config/rdma_cm"

typedef enum RdmaCmState {
        RDMA_CM_READY,         /* DEV's port directory is there: tos and mode were read */
        RDMA_CM_NO_DEVICE_DIR, /* rdma_cm's configfs is there, DEV's directory is not (mkdir makes it) */
        RDMA_CM_NO_CONFIGFS,   /* /sys/kernel/config/rdma_cm is not there: configfs is not mounted, or
                                * rdma_cm is not loaded */
        _RDMA_CM_STATE_MAX,
        _RDMA_CM_STATE_INVALID = -EINVAL,
} RdmaCmState;

typedef struct RdmaCmPort {
        RdmaCmState state;
        unsigned tos; /* with RDMA_CM_READY */
        char *mode;   /* default_roce_mode, "RoCE v2"; NULL when not read */
} RdmaCmPort;

/* Reads port (1-based) of device below the host root. Returns 0 with the state; -EBADMSG for a ToS
 * that is not a number 0..255; or the errno that kept a present file from being read (-EACCES).
 * ret->mode is the caller's to free (rdma_cm_port_done()). */
int rdma_cm_read(const Host *h, const char *device, unsigned port, RdmaCmPort *ret);
void rdma_cm_port_done(RdmaCmPort *p);

/* mkdir of /sys/kernel/config/rdma_cm/DEV, so that its ports appear: 0, -EEXIST, or the errno of
 * mkdir(2) (-ENODEV: rdma_cm has no such device). */
int rdma_cm_create_device(const Host *h, const char *device);
/* rmdir of it again (the values set stay in the kernel). */
int rdma_cm_remove_device(const Host *h, const char *device);
/* Writes default_roce_tos of port. Returns 0 or the errno of the write. */
int rdma_cm_write_tos(const Host *h, const char *device, unsigned port, unsigned tos);
