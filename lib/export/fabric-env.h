/* SPDX-License-Identifier: MIT */
/* The environment a distributed-inference launch needs on this node (NCCL/RCCL, Gloo, vLLM), derived
 * from what halod finds on the fabric, rendered for a shell or as /run/halod/fabric.env. */
#pragma once

#include <errno.h>
#include <stdbool.h>

#include "basic/json-writer.h"
#include "basic/macro.h"
#include "profile/node-context.h"
#include "snapshot/snapshot.h"

#define FABRIC_ENV_PATH "/run/halod/fabric.env"

typedef enum FabricEnvVar {
        FABRIC_ENV_NCCL_SOCKET_IFNAME,
        FABRIC_ENV_NCCL_IB_HCA,
        FABRIC_ENV_NCCL_IB_GID_INDEX,
        FABRIC_ENV_NCCL_IB_TC, /* only where the profile sets a qos.roce-tos (fabric_env_applies()) */
        FABRIC_ENV_NCCL_IB_SL, /* only where it also says which priority that ToS travels on */
        FABRIC_ENV_GLOO_SOCKET_IFNAME,
        FABRIC_ENV_VLLM_HOST_IP,
        _FABRIC_ENV_VAR_MAX,
        _FABRIC_ENV_VAR_INVALID = -EINVAL,
} FabricEnvVar;

const char *fabric_env_var_to_string(FabricEnvVar v) _pure_;
FabricEnvVar fabric_env_var_from_string(const char *s) _pure_;

typedef struct FabricEnv {
        char *values[_FABRIC_ENV_VAR_MAX];  /* NULL when it could not be derived */
        char *reasons[_FABRIC_ENV_VAR_MAX]; /* then why, for the person reading it */
} FabricEnv;

void fabric_env_done(FabricEnv *e);
/* Whether v concerns this node: NCCL_IB_TC and NCCL_IB_SL only when the profile asks for them (they
 * then have a value or a reason), every other variable always. */
bool fabric_env_applies(const FabricEnv *e, FabricEnvVar v) _pure_;
/* Every variable that applies has a value. */
bool fabric_env_complete(const FabricEnv *e) _pure_;

/* Derives every variable for c->node: the interfaces of its links (comma-separated when it has
 * several), their RDMA devices, the RoCE v2 GID index of the link address (the same index on every
 * device, else not set), the links' qos.roce-tos as the traffic class and the priority it travels on
 * as the service level (the same on every link, else not set), and the first link's address.
 * From the snapshot s of c (its ports and RDMA devices; NULL: one of its own). Returns 0, or -ENOMEM;
 * -EINVAL without a node. */
int fabric_env_derive(const NodeContext *c, Snapshot *s, FabricEnv *ret);
/* The same for the one link named link of c->node (VLLM_HOST_IP is then its address): what a
 * container given that link alone needs. -ENOENT when the node has no such link. */
int fabric_env_derive_link(const NodeContext *c, Snapshot *s, const char *link, FabricEnv *ret);

typedef enum FabricEnvFormat {
        FABRIC_ENV_FORMAT_SHELL, /* "export K=V", for eval "$(haloctl env)" */
        FABRIC_ENV_FORMAT_FILE,  /* "K=V" with "# K: not set: why" lines: EnvironmentFile=, env files */
        _FABRIC_ENV_FORMAT_MAX,
        _FABRIC_ENV_FORMAT_INVALID = -EINVAL,
} FabricEnvFormat;

/* The text, values single-quoted when they hold anything but [A-Za-z0-9._,:/@+=-]. */
int fabric_env_render(const FabricEnv *e, FabricEnvFormat format, char **ret);
/* {"NCCL_SOCKET_IFNAME": "enp194s0np0", ..., "missing": {"NCCL_IB_HCA": "why"}}; a variable that
 * does not apply is in neither. */
void fabric_env_dump_json(const FabricEnv *e, JsonWriter *w);
/* Writes the file format to path with write_file_atomic_if_changed() (mode 0644): 1 when written, 0
 * when unchanged, negative errno on failure. */
int fabric_env_write(const FabricEnv *e, const char *path);
