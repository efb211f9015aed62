/* SPDX-License-Identifier: MIT */
/* The profile digest: equal for the same profile however it is written, different when it differs. */
#include "basic/macro.h"
#include "basic/strv.h"
#include "profile/profile-digest.h"
#include "profile/profile.h"
#include "tests.h"

/* The reference profile of DESIGN.md. */
static const char reference[] =
        "cluster: strix-halo\n"
        "mode: enforce\n"
        "links:\n"
        "  rdma0:\n"
        "    match: { driver: ice }\n"
        "    mtu: 9000\n"
        "    firewall-zone: trusted\n"
        "nic:\n"
        "  pci-ids: [\"8086:1592\", \"8086:1593\"]\n"
        "  driver: ice\n"
        "  firmware-min: \"4.91\"\n"
        "  pcie-min-width: 4\n"
        "rdma: { required: true, gid: roce-v2, min-active-mtu: 4096, memlock: unlimited }\n"
        "kernel:\n"
        "  cmdline: [iommu=pt, pci=realloc, pcie_aspm=off, amdgpu.gttsize=126976, ttm.pages_limit=32505856]\n"
        "nodes:\n"
        "  head:   { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } }\n"
        "  worker: { hostname: halo-2, links: { rdma0: 192.168.100.2/30 } }\n"
        "health: { interval: 60s, peers: true }\n";

/* The same profile as another person might write it: comments, block style, other key and list
 * order, the default port spelled out. */
static const char same[] =
        "# Our two Strix Halo boards.\n"
        "health:\n"
        "  peers: true      # compare with the other node\n"
        "  port: 7739\n"
        "  interval: 60s\n"
        "nodes:\n"
        "  worker:\n"
        "    links:\n"
        "      rdma0: 192.168.100.2/30\n"
        "    hostname: halo-2\n"
        "  head:\n"
        "    hostname: halo-1\n"
        "    links: {rdma0: 192.168.100.1/30}\n"
        "kernel:\n"
        "  cmdline:\n"
        "    - ttm.pages_limit=32505856\n"
        "    - amdgpu.gttsize=126976\n"
        "    - iommu=pt\n"
        "    - pcie_aspm=off\n"
        "    - pci=realloc\n"
        "rdma:\n"
        "  memlock: unlimited\n"
        "  min-active-mtu: 4096\n"
        "  gid: roce-v2\n"
        "  required: true\n"
        "nic:\n"
        "  pcie-min-width: 4\n"
        "  firmware-min: '4.91'\n"
        "  driver: ice\n"
        "  pci-ids:\n"
        "    - '8086:1593'\n"
        "    - '8086:1592'\n"
        "links:\n"
        "  rdma0:\n"
        "    firewall-zone: trusted\n"
        "    mtu: 9000\n"
        "    match:\n"
        "      driver: ice\n"
        "mode: enforce\n"
        "cluster: strix-halo\n";

static void digest_of(const char *path, const char *yaml, const char *from, const char *to, uint8_t *ret) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *text = strdup(yaml);
        int r;

        ASSERT_TRUE(text);
        if (from) {
                char *at = strstr(text, from);
                _cleanup_(freep) char *edited = NULL;

                ASSERT_TRUE(at);
                ASSERT_TRUE(asprintf(&edited, "%.*s%s%s", (int) (at - text), text, to, at + strlen(from)) > 0);
                free(text);
                text = TAKE_PTR(edited);
        }

        r = profile_load_string(path, text, strlen(text), &p, &errors);
        STRV_FOREACH(e, errors)
                fprintf(stderr, "%s\n", *e);
        ASSERT_OK(r);
        ASSERT_OK(profile_digest(p, ret));
}

static void test_same_profile(void) {
        uint8_t a[PROFILE_DIGEST_SIZE], b[PROFILE_DIGEST_SIZE], c[PROFILE_DIGEST_SIZE];

        digest_of("/etc/halod/halod.yaml", reference, NULL, NULL, a);
        digest_of("/home/me/cluster.yaml", reference, NULL, NULL, b);
        digest_of("/etc/halod/halod.yaml", same, NULL, NULL, c);
        /* The path is not part of the profile. */
        ASSERT_TRUE(memcmp(a, b, sizeof(a)) == 0);
        ASSERT_TRUE(memcmp(a, c, sizeof(a)) == 0);
}

