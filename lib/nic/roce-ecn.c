/* SPDX-License-Identifier: MIT */
/* Reading and writing MLNX_OFED's per-priority RoCE ECN switches below the host root. */
#include <stdio.h>
#include <unistd.h>

#include "nic/host-attr.h"
#include "nic/roce-ecn.h"

static const char *const roce_ecn_point_table[_ROCE_ECN_POINT_MAX] = {
        [ROCE_ECN_NP] = "roce_np",
        [ROCE_ECN_RP] = "roce_rp",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(roce_ecn_point, RoceEcnPoint);

const char *roce_ecn_point_display_name(RoceEcnPoint p) {
        switch (p) {
        case ROCE_ECN_NP:
                return "notification point";
        case ROCE_ECN_RP:
                return "reaction point";
        default:
                return NULL;
        }
}

static int ecn_path(const char *ifname, RoceEcnPoint point, unsigned priority, char **ret) {
        if (!ifname || !roce_ecn_point_to_string(point) || priority >= QOS_PRIORITIES)
                return -EINVAL;
        return asprintf(
                       ret,
                       "/sys/class/net/%s/ecn/%s/enable/%u",
                       ifname,
                       roce_ecn_point_to_string(point),
                       priority) < 0
                ? -ENOMEM
                : 0;
}

int roce_ecn_read(const Host *h, const char *ifname, RoceEcn *ret) {
        _cleanup_(freep) char *dir = NULL, *p = NULL;
        RoceEcn e = {};
        int r;

        if (!ifname)
                return -EINVAL;
        /* The directory tells "this driver has no ECN switches" from "a switch could not be read". */
        if (asprintf(&dir, "/sys/class/net/%s/ecn", ifname) < 0)
                return -ENOMEM;
        r = host_path(h, dir, &p);
        if (r < 0)
                return r;
        if (access(p, F_OK) < 0)
                return errno == ENOENT ? -ENOENT : negative_errno();

        for (RoceEcnPoint point = 0; point < _ROCE_ECN_POINT_MAX; point++)
                for (unsigned prio = 0; prio < QOS_PRIORITIES; prio++) {
                        _cleanup_(freep) char *path = NULL;
                        uint64_t v;

                        r = ecn_path(ifname, point, prio, &path);
                        if (r < 0)
                                return r;
                        r = host_attr_read_u64(h, path, &v);
                        if (r < 0)
                                /* The directory is there and a switch is not: a driver that changed its
                                 * layout, which is no reason to call ECN off. */
                                return r == -ENOENT ? -EBADMSG : r;
                        if (v > 1)
                                return -EBADMSG;
                        if (v)
                                e.on[point] |= 1U << prio;
                }
        *ret = e;
        return 0;
}

int roce_ecn_write(const Host *h, const char *ifname, RoceEcnPoint point, unsigned priority, bool on) {
        _cleanup_(freep) char *path = NULL;
        int r;

        r = ecn_path(ifname, point, priority, &path);
        if (r < 0)
                return r;
        return host_attr_write(h, path, on ? "1" : "0");
}
