/* SPDX-License-Identifier: MIT */
/* Device nodes below the host root as stat() finds them: who may open /dev/kfd, the render nodes and
 * the uverbs devices is their mode and group. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "basic/host.h"

typedef struct DeviceNode {
        char *path;  /* "/dev/infiniband/uverbs0", below the host root */
        int error;   /* the errno of stat(); 0: mode and gid hold */
        mode_t mode; /* st_mode */
        gid_t gid;
} DeviceNode;

/* The nodes of one directory whose names start with a prefix. */
typedef struct DeviceNodes {
        int error;         /* the errno of listing the directory; 0 when it was listed */
        DeviceNode *nodes; /* in name order */
        size_t n;
} DeviceNodes;

/* stat()s path below the host root into ret. Returns 0 (ret->error says whether it could) or -ENOMEM. */
int device_node_read(const Host *h, const char *path, DeviceNode *ret);
void device_node_done(DeviceNode *n);
/* Lists dir below the host root and stat()s each entry whose name starts with prefix. Returns 0 (a
 * directory that cannot be listed leaves ret empty with ret->error) or -ENOMEM. */
int device_nodes_read(const Host *h, const char *dir, const char *prefix, DeviceNodes *ret);
void device_nodes_done(DeviceNodes *n);