static void test_different_profile(void) {
        static const struct {
                const char *from, *to;
        } changes[] = {
                { "mtu: 9000", "mtu: 4200" }, /* still enough for min-active-mtu 4096 */
                { "cluster: strix-halo", "cluster: strix-halo-2" },
                { "hostname: halo-2", "hostname: halo-3" },
                { "pcie_aspm=off, ", "" },
                { "firmware-min: \"4.91\"", "firmware-min: \"4.80\"" },
                { "interval: 60s", "interval: 30s" },
                { "peers: true", "peers: false" },
                { "cluster: strix-halo\n", "cluster: strix-halo\ngpu: { vram-max: 512M }\n" },
                { "cluster: strix-halo\n", "cluster: strix-halo\ngpu: {}\n" },
                { "cluster: strix-halo\n", "cluster: strix-halo\nmemory-min: 120G\n" },
        };
        uint8_t a[PROFILE_DIGEST_SIZE], b[PROFILE_DIGEST_SIZE];

        digest_of("halod.yaml", reference, NULL, NULL, a);
        for (size_t i = 0; i < ELEMENTSOF(changes); i++) {
                digest_of("halod.yaml", reference, changes[i].from, changes[i].to, b);
                if (memcmp(a, b, sizeof(a)) == 0) {
                        fprintf(stderr, "digest did not change for: %s -> %s\n", changes[i].from, changes[i].to);
                        abort();
                }
        }
}

/* Two NICs: the worker has its own nic:. */
static const char mixed[] =
        "cluster: mixed\n"
        "links: { rdma0: { mtu: 9000 } }\n"
        "nic: { pci-ids: [\"8086:1592\", \"8086:1593\"], driver: ice, firmware-min: \"4.91\", speed-min: 100G }\n"
        "nodes:\n"
        "  head: { links: { rdma0: { address: 10.0.0.1/30, match: { driver: ice } } } }\n"
        "  worker:\n"
        "    links: { rdma0: { address: 10.0.0.2/30, match: { driver: mlx5_core } } }\n"
        "    nic: { pci-ids: [\"15b3:1017\", \"15b3:1019\"], driver: mlx5_core, firmware-min: \"16.35.2000\", speed-min: 100 }\n";

/* The same, written otherwise: keys and ids in another order, 100 for 100G, the head's nic: given
 * with no value (the same as none). */
static const char mixed_same[] =
        "nodes:\n"
        "  worker:\n"
        "    nic:\n"
        "      speed-min: 100G\n"
        "      firmware-min: '16.35.2000'\n"
        "      driver: mlx5_core\n"
        "      pci-ids: ['15b3:1019', '15b3:1017']\n"
        "    links: { rdma0: { match: { driver: mlx5_core }, address: 10.0.0.2/30 } }\n"
        "  head: { nic: , links: { rdma0: { address: 10.0.0.1/30, match: { driver: ice } } } }\n"
        "nic: { speed-min: 100, firmware-min: \"4.91\", driver: ice, pci-ids: [\"8086:1593\", \"8086:1592\"] }\n"
        "links: { rdma0: { mtu: 9000 } }\n"
        "cluster: mixed\n";

static void test_node_nic(void) {
        static const struct {
                const char *from, *to;
        } changes[] = {
                { "firmware-min: \"16.35.2000\"", "firmware-min: \"16.35.2010\"" },
                { "\"15b3:1019\"", "\"15b3:101b\"" },
                { ", \"15b3:1019\"", "" },
                { ", speed-min: 100 }", " }" },
                { "speed-min: 100 }", "speed-min: 50 }" },
                { "driver: mlx5_core, firmware", "firmware" },
                /* The worker without a nic: of its own takes the E810's. */
                { "    nic: { pci-ids: [\"15b3:1017\", \"15b3:1019\"], driver: mlx5_core, firmware-min: \"16.35.2000\", speed-min: 100 }\n",
                  "" },
                /* Its own nic: equal to the profile's is still its own: a later edit of the
                 * profile's would not reach it. */
                { "    nic: { pci-ids: [\"15b3:1017\", \"15b3:1019\"], driver: mlx5_core, firmware-min: \"16.35.2000\", speed-min: 100 }\n",
                  "    nic: { pci-ids: [\"8086:1592\", \"8086:1593\"], driver: ice, firmware-min: \"4.91\", speed-min: 100G }\n" },
                { "speed-min: 100G }", "}" },
        };
        uint8_t a[PROFILE_DIGEST_SIZE], b[PROFILE_DIGEST_SIZE];

        digest_of("halod.yaml", mixed, NULL, NULL, a);
        digest_of("halod.yaml", mixed_same, NULL, NULL, b);
        ASSERT_TRUE(memcmp(a, b, sizeof(a)) == 0);
        for (size_t i = 0; i < ELEMENTSOF(changes); i++) {
                digest_of("halod.yaml", mixed, changes[i].from, changes[i].to, b);
                if (memcmp(a, b, sizeof(a)) == 0) {
                        fprintf(stderr, "digest did not change for: %s -> %s\n", changes[i].from, changes[i].to);
                        abort();
                }
        }
}

