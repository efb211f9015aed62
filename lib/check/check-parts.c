/* SPDX-License-Identifier: MIT */
/* The facts a run of checks reads up front, from the registry's lines and the profile: the one place that
 * decides what a verify reads, so that no check reads the host itself. */
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-kernel.h"
#include "check/check-parts.h"
#include "check/check-registry.h"
#include "config.h"

/* Whether only selects the check id, or one of the ids its pattern stands for: a <NAME> is each of the
 * node's links, a <NODE> each other node of the profile. Without a node a pattern stands for none. */
static bool entry_selected(const CheckRegistryEntry *e, const NodeContext *c, const char *only) {
        const char *hole = strchr(e->id, '<'), *end;
        char id[CHECK_ID_MAX];

        if (!checks_group_selected(e->group, only))
                return false;
        if (!hole)
                return check_id_selected(e->id, only);
        end = strchr(hole, '>');
        if (!c->profile || !c->node || !end)
                return false;
        if (startswith(hole, "<NAME>")) {
                for (size_t i = 0; i < c->node->n_links; i++) {
                        int n = snprintf(
                                id,
                                sizeof(id),
                                "%.*s%s%s",
                                (int) (hole - e->id),
                                e->id,
                                c->node->links[i].link,
                                end + 1);

                        if (n > 0 && (size_t) n < sizeof(id) && check_id_selected(id, only))
                                return true;
                }
                return false;
        }
        for (size_t i = 0; i < c->profile->n_nodes; i++) {
                const ProfileNode *peer = &c->profile->nodes[i];
                int n = snprintf(id, sizeof(id), "%.*s%s%s", (int) (hole - e->id), e->id, peer->name, end + 1);

                if (peer != c->node && n > 0 && (size_t) n < sizeof(id) && check_id_selected(id, only))
                        return true;
        }
        return false;
}

static bool some_link_asks_qos(const NodeContext *c) {
        for (size_t i = 0; i < c->node->n_links; i++) {
                const ProfileLink *pl = profile_find_link(c->profile, c->node->links[i].link);

                if (pl && pl->qos.present)
                        return true;
        }
        return false;
}

/* The checks that judge nothing without a node: the per-link and per-peer ones, and the node's hostname. */
static bool needs_node(const CheckRegistryEntry *e) {
        return strchr(e->id, '<') || streq(e->id, "node.hostname");
}

/* The parts of e that the checks look at for this profile and host: a check that skips for want of a
 * section reads nothing. */
static SnapshotPart entry_parts(const CheckRegistryEntry *e, const NodeContext *c) {
        const Profile *p = c->profile;
        SnapshotPart parts = e->parts;

        if (!p)
                return 0;
        if (needs_node(e)) {
                if (!c->node)
                        return 0;
                /* fabric.<NODE>.baseline skips without an rdma: section. */
                if (streq(e->id, "fabric.<NODE>.baseline") && !p->rdma.present)
                        return 0;
                /* rtnetlink and DCB netlink show the running kernel only: below --root, the ports. */
                if (!host_is_running_system(c->host) && (parts & (SNAPSHOT_LINKS | SNAPSHOT_DCB)))
                        parts = (parts & ~(SNAPSHOT_LINKS | SNAPSHOT_DCB)) | SNAPSHOT_PORTS;
                /* For qos.<link>.pause, the driver's statistics and RDMA hw_counters only where some link
                 * asks for qos: (the fabric health checks judge them on every link). */
                if ((parts & SNAPSHOT_QOS_COUNTERS) && streq(e->group, "qos.") && !some_link_asks_qos(c))
                        parts &= ~SNAPSHOT_QOS_COUNTERS;
                return parts;
        }
        if (startswith(e->id, "kernel.cmdline"))
                return strv_length(kernel_required_params(c)) > 0 ? parts : 0;
        if (streq(e->id, "kernel.iommu"))
                return kernel_profile_requires(c, "iommu", "pt") ||
                                kernel_profile_requires(c, "iommu.passthrough", "1")
                        ? parts
                        : 0;
        if (streq(e->id, "kernel.aspm"))
                return kernel_profile_requires(c, "pcie_aspm", "off") ? parts : 0;
        if (streq(e->id, "gpu.vram"))
                return p->gpu.present && p->gpu.vram_max > 0 ? parts : 0;
        if (streq(e->id, "node.memory"))
                return p->memory_min > 0 ? parts : 0;
        if (streq(e->group, "nic."))
                return HAVE_LIBPCI && node_context_nic(c)->present ? parts : 0;
        if (streq(e->group, "rdma.")) {
                if (!p->rdma.present)
                        return 0;
                /* Without libibverbs only rdma.memlock judges the running system, from the host's facts. */
                if (!HAVE_LIBIBVERBS && host_is_running_system(c->host))
                        return parts & (SNAPSHOT_MEMLOCK | SNAPSHOT_ETC_GROUP | SNAPSHOT_DEVICES);
                /* rdma.driver's command line is SNAPSHOT_MODULES's to read, where there is a module. */
                if (parts & SNAPSHOT_MODULES)
                        parts &= ~SNAPSHOT_CMDLINE;
        }
        return parts;
}

static SnapshotPart parts_of(const NodeContext *c, const char *only, bool daemon) {
        SnapshotPart parts = 0;

        for (size_t i = 0; i < check_registry_size; i++) {
                const CheckRegistryEntry *e = &check_registry[i];
                bool selected;

                if (daemon)
                        /* The checks only the verify job runs (run NULL: fabric.<NODE>.transport, the
                         * fabric health checks; the peer round reads its own): their samples are the
                         * node's, every peer's or port's base in the history they leave, read whenever the
                         * group runs, whichever ids it judges now. */
                        selected = !e->run && !streq(e->group, "peer.") &&
                                checks_group_selected(e->group, only);
                else
                        selected = e->run && entry_selected(e, c, only);
                if (selected)
                        parts |= entry_parts(e, c);
        }
        return parts;
}

SnapshotPart check_registry_parts(const NodeContext *c, const char *only) {
        return parts_of(c, only, /* daemon= */ false);
}

SnapshotPart check_registry_daemon_parts(const NodeContext *c, const char *only) {
        return parts_of(c, only, /* daemon= */ true);
}
