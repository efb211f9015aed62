/* SPDX-License-Identifier: MIT */
/* rdma_cm's configfs below the host root: reading a port's default RoCE ToS and mode, creating the
 * device's directory, writing the ToS. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nic/host-attr.h"
#include "rdma/rdma-cm.h"

/* An RDMA device name is a single path component ("mlx5_0"): nothing else goes into a path. */
static bool device_name_is_valid(const char *device) {
        return !isempty(device) && !strchr(device, '/') && !streq(device, ".") && !streq(device, "..");
}

static int exists(const Host *h, const char *path) {
        _cleanup_(freep) char *p = NULL;
        int r;

        r = host_path(h, path, &p);
        if (r < 0)
                return r;
        if (access(p, F_OK) >= 0)
                return 1;
        return errno == ENOENT ? 0 : negative_errno();
}

void rdma_cm_port_done(RdmaCmPort *p) {
        if (p)
                p->mode = mfree(p->mode);
}

int rdma_cm_read(const Host *h, const char *device, unsigned port, RdmaCmPort *ret) {
        _cleanup_(freep) char *dir = NULL, *tos_path = NULL, *mode_path = NULL, *mode = NULL;
        uint64_t tos;
        int r;

        if (!device_name_is_valid(device) || port == 0)
                return -EINVAL;
        r = exists(h, RDMA_CM_CONFIGFS_DIR);
        if (r <= 0) {
                if (r == 0)
                        *ret = (RdmaCmPort){ .state = RDMA_CM_NO_CONFIGFS };
                return r;
        }
        if (asprintf(&dir, RDMA_CM_CONFIGFS_DIR "/%s", device) < 0)
                return -ENOMEM;
        r = exists(h, dir);
        if (r <= 0) {
                if (r == 0)
                        *ret = (RdmaCmPort){ .state = RDMA_CM_NO_DEVICE_DIR };
                return r;
        }

        if (asprintf(&tos_path, "%s/ports/%u/default_roce_tos", dir, port) < 0 ||
            asprintf(&mode_path, "%s/ports/%u/default_roce_mode", dir, port) < 0)
                return -ENOMEM;
        r = host_attr_read_u64(h, tos_path, &tos);
        if (r < 0)
                return r;
        if (tos > 255)
                return -EBADMSG;
        /* The mode only explains: a kernel without it still has the ToS. */
        r = host_read_line(h, mode_path, &mode);
        if (r == -ENOMEM)
                return r;
        *ret = (RdmaCmPort){ .state = RDMA_CM_READY, .tos = (unsigned) tos, .mode = TAKE_PTR(mode) };
        return 0;
}

int rdma_cm_create_device(const Host *h, const char *device) {
        _cleanup_(freep) char *dir = NULL, *p = NULL;
        int r;

        if (!device_name_is_valid(device))
                return -EINVAL;
        if (asprintf(&dir, RDMA_CM_CONFIGFS_DIR "/%s", device) < 0)
                return -ENOMEM;
        r = host_path(h, dir, &p);
        if (r < 0)
                return r;
        return mkdir(p, 0755) < 0 ? negative_errno() : 0;
}

int rdma_cm_remove_device(const Host *h, const char *device) {
        _cleanup_(freep) char *dir = NULL, *p = NULL;
        int r;

        if (!device_name_is_valid(device))
                return -EINVAL;
        if (asprintf(&dir, RDMA_CM_CONFIGFS_DIR "/%s", device) < 0)
                return -ENOMEM;
        r = host_path(h, dir, &p);
        if (r < 0)
                return r;
        return rmdir(p) < 0 ? negative_errno() : 0;
}

int rdma_cm_write_tos(const Host *h, const char *device, unsigned port, unsigned tos) {
        _cleanup_(freep) char *path = NULL;
        char value[8];

        if (!device_name_is_valid(device) || port == 0 || tos > 255)
                return -EINVAL;
        if (asprintf(&path, RDMA_CM_CONFIGFS_DIR "/%s/ports/%u/default_roce_tos", device, port) < 0)
                return -ENOMEM;
        (void) snprintf(value, sizeof(value), "%u", tos);
        return host_attr_write(h, path, value);
}