/* A switched fabric's lossless class on the link. */
static const char switched[] =
        "cluster: rack\n"
        "links:\n"
        "  rdma0:\n"
        "    match: { driver: mlx5_core }\n"
        "    qos: { pfc: [3, 4], trust: dscp, dscp-priority: { 26: 3, 46: 4, 0: 0 }, ecn: true, roce-tos: 106 }\n"
        "nodes: { a: { links: { rdma0: 10.0.0.1/24 } } }\n";

/* The same, written otherwise: keys, priorities and the DSCP map in another order, block style. */
static const char switched_same[] =
        "nodes: { a: { links: { rdma0: 10.0.0.1/24 } } }\n"
        "links:\n"
        "  rdma0:\n"
        "    qos:\n"
        "      roce-tos: 106\n"
        "      ecn: true\n"
        "      dscp-priority:\n"
        "        0: 0\n"
        "        46: 4\n"
        "        26: 3\n"
        "      trust: dscp\n"
        "      pfc: [4, 3]\n"
        "    match: { driver: mlx5_core }\n"
        "cluster: rack\n";

static void test_qos(void) {
        static const struct {
                const char *from, *to;
        } changes[] = {
                { "pfc: [3, 4]", "pfc: [3, 4, 5]" },
                { "46: 4, ", "" },
                { "46: 4", "46: 3" },
                { "46: 4", "47: 4" },
                { "ecn: true", "ecn: false" },
                { "ecn: true, ", "" },
                { "roce-tos: 106", "roce-tos: 105" },
                /* ecn and roce-tos left out: not the same as the values the NIC starts with. */
                { ", ecn: true, roce-tos: 106", "" },
                { "    qos: { pfc: [3, 4], trust: dscp, dscp-priority: { 26: 3, 46: 4, 0: 0 }, ecn: true, roce-tos: 106 }\n",
                  "" },
                /* qos: {} asks for nothing, yet says that the link has a qos: section. */
                { "{ pfc: [3, 4], trust: dscp, dscp-priority: { 26: 3, 46: 4, 0: 0 }, ecn: true, roce-tos: 106 }",
                  "{}" },
                /* PFC off everywhere is asked for; PFC left out is not. */
                { "pfc: [3, 4], trust: dscp, dscp-priority: { 26: 3, 46: 4, 0: 0 }", "pfc: [], trust: pcp" },
        };
        uint8_t a[PROFILE_DIGEST_SIZE], b[PROFILE_DIGEST_SIZE], c[PROFILE_DIGEST_SIZE];

        digest_of("halod.yaml", switched, NULL, NULL, a);
        digest_of("halod.yaml", switched_same, NULL, NULL, b);
        ASSERT_TRUE(memcmp(a, b, sizeof(a)) == 0);
        for (size_t i = 0; i < ELEMENTSOF(changes); i++) {
                digest_of("halod.yaml", switched, changes[i].from, changes[i].to, b);
                if (memcmp(a, b, sizeof(a)) == 0) {
                        fprintf(stderr, "digest did not change for: %s -> %s\n", changes[i].from, changes[i].to);
                        abort();
                }
        }
        /* pfc: [] and no pfc: differ. */
        digest_of(
                "halod.yaml",
                switched,
                "pfc: [3, 4], trust: dscp, dscp-priority: { 26: 3, 46: 4, 0: 0 }, ",
                "",
                b);
        digest_of(
                "halod.yaml",
                switched,
                "pfc: [3, 4], trust: dscp, dscp-priority: { 26: 3, 46: 4, 0: 0 }, ",
                "pfc: [], ",
                c);
        ASSERT_TRUE(memcmp(b, c, sizeof(b)) != 0);
}

int main(void) {
        test_same_profile();
        test_different_profile();
        test_node_nic();
        test_qos();
        return 0;
}
