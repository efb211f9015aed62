/* SPDX-License-Identifier: MIT */
/* The Container Device Interface spec of this node's fabric (kind halod.io/fabric): for each link, and
 * for all of them as "all", the RDMA device nodes and the fabric environment a container needs, so
 * that `podman run --device halod.io/fabric=rdma0` gives it RDMA without hand-written flags. */
#pragma once

#include "basic/json-writer.h"
#include "export/fabric-env.h"
#include "profile/node-context.h"

/* One of the directories where container runtimes look for specs (the other is /etc/cdi, which is
 * the administrator's); halod's is the runtime one, as it is derived from the running host. */
#define CDI_DIR_DEFAULT "/run/cdi"
#define CDI_SPEC_FILE "halod.json"
#define CDI_KIND "halod.io/fabric"
#define CDI_DEVICE_ALL "all"
/* The newest spec version that Debian 12's podman 4.3 (container-device-interface 0.5) reads;
 * 0.5.0 is the first with hostPath, which a host root other than / needs. */
#define CDI_VERSION "0.5.0"

typedef struct CdiDevice {
        char *name;   /* the link's name, or CDI_DEVICE_ALL */
        char **nodes; /* the paths in the container: /dev/infiniband/uverbsN, /dev/infiniband/rdma_cm */
        FabricEnv env;
} CdiDevice;

typedef struct CdiSpec {
        char *host_root; /* prefix of each node's host path; "" for the running system */
        CdiDevice *devices;
        size_t n_devices;
        char **problems; /* why a device node is left out, for the person reading it */
} CdiSpec;

/* A device for each link of c->node and one for all of them. The uverbs device of a link is that of
 * its RDMA device: the one fabric_env_derive_link() names in NCCL_IB_HCA, else the one sysfs shows on
 * the link's PCI device; /dev/infiniband/rdma_cm is added when the host has it (rdma_ucm loaded), as
 * a runtime refuses a spec whose device node does not exist. From the snapshot of c (its ports and
 * RDMA devices; NULL: one of its own). Returns 0, -ENOMEM, or -EINVAL without a node. */
int cdi_spec_derive(const NodeContext *c, Snapshot *snapshot, CdiSpec *ret);
void cdi_spec_done(CdiSpec *s);
/* Nothing left out: no problems, and on every device every variable that applies to the node
 * (fabric_env_applies(): NCCL_IB_TC and NCCL_IB_SL only when the profile sets a qos.roce-tos) set. */
bool cdi_spec_complete(const CdiSpec *s) _pure_;

int cdi_spec_render(const CdiSpec *s, char **ret);
/* Writes the spec to path with write_file_atomic_if_changed() (mode 0644): 1 when written, 0 when
 * unchanged, negative errno on failure. Its temporary file (halod.json.XXXXXX) is no *.json, which
 * the runtimes would read. */
int cdi_spec_write(const CdiSpec *s, const char *path);
/* Whether the spec is one halod's root helper may write where container runtimes read as root: every
 * device and the spec's own names valid, every device node /dev/infiniband/<one plain name> (a host path
 * of host_root plus the same), and by construction neither hooks nor mounts. Returns 0, or -EPERM and,
 * when ret_reason is not NULL, what is wrong. */
int cdi_spec_check_safe(const CdiSpec *s, char **ret_reason);
/* Removes the spec at path: 1 when removed, 0 when there was none, negative errno. */
int cdi_spec_remove(const char *path);
