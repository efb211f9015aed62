/* SPDX-License-Identifier: MIT */
/* stat() of device nodes below the host root. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "basic/device-node.h"
#include "basic/strv.h"

int device_node_read(const Host *h, const char *path, DeviceNode *ret) {
        _cleanup_(freep) char *full = NULL;
        struct stat st;
        int r;

        *ret = (DeviceNode){ .path = strdup(path) };
        if (!ret->path)
                return -ENOMEM;
        r = host_path(h, path, &full);
        if (r < 0) {
                device_node_done(ret);
                return r;
        }
        if (stat(full, &st) < 0) {
                ret->error = -errno;
                return 0;
        }
        ret->mode = st.st_mode;
        ret->gid = st.st_gid;
        return 0;
}

void device_node_done(DeviceNode *n) {
        n->path = mfree(n->path);
}

int device_nodes_read(const Host *h, const char *dir, const char *prefix, DeviceNodes *ret) {
        _cleanup_(strv_freep) char **entries = NULL;
        int r;

        *ret = (DeviceNodes){};
        r = host_list_directory(h, dir, &entries);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                ret->error = r;
                return 0;
        }
        ret->nodes = calloc(strv_length(entries) ?: 1, sizeof(DeviceNode));
        if (!ret->nodes)
                return -ENOMEM;
        STRV_FOREACH(e, entries) {
                _cleanup_(freep) char *path = NULL;

                if (!startswith(*e, prefix))
                        continue;
                if (asprintf(&path, "%s/%s", dir, *e) < 0)
                        path = NULL;
                r = path ? device_node_read(h, path, &ret->nodes[ret->n]) : -ENOMEM;
                if (r < 0) {
                        device_nodes_done(ret);
                        return r;
                }
                ret->n++;
        }
        return 0;
}

void device_nodes_done(DeviceNodes *n) {
        for (size_t i = 0; i < n->n; i++)
                device_node_done(&n->nodes[i]);
        n->nodes = mfree(n->nodes);
        n->n = 0;
}
