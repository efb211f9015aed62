/* SPDX-License-Identifier: MIT */
/* gpu.devices: ROCm's device nodes (/dev/kfd and a render node) exist, and who may open them. */
#include <stdio.h>

#include "basic/etc-group.h"
#include "basic/strv.h"
#include "check/check-gpu.h"

typedef struct DeviceAccess {
        bool everyone;  /* read-writable by every user */
        char *group;    /* the group that may read and write it; NULL: everyone, or only the owner */
        char *describe; /* "/dev/kfd (group render, mode 0660)" */
} DeviceAccess;

static void device_access_done(DeviceAccess *a) {
        free(a->group);
        free(a->describe);
}

/* Who may open the node as the snapshot found it: 1 with a, 0 when it does not exist here, or -errno
 * (could not look). etc_group names its group (NULL: unread, and the group is shown by number). */
static int device_access(const char *etc_group, const DeviceNode *node, DeviceAccess *a) {
        _cleanup_(freep) char *group = NULL;
        int r;

        if (node->error < 0)
                return node->error == -ENOENT ? 0 : node->error;
        if (etc_group) {
                r = etc_group_name(etc_group, node->gid, &group);
                if (r < 0)
                        return r;
        }
        if (!group && asprintf(&group, "%u", (unsigned) node->gid) < 0)
                return -ENOMEM;
        if (asprintf(&a->describe, "%s (group %s, mode %04o)", node->path, group, (unsigned) (node->mode & 07777)) <
            0) {
                a->describe = NULL;
                return -ENOMEM;
        }
        a->everyone = (node->mode & 0006) == 0006;
        if (!a->everyone && (node->mode & 0060) == 0060)
                a->group = TAKE_PTR(group);
        return 1;
}

/* Whether the kernel has a render node (in sysfs: drm, the snapshot's listing of it). */
static bool render_in_sysfs(char **drm) {
        STRV_FOREACH(e, drm)
                if (startswith(*e, "renderD"))
                        return true;
        return false;
}

/* The common case first: a node that /dev does not show although the kernel made it is hidden from
 * us (a private /dev, as in a sandbox), not missing: devtmpfs creates every node the kernel makes. */
static int add_missing(CheckList *out, const char *what, bool in_sysfs, const char *sysfs, const char *fix) {
        if (in_sysfs)
                return check_list_skip(
                        out,
                        "gpu.devices",
                        "could not look at %s: the kernel has it (%s), but /dev here does not show it (a "
                        "private /dev, as in a sandbox): `sudo haloctl check --only gpu.devices` looks",
                        what,
                        sysfs);
        return check_list_add(out, "gpu.devices", CHECK_FAIL, NULL, NULL, "no %s: %s", what, fix);
}

/* Who may open the device nodes: each described, those only their owner may open (closed), the groups
 * that may open the others, and whether every user may open them all. */
typedef struct DeviceLooks {
        char **described, **closed, **groups;
        bool everyone;
        size_t n_render;
} DeviceLooks;

static void device_looks_done(DeviceLooks *l) {
        strv_free(l->described);
        strv_free(l->closed);
        strv_free(l->groups);
}

/* Looks at each of the n nodes (/dev/kfd first) of the snapshot's host facts h. 0, or 1 when one cannot be
 * looked at or /dev/kfd is missing (and the check says so). */
