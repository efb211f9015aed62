/* SPDX-License-Identifier: MIT */
/* check_registry_parts(): the facts a run of checks reads up front are the registry's parts of the checks
 * the selection picks, less those the profile does not ask for; the same reads the groups made for
 * themselves before they judged a read-only snapshot. */
#include "check-test.h"
#include "check/check-parts.h"
#include "check/check-registry.h"
#include "config.h"

static const char profile_plain[] =
        "cluster: c\n"
        "links: { rdma0: { match: { driver: ice }, mtu: 9000 }, rdma1: { match: { name: ens2 } } }\n"
        "nodes: { head: { hostname: halo-1, links: { rdma0: 10.0.0.1/30, rdma1: 10.0.1.1/30 } },\n"
        "         worker: { hostname: halo-2, links: { rdma0: 10.0.0.2/30 } } }\n";

static const char profile_asking[] =
        "cluster: c\n"
        "links: { rdma0: { match: { driver: ice }, qos: { pfc: [3] } } }\n"
        "nic: { driver: ice }\n"
        "rdma: { required: true }\n"
        "kernel: { cmdline: [iommu=pt, pcie_aspm=off] }\n"
        "memory-min: 1G\n"
        "nodes: { head: { hostname: halo-1, links: { rdma0: 10.0.0.1/30 } },\n"
        "         worker: { hostname: halo-2, links: { rdma0: 10.0.0.2/30 } } }\n";

typedef struct Case {
        const char *profile;
        const char *root; /* "": the running system */
        const char *only;
        SnapshotPart want;
} Case;

#define P(x) SNAPSHOT_##x

static void test_parts(void) {
        static const Case cases[] = {
                /* No section asks: the profile's own checks skip without looking. */
                { profile_plain, "", "rdma.", 0 },
                { profile_plain, "", "nic.", 0 },
                { profile_plain, "", "kernel.", 0 },
                { profile_plain, "", "node.memory", 0 },
                /* The pause counters only for a link with qos:. */
                { profile_plain, "", "qos.", P(LINKS) | P(DCB) | P(QOS_HOST) },
                { profile_asking, "", "qos.", P(LINKS) | P(DCB) | P(QOS_HOST) | P(QOS_COUNTERS) },
                /* The networkd and netplan files only when link.<name>.owner is selected. */
                { profile_plain, "", "link.", P(LINKS) | P(NET_CONFIG) },
                { profile_plain, "", "link.rdma1.address", P(LINKS) },
                { profile_plain, "", "link.rdma1.owner", P(LINKS) | P(NET_CONFIG) },
                { profile_plain, "", "link.rdma7.owner", 0 },
                /* Below --root rtnetlink and DCB netlink show nothing of the tree: its ports. */
                { profile_plain, "/tmp/tree", "link.,qos.", P(PORTS) | P(QOS_HOST) | P(NET_CONFIG) },
                { profile_plain, "", "hosts.worker", P(ETC_HOSTS) | P(NAMES) },
                { profile_plain, "", "hosts.head", 0 },
                { profile_asking, "", "kernel.", P(CMDLINE) | P(BOOT) | P(NICS) | P(GPUS) },
                { profile_asking, "", "node.memory", P(MEMINFO) },
                { profile_asking, "", "nic.pcie", HAVE_LIBPCI ? P(NICS) : 0 },
                /* The checks only halod runs are not checks_run()'s: of fabric., the baseline's parts. */
                { profile_asking, "", "peer.,fabric.", P(RDMA_BASELINE) | P(NICS) | P(MTU) },
                { profile_plain, "", "peer.,fabric.", 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(profile_freep) Profile *p = test_profile_load(cases[i].profile);
                Host h = { .root = cases[i].root };
                NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };
                SnapshotPart got = check_registry_parts(&c, cases[i].only);

                if (got != cases[i].want)
                        fprintf(stderr, "%s: 0x%x, expected 0x%x\n", cases[i].only, got, cases[i].want);
                ASSERT_INT_EQ(got, cases[i].want);
        }
}

static void test_rdma(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_asking);
        Host h = { .root = "" };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };
        SnapshotPart memlock = P(MEMLOCK) | P(ETC_GROUP) | P(DEVICES);

        /* rdma.driver's command line comes with its module (SNAPSHOT_MODULES reads it where there is
         * one); without libibverbs only rdma.memlock judges the running system. */
        ASSERT_INT_EQ(
                check_registry_parts(&c, "rdma."),
                HAVE_LIBIBVERBS ? P(RDMA) | P(MTU) | P(NICS) | P(MODULES) | memlock : memlock);
        ASSERT_INT_EQ(
                check_registry_parts(&c, "rdma.memlock"),
                HAVE_LIBIBVERBS ? P(RDMA) | P(MTU) | P(NICS) | memlock : memlock);
        /* The transport sample, and the counters the fabric health checks judge on every link. */
        ASSERT_INT_EQ(
                check_registry_daemon_parts(&c, NULL),
                check_registry_find("fabric.x.transport")->parts | P(QOS_COUNTERS));
        ASSERT_INT_EQ(check_registry_daemon_parts(&c, "link."), P(QOS_COUNTERS));
        ASSERT_INT_EQ(check_registry_daemon_parts(&c, "kernel."), 0);
        /* The samples are the node's: read for any peer or link of the group the selection names, or for
         * none (the fabric health checks' counters come with the group). */
        ASSERT_INT_EQ(
                check_registry_daemon_parts(&c, "fabric.nobody.transport"),
                SNAPSHOT_TRANSPORT | P(QOS_COUNTERS));
}

int main(void) {
        test_parts();
        test_rdma();
        return 0;
}
