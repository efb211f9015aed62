/* SPDX-License-Identifier: MIT */
/* Values that are valid one by one and together make a check that can never pass on any host: a link
 * MTU too small for rdma.min-active-mtu, and an amdgpu.gttsize and ttm.pages_limit that disagree (or an
 * amdgpu.gttsize without ttm.pages_limit, which TTM caps at half of RAM).
 * Each rule is the one the check applies (basic/rdma-mtu.h, basic/gtt-size.h). */
#include <inttypes.h>
#include <stdio.h>

#include "basic/gtt-size.h"
#include "basic/rdma-mtu.h"
#include "profile/profile-internal.h"

/* The RDMA driver whose MTU rule a link follows, where the profile says it: the driver ice (irdma) or
 * mlx5_core that each node using the link gives it, by the node's match or the link's, else by the
 * node's nic: or the profile's; of several, the one that takes the most headroom, as the link's mtu:
 * is every node's. rxe rides on whatever netdev it was added to (virtio_net, veth), so a profile cannot
 * say it: a link of another or no driver is refused only for what no driver could pass, and rdma.mtu
 * judges the device it finds by the same rule (basic/rdma-mtu.h). */
static RoceMtuDriver link_roce_driver(const Profile *p, const ProfileLink *l) {
        RoceMtuDriver strictest = ROCE_MTU_DRIVER_UNKNOWN;
        bool used = false;

        for (size_t i = 0; i < p->n_nodes; i++)
                for (size_t j = 0; j < p->nodes[i].n_links; j++) {
                        const NodeLink *nl = &p->nodes[i].links[j];
                        RoceMtuDriver d;

                        if (!streq(nl->link, l->name))
                                continue;
                        used = true;
                        d = roce_mtu_driver_from_name(
                                profile_node_link_match(p, nl)->driver
                                        ?: profile_node_nic(p, &p->nodes[i])->driver);
                        if (d != ROCE_MTU_DRIVER_UNKNOWN &&
                            (strictest == ROCE_MTU_DRIVER_UNKNOWN ||
                             roce_mtu_headroom(d) > roce_mtu_headroom(strictest)))
                                strictest = d;
                }
        if (!used)
                return roce_mtu_driver_from_name(l->match.driver ?: p->nic.driver);
        return strictest;
}

static void check_link_mtu(ProfileErrors *e, const YNode *links, const Profile *p, const ProfileLink *l) {
        const YNode *link = ynode_map_get(links, l->name), *mtu = link ? ynode_map_get(link, "mtu") : NULL;
        unsigned want = p->rdma.min_active_mtu, got;
        RoceMtuDriver driver = link_roce_driver(p, l);
        char path[KEY_PATH_MAX];

        if (!mtu || l->mtu == 0 || want == 0)
                return;
        got = roce_mtu_for_netdev_mtu(
                l->mtu, driver == ROCE_MTU_DRIVER_UNKNOWN ? 0 : roce_mtu_headroom(driver));
        if (got >= want)
                return;
        key_path_join(path, "links", l->name);
        key_path_append(path, "mtu");
        if (driver == ROCE_MTU_DRIVER_UNKNOWN)
                profile_error_at(
                        e,
                        mtu,
                        path,
                        "MTU %u gives RoCE an active MTU of %u at most, below rdma.min-active-mtu %u, so rdma.mtu "
                        "could never pass (expected at least %u with irdma, %u with rxe, %u with mlx5, like 9000)",
                        l->mtu,
                        got,
                        want,
                        roce_netdev_mtu_needed(want, ROCE_MTU_DRIVER_IRDMA),
                        roce_netdev_mtu_needed(want, ROCE_MTU_DRIVER_RXE),
                        roce_netdev_mtu_needed(want, ROCE_MTU_DRIVER_MLX5));
        else if (roce_mtu_headroom(driver) == 0)
                profile_error_at(
                        e,
                        mtu,
                        path,
                        "MTU %u gives RoCE an active MTU of %u at most, below rdma.min-active-mtu %u, so rdma.mtu "
                        "could never pass (expected at least %u, like 9000)",
                        l->mtu,
                        got,
                        want,
                        roce_netdev_mtu_needed(want, driver));
        else
                profile_error_at(
                        e,
                        mtu,
                        path,
                        "MTU %u gives RoCE an active MTU of %u at most, below rdma.min-active-mtu %u, so rdma.mtu "
                        "could never pass: %s takes %u bytes of RoCE headers off the MTU first (expected at least "
                        "%u, like 9000)",
                        l->mtu,
                        got,
                        want,
                        roce_mtu_driver_to_string(driver),
                        roce_mtu_headroom(driver),
                        roce_netdev_mtu_needed(want, driver));
}