static int device_looks(
        const SnapshotHost *h, const DeviceNode **nodes, size_t n_nodes, DeviceLooks *l, CheckList *out) {
        int r;

        l->everyone = true;
        for (size_t i = 0; i < n_nodes; i++) {
                _cleanup_(device_access_done) DeviceAccess a = {};
                const char *path = nodes[i]->path;

                r = device_access(h->etc_group, nodes[i], &a);
                if (r == -ENOMEM)
                        return r;
                if (r == 0 && !streq(path, KFD_NODE))
                        continue; /* gone since the listing */
                if (r <= 0) {
                        r = r < 0
                                ? check_list_skip(
                                          out, "gpu.devices", "could not look at %s: %s", path, strerror(-r))
                                : add_missing(
                                          out,
                                          KFD_NODE,
                                          h->kfd_in_sysfs,
                                          KFD_SYSFS,
                                          "amdgpu's compute interface (KFD) is missing, so ROCm finds no GPU: is "
                                          "amdgpu loaded (`lsmod | grep amdgpu`), and the kernel built with "
                                          "CONFIG_HSA_AMD?");
                        return r < 0 ? r : 1;
                }
                if (!streq(path, KFD_NODE))
                        l->n_render++;
                if (strv_extend(&l->described, a.describe) < 0)
                        return -ENOMEM;
                if (a.everyone)
                        continue;
                l->everyone = false;
                if (!a.group) {
                        if (strv_extend(&l->closed, path) < 0)
                                return -ENOMEM;
                } else if (!strv_contains(l->groups, a.group) && strv_extend(&l->groups, a.group) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int check_gpu_devices(const NodeContext *c, const Snapshot *s, CheckList *out) {
        _cleanup_(device_looks_done) DeviceLooks l = {};
        _cleanup_(freep) const DeviceNode **nodes = NULL;
        _cleanup_(freep) char *list = NULL, *group_list = NULL, *group_args = NULL;
        size_t n_nodes = 0;
        int r;

        if (!snapshot_has(s, SNAPSHOT_GPUS | SNAPSHOT_ETC_GROUP | SNAPSHOT_DEVICES))
                return 0; /* not selected: its caller did not read it */
        if ((!c->profile || !c->profile->gpu.present) && s->host.n_gpus == 0)
                return check_list_skip(
                        out,
                        "gpu.devices",
                        "the profile has no gpu: section, and no GPU is driven by amdgpu here");

        /* /dev/kfd first: it is ROCm's own, the one a workload misses most. */
        nodes = calloc(1 + s->host.render.n, sizeof(DeviceNode *));
        if (!nodes)
                return -ENOMEM;
        nodes[n_nodes++] = &s->host.kfd;
        for (size_t i = 0; i < s->host.render.n; i++)
                nodes[n_nodes++] = &s->host.render.nodes[i];
        r = device_looks(&s->host, nodes, n_nodes, &l, out);
        if (r != 0)
                return r < 0 ? r : 0;
        if (l.n_render == 0)
                return add_missing(
                        out,
                        DRI_DIR "/renderD*",
                        s->host.render.n == 0 && render_in_sysfs(s->host.drm),
                        DRM_CLASS_DIR "/renderD*",
                        "amdgpu made no render node, which ROCm opens beside " KFD_NODE
                        ": is amdgpu loaded and bound to the GPU (`lspci -k`)?");

        list = strv_join(l.described, ", ");
        if (!list)
                return -ENOMEM;
        if (l.closed) {
                _cleanup_(freep) char *closed_list = strv_join(l.closed, " and ");

                if (!closed_list)
                        return -ENOMEM;
                return check_list_add(
                        out,
                        "gpu.devices",
                        CHECK_FAIL,
                        NULL,
                        list,
                        "%s: only the owner may open %s, so the workload's user cannot use the GPU: install "
                        "the udev rules that give them to group render (systemd's 50-udev-default.rules)",
                        list,
                        closed_list);
        }
        if (l.everyone)
                return check_list_add(
                        out, "gpu.devices", CHECK_PASS, NULL, list, "%s: every user may open them", list);
        group_list = strv_join(l.groups, " and ");
        group_args = strv_join(l.groups, ",");
        if (!group_list || !group_args)
                return -ENOMEM;
        return check_list_add(
                out,
                "gpu.devices",
                CHECK_PASS,
                NULL,
                list,
                "%s: the workload's user must be in group %s (usermod -aG %s USER)",
                list,
                group_list,
                group_args);
}
