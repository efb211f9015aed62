/* SPDX-License-Identifier: MIT */
/* The cluster's launch files from the profile: an MPI hostfile, llama.cpp's --rpc list and Ray's head
 * and node addresses, each node named by its fabric address (its first link's, as VLLM_HOST_IP). */
#pragma once

#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>

#include "basic/json-writer.h"
#include "basic/macro.h"
#include "profile/profile.h"

/* rpc-server's default port (llama.cpp tools/rpc/rpc-server.cpp), Ray's GCS port (ray start --port). */
#define LAUNCH_LLAMA_RPC_PORT_DEFAULT 50052U
#define LAUNCH_RAY_PORT_DEFAULT 6379U

typedef enum LaunchFormat {
        LAUNCH_FORMAT_HOSTFILE,  /* "ADDRESS slots=N", one line per node: mpirun --hostfile */
        LAUNCH_FORMAT_LLAMA_RPC, /* "ADDRESS:PORT,..." of the other nodes: llama-cli --rpc */
        LAUNCH_FORMAT_RAY,       /* RAY_ADDRESS (the head's) and RAY_NODE_IP_ADDRESS (this node's) */
        _LAUNCH_FORMAT_MAX,
        _LAUNCH_FORMAT_INVALID = -EINVAL,
} LaunchFormat;

const char *launch_format_to_string(LaunchFormat f) _pure_;
LaunchFormat launch_format_from_string(const char *s) _pure_;

typedef struct LaunchOptions {
        LaunchFormat format;
        unsigned slots; /* hostfile: slots= of every node */
        unsigned port;  /* llama-rpc, ray: the service's port */
} LaunchOptions;

/* The node's fabric address: its first link's, as text; -ENOENT when it has no links. */
int launch_node_address(const ProfileNode *n, char ret[static INET_ADDRSTRLEN]);

/* Renders the file for self (the node haloctl acts as) from every node of p. Nodes without links are
 * left out (launch_node_address()). Returns 0, or -ENOMEM; -EINVAL for an unknown format. */
int launch_file_render(const Profile *p, const ProfileNode *self, const LaunchOptions *o, char **ret);
/* The same as one JSON object: {"format", "nodes": [{"node", "address", ...}], ...}. */
void launch_file_dump_json(const Profile *p, const ProfileNode *self, const LaunchOptions *o, JsonWriter *w);