typedef struct GttParam {
        const YNode *item; /* the last one: the kernel takes the last of a repeated parameter */
        size_t index;
        const char *name;
        uint64_t value;
        bool valid;
} GttParam;

/* "name=value" of a kernel.cmdline item; the value is NULL for a bare name. name is a copy. */
static void split_param(const char *s, char *name, size_t size, const char **ret_value) {
        const char *eq = strchr(s, '=');
        size_t n = eq ? (size_t) (eq - s) : strlen(s);

        (void) snprintf(name, size, "%.*s", (int) (n < size - 1 ? n : size - 1), s);
        *ret_value = eq ? eq + 1 : NULL;
}

static void check_gtt(ProfileErrors *e, const YNode *cmdline) {
        GttParam mib = {}, pages = {};
        char path[KEY_PATH_MAX];

        if (!cmdline || cmdline->type != YNODE_SEQUENCE)
                return;
        for (size_t i = 0; i < cmdline->n_children; i++) {
                const YNode *item = &cmdline->children[i];
                const char *value;
                char name[64];
                GttParam *g;

                if (item->type != YNODE_SCALAR || !item->scalar)
                        continue;
                split_param(item->scalar, name, sizeof(name), &value);
                g = gtt_param_is_mib(name) ? &mib : gtt_param_is_pages(name) ? &pages : NULL;
                if (!g || !value)
                        continue;
                /* Sizes beyond these overflow a byte count; gpu.gtt says so of what is not a size. */
                *g = (GttParam){ .item = item, .index = i, .name = g == &mib ? GTT_PARAM : PAGES_PARAM };
                g->valid = gtt_size_parse(
                                   value,
                                   g == &mib ? UINT64_MAX >> 20 : UINT64_MAX / TTM_PAGE_SIZE,
                                   &g->value) >= 0;
        }
        if (mib.valid && !pages.item) {
                /* ttm_global_init() (ttm_device.c) keeps TTM's page limit at half of RAM unless
                 * ttm.pages_limit is given, and KFD refuses ROCm's allocations past it
                 * (amdgpu_amdkfd_gpuvm.c), whatever amdgpu.gttsize made the GTT. */
                (void) snprintf(path, sizeof(path), "kernel.cmdline[%zu]", mib.index);
                profile_error_at(
                        e,
                        mib.item,
                        path,
                        GTT_PARAM
                        "=%" PRIu64 " without " PAGES_PARAM ": amdgpu's GTT would be %" PRIu64
                        " MiB, but TTM keeps its page limit at half of RAM (ttm_device.c) and KFD caps "
                        "what ROCm may allocate there (amdgpu_amdkfd_gpuvm.c), so gpu.gtt could never pass "
                        "(expected " PAGES_PARAM "=%" PRIu64 " beside it)",
                        mib.value,
                        mib.value,
                        mib.value * TTM_PAGES_PER_MIB);
                return;
        }
        if (!mib.valid || !pages.valid || gtt_pages_agree(mib.value, pages.value))
                return;

        /* Said at the later of the two, where the person who wrote both last looked. */
        (void) snprintf(
                path, sizeof(path), "kernel.cmdline[%zu]", mib.index > pages.index ? mib.index : pages.index);
        profile_error_at(
                e,
                pages.index > mib.index ? pages.item : mib.item,
                path,
                PAGES_PARAM "=%" PRIu64 " (kernel.cmdline[%zu]) disagrees with " GTT_PARAM "=%" PRIu64
                            " (kernel.cmdline[%zu]), which is %" PRIu64
                            " pages of 4 KiB (MiB × 256), so gpu.gtt could never pass (expected " PAGES_PARAM
                            "=%" PRIu64 ", or the two from the same size)",
                pages.value,
                pages.index,
                mib.value,
                mib.index,
                mib.value * TTM_PAGES_PER_MIB,
                mib.value * TTM_PAGES_PER_MIB);
}

void profile_check_reachable(ProfileErrors *e, const YNode *root, const Profile *p) {
        const YNode *links = ynode_map_get(root, "links"), *kernel = ynode_map_get(root, "kernel");

        if (links && links->type == YNODE_MAPPING)
                for (size_t i = 0; i < p->n_links; i++)
                        check_link_mtu(e, links, p, &p->links[i]);
        if (kernel && kernel->type == YNODE_MAPPING)
                check_gtt(e, ynode_map_get(kernel, "cmdline"));
}
