/* SPDX-License-Identifier: MIT */
/* lib/profile: the shipped profiles load, every broken profile yields its expected first error line,
 * errors come in file order and capped, the caps hold, and the reference profile's JSON is stable. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/strv.h"
#include "profile/profile-internal.h"
#include "tests.h"

#define SOURCE_ROOT TEST_DATA_DIR "/../.."
#define PROFILES_DIR TEST_DATA_DIR "/profiles"

/* The *.yaml files of a directory, sorted. */
static char **list_yaml(const char *dir) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        _cleanup_(strv_freep) char **l = NULL;
        size_t n;

        ASSERT_TRUE(d);
        for (struct dirent *de; (de = readdir(d));) {
                size_t k = strlen(de->d_name);

                if (k > 5 && streq(de->d_name + k - 5, ".yaml"))
                        ASSERT_OK(strv_extend(&l, de->d_name));
        }
        n = strv_length(l);
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && strcmp(l[j - 1], l[j]) > 0; j--) {
                        char *t = l[j];
                        l[j] = l[j - 1];
                        l[j - 1] = t;
                }
        return TAKE_PTR(l);
}

static void assert_loads(const char *path) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        int r;

        r = profile_load_file(path, &p, &errors);
        STRV_FOREACH(e, errors)
                fprintf(stderr, "%s\n", *e);
        ASSERT_INT_EQ(r, 0);
        ASSERT_TRUE(p);
        ASSERT_TRUE(!errors);
        ASSERT_TRUE(p->n_links >= 1);
        ASSERT_TRUE(p->n_nodes >= 1);
}

static void test_good_profiles(void) {
        static const char *const dirs[] = { SOURCE_ROOT "/conf/examples", PROFILES_DIR "/good" };
        unsigned count = 0;

        assert_loads(SOURCE_ROOT "/conf/halod.yaml");
        count++;
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                _cleanup_(strv_freep) char **files = list_yaml(dirs[i]);

                STRV_FOREACH(f, files) {
                        _cleanup_(freep) char *path = NULL;

                        ASSERT_TRUE(asprintf(&path, "%s/%s", dirs[i], *f) > 0);
                        assert_loads(path);
                        count++;
                }
        }
        /* halod.yaml, five examples, five good fixtures. */
        ASSERT_TRUE(count >= 11);
}

static void test_reference_profile(void) {
        _cleanup_(profile_freep) Profile *p = NULL;
        const ProfileNode *head, *worker;
        const ProfileLink *l;
        char buf[IPV4_PREFIX_STRING_MAX];

        ASSERT_OK(profile_load_file(SOURCE_ROOT "/conf/halod.yaml", &p, NULL));
        ASSERT_STR_EQ(p->cluster, "strix-halo");
        ASSERT_INT_EQ(p->mode, PROFILE_MODE_ENFORCE);
        ASSERT_INT_EQ(p->n_links, 1);
        l = profile_find_link(p, "rdma0");
        ASSERT_TRUE(l);
        ASSERT_STR_EQ(l->match.driver, "ice");
        ASSERT_TRUE(!l->match.pci && !l->match.mac && !l->match.name);
        ASSERT_INT_EQ(l->mtu, 9000);
        ASSERT_STR_EQ(l->firewall_zone, "trusted");
        ASSERT_TRUE(!l->ipv6);

        ASSERT_TRUE(p->nic.present);
        /* pci.ids' "E810-C for QSFP" only: 8086:1593, "E810-C for SFP", is a 25 GbE card. */
        ASSERT_INT_EQ(p->nic.n_pci_ids, 1);
        ASSERT_INT_EQ(p->nic.pci_ids[0].vendor, 0x8086);
        ASSERT_INT_EQ(p->nic.pci_ids[0].device, 0x1592);
        ASSERT_STR_EQ(p->nic.driver, "ice");
        ASSERT_STR_EQ(p->nic.firmware_min, "4.91");
        ASSERT_INT_EQ(p->nic.pcie_min_width, 4);
        ASSERT_INT_EQ(p->nic.speed_min_mbit, 100000);

        ASSERT_TRUE(p->rdma.present);
        ASSERT_TRUE(p->rdma.required);
        ASSERT_INT_EQ(p->rdma.gid, RDMA_GID_ROCE_V2);
        ASSERT_INT_EQ(p->rdma.min_active_mtu, 4096);
        ASSERT_TRUE(p->rdma.memlock == UINT64_MAX);

        ASSERT_INT_EQ(strv_length(p->kernel_cmdline), 5);
        ASSERT_STR_EQ(p->kernel_cmdline[0], "iommu=pt");
        ASSERT_STR_EQ(p->kernel_cmdline[1], "pci=realloc");
        ASSERT_STR_EQ(p->kernel_cmdline[2], "pcie_aspm=off");
        ASSERT_STR_EQ(p->kernel_cmdline[3], "amdgpu.gttsize=126976");
        ASSERT_STR_EQ(p->kernel_cmdline[4], "ttm.pages_limit=32505856");

        /* The guide's 512 MB carve-out and a 128 GB board's MemTotal are checked by default. */
        ASSERT_TRUE(p->gpu.present);
        ASSERT_TRUE(p->gpu.vram_max == 512ULL * 1024 * 1024);
        ASSERT_TRUE(p->memory_min == 120ULL * 1024 * 1024 * 1024);

        ASSERT_INT_EQ(p->n_nodes, 2);
        head = profile_find_node(p, "head");
        worker = profile_find_node(p, "worker");
        ASSERT_TRUE(head && worker);
        ASSERT_TRUE(!profile_find_node(p, "nobody"));
        ASSERT_STR_EQ(head->hostname, "halo-1");
        ASSERT_STR_EQ(worker->hostname, "halo-2");
        ASSERT_INT_EQ(head->n_links, 1);
        ASSERT_STR_EQ(head->links[0].link, "rdma0");
        ASSERT_STR_EQ(ipv4_prefix_to_string(&head->links[0].address, buf), "192.168.100.1/30");
        ASSERT_STR_EQ(ipv4_prefix_to_string(&worker->links[0].address, buf), "192.168.100.2/30");
        ASSERT_TRUE(link_match_is_empty(&head->links[0].match));
        ASSERT_TRUE(profile_node_link_match(p, &head->links[0]) == &l->match);

        ASSERT_INT_EQ(p->health.interval_usec, 60000000);
        ASSERT_TRUE(p->health.peers);
        ASSERT_INT_EQ(p->health.port, PROFILE_DEFAULT_PEER_PORT);
        ASSERT_TRUE(p->health.tcp_bulk_bps == 10ULL * 1000 * 1000);
}

static void test_daisy_chain(void) {
        _cleanup_(profile_freep) Profile *p = NULL;
        const ProfileNode *n2;
        const LinkMatch *m;

        ASSERT_OK(profile_load_file(SOURCE_ROOT "/conf/examples/daisy-chain-4.yaml", &p, NULL));
        ASSERT_INT_EQ(p->n_nodes, 4);
        ASSERT_INT_EQ(p->n_links, 3);
        n2 = profile_find_node(p, "node2");
        ASSERT_TRUE(n2);
        ASSERT_INT_EQ(n2->n_links, 2);
        ASSERT_STR_EQ(n2->links[0].link, "rdma0");
        ASSERT_STR_EQ(n2->links[1].link, "rdma1");
        m = profile_node_link_match(p, &n2->links[1]);
        ASSERT_TRUE(m == &n2->links[1].match);
        ASSERT_STR_EQ(m->pci, "0000:c2:00.1");
        ASSERT_TRUE(link_match_is_empty(&profile_find_link(p, "rdma1")->match));
}

static void test_full_profile(void) {
        _cleanup_(profile_freep) Profile *p = NULL;
        const ProfileLink *l;
        const ProfileNode *n;

        ASSERT_OK(profile_load_file(PROFILES_DIR "/good/full.yaml", &p, NULL));
        ASSERT_STR_EQ(p->cluster, "Lab_2.test-x");
        ASSERT_INT_EQ(p->mode, PROFILE_MODE_VERIFY);
        l = profile_find_link(p, "rdma0");
        ASSERT_STR_EQ(l->match.driver, "mlx5_core");
        ASSERT_STR_EQ(l->match.pci, "0000:c2:00.1");
        ASSERT_STR_EQ(l->match.mac, "6c:fe:54:12:34:ab");
        ASSERT_STR_EQ(l->match.name, "enp194s0f?");
        ASSERT_INT_EQ(l->mtu, 4200);
        ASSERT_STR_EQ(l->firewall_zone, "Fabric_1");
        ASSERT_TRUE(l->ipv6);
        ASSERT_TRUE(l->qos.present && l->qos.has_pfc);
        ASSERT_INT_EQ(l->qos.pfc, (1U << 3) | (1U << 4));
        ASSERT_INT_EQ(l->qos.trust, QOS_TRUST_DSCP);
        ASSERT_TRUE(l->qos.has_dscp_map);
        for (unsigned d = 0; d < QOS_DSCP_VALUES; d++)
                ASSERT_INT_EQ(l->qos.dscp_priority[d], d == 26 ? 3 : d == 46 ? 4 : d == 0 ? 0 : -1);
        ASSERT_INT_EQ(l->qos.ecn, 1);
        ASSERT_INT_EQ(l->qos.roce_tos, 106);
        ASSERT_INT_EQ(profile_qos_roce_priority(&l->qos), 3);
        l = profile_find_link(p, "fab-b");
        ASSERT_INT_EQ(l->mtu, 1500);
        ASSERT_TRUE(!l->firewall_zone);
        ASSERT_TRUE(l->qos.present && l->qos.has_pfc);
        ASSERT_INT_EQ(l->qos.pfc, 0);
        ASSERT_INT_EQ(l->qos.trust, QOS_TRUST_PCP);
        ASSERT_TRUE(!l->qos.has_dscp_map);
        ASSERT_INT_EQ(l->qos.ecn, 0);
        ASSERT_INT_EQ(l->qos.roce_tos, 0);
        /* Under pcp the VLAN priority classifies, and no priority has PFC to take it from. */
        ASSERT_INT_EQ(profile_qos_roce_priority(&l->qos), -ENODATA);

        ASSERT_INT_EQ(p->nic.pci_ids[1].vendor, 0x15b3);
        ASSERT_INT_EQ(p->nic.pci_ids[1].device, 0x1021);
        ASSERT_STR_EQ(p->nic.firmware_min, "28.39.1002");
        ASSERT_INT_EQ(p->nic.pcie_min_width, 16);
        ASSERT_INT_EQ(p->nic.speed_min_mbit, 400000);
        ASSERT_TRUE(!p->rdma.required);
        ASSERT_INT_EQ(p->rdma.gid, RDMA_GID_IB);
        ASSERT_INT_EQ(p->rdma.min_active_mtu, 256);
        ASSERT_INT_EQ(p->rdma.memlock, 64 * 1024 * 1024);
        ASSERT_STR_EQ(p->kernel_cmdline[2], "dyndbg=\"file ice* +p\"");
        ASSERT_TRUE(p->gpu.present);
        ASSERT_TRUE(p->gpu.vram_max == 1024ULL * 1024 * 1024);
        ASSERT_TRUE(p->memory_min == 96ULL * 1024 * 1024 * 1024);
        ASSERT_INT_EQ(p->health.interval_usec, 90000000);
        ASSERT_TRUE(!p->health.peers);
        ASSERT_INT_EQ(p->health.port, 65535);
        ASSERT_INT_EQ(p->health.hosts, HOSTS_POLICY_MANAGE);
        ASSERT_TRUE(p->health.tcp_bulk_bps == 250ULL * 1000 * 1000);

        n = profile_find_node(p, "b_2");
        ASSERT_TRUE(n && !n->hostname);
        ASSERT_STR_EQ(n->links[1].match.mac, "00:11:22:33:44:55");
        ASSERT_STR_EQ(profile_node_link_match(p, &n->links[1])->mac, "00:11:22:33:44:55");
        ASSERT_TRUE(profile_node_link_match(p, &n->links[0]) == &profile_find_link(p, "rdma0")->match);
        ASSERT_TRUE(!n->nic.present);
        ASSERT_TRUE(profile_node_nic(p, n) == &p->nic);

        n = profile_find_node(p, "c3");
        ASSERT_TRUE(n && n->nic.present);
        ASSERT_TRUE(profile_node_nic(p, n) == &n->nic);
        ASSERT_INT_EQ(n->nic.n_pci_ids, 1);
        ASSERT_INT_EQ(n->nic.pci_ids[0].device, 0x159b);
        ASSERT_STR_EQ(n->nic.driver, "ice");
        ASSERT_INT_EQ(n->nic.speed_min_mbit, 25000);
        /* Replaced, not merged: the profile's firmware-min and width are not c3's. */
        ASSERT_TRUE(!n->nic.firmware_min);
        ASSERT_INT_EQ(n->nic.pcie_min_width, 0);
}

static Profile *load_text(const char *text) {
        _cleanup_(strv_freep) char **errors = NULL;
        Profile *p = NULL;
        int r;

        r = profile_load_string("node-nic.yaml", text, strlen(text), &p, &errors);
        STRV_FOREACH(e, errors)
                fprintf(stderr, "%s\n", *e);
        ASSERT_OK(r);
        return p;
}

/* nodes.NAME.nic: replaces the top-level nic: for that node, whole, and only for that node. */
static void test_node_nic(void) {
        _cleanup_(profile_freep) Profile *p = NULL;
        const ProfileNode *head, *worker, *third;
        const ProfileNic *nic;

        p = load_text(
                "cluster: c\n"
                "links: { rdma0: { match: { name: fab0 } } }\n"
                "nic: { pci-ids: [\"8086:1592\"], driver: ice, firmware-min: \"4.91\", pcie-min-width: 4, speed-min: 100 }\n"
                "nodes:\n"
                "  head: { links: { rdma0: 10.0.0.1/24 } }\n"
                "  worker:\n"
                "    links: { rdma0: 10.0.0.2/24 }\n"
                "    nic: { pci-ids: [\"15b3:1017\"], driver: mlx5_core, firmware-min: \"16.35.2000\" }\n"
                "  third:\n"
                "    links: { rdma0: 10.0.0.3/24 }\n"
                "    nic:\n");
        head = profile_find_node(p, "head");
        worker = profile_find_node(p, "worker");
        third = profile_find_node(p, "third");
        ASSERT_TRUE(head && worker && third);

        ASSERT_TRUE(profile_node_nic(p, head) == &p->nic);
        ASSERT_TRUE(profile_node_nic(p, NULL) == &p->nic);
        /* "nic:" with no value is left out: the node takes the profile's. */
        ASSERT_TRUE(!third->nic.present);
        ASSERT_TRUE(profile_node_nic(p, third) == &p->nic);

        nic = profile_node_nic(p, worker);
        ASSERT_TRUE(nic == &worker->nic);
        ASSERT_TRUE(nic->present);
        ASSERT_INT_EQ(nic->n_pci_ids, 1);
        ASSERT_INT_EQ(nic->pci_ids[0].vendor, 0x15b3);
        ASSERT_INT_EQ(nic->pci_ids[0].device, 0x1017);
        ASSERT_STR_EQ(nic->driver, "mlx5_core");
        ASSERT_STR_EQ(nic->firmware_min, "16.35.2000");
        /* What worker leaves out is not checked there, not taken from the E810's nic:. */
        ASSERT_INT_EQ(nic->pcie_min_width, 0);
        ASSERT_INT_EQ(nic->speed_min_mbit, 0);
        /* The profile's own stays as written. */
        ASSERT_STR_EQ(p->nic.driver, "ice");
        ASSERT_INT_EQ(p->nic.pcie_min_width, 4);
        ASSERT_INT_EQ(p->nic.speed_min_mbit, 100000);
        p = profile_free(p);

        /* Only a node's own: the others check no NIC; "nic: {}" is a NIC with nothing to check. */
        p = load_text(
                "cluster: c\n"
                "links: { rdma0: { match: { name: fab0 } } }\n"
                "nodes:\n"
                "  head: { links: { rdma0: 10.0.0.1/24 } }\n"
                "  worker: { links: { rdma0: 10.0.0.2/24 }, nic: { speed-min: 50G } }\n"
                "  third: { links: { rdma0: 10.0.0.3/24 }, nic: {} }\n");
        ASSERT_TRUE(!p->nic.present);
        ASSERT_TRUE(!profile_node_nic(p, profile_find_node(p, "head"))->present);
        nic = profile_node_nic(p, profile_find_node(p, "worker"));
        ASSERT_TRUE(nic->present);
        ASSERT_INT_EQ(nic->speed_min_mbit, 50000);
        ASSERT_INT_EQ(nic->n_pci_ids, 0);
        ASSERT_TRUE(!nic->driver);
        nic = profile_node_nic(p, profile_find_node(p, "third"));
        ASSERT_TRUE(nic->present && nic->n_pci_ids == 0 && !nic->driver && !nic->firmware_min);
}

/* A node's nic: is read by the same code as the top-level one: the same errors, under its own path. */
static void test_node_nic_errors(void) {
        static const char text[] =
                "cluster: c\n"
                "links: { rdma0: { match: { name: fab0 } } }\n"
                "nic: { speed-min: 25000 }\n"
                "nodes:\n"
                "  head: { links: { rdma0: 10.0.0.1/24 } }\n"
                "  worker:\n"
                "    links: { rdma0: 10.0.0.2/24 }\n"
                "    nic:\n"
                "      pci-ids: [\"15b3-1017\"]\n"
                "      drivr: mlx5_core\n"
                "      speed-min: 100Gb\n"
                "      pcie-min-width: 3\n";
        _cleanup_(strv_freep) char **errors = NULL;
        Profile *p = NULL;

        ASSERT_INT_EQ(profile_load_string("n.yaml", text, strlen(text), &p, &errors), -EINVAL);
        ASSERT_TRUE(!p);
        ASSERT_INT_EQ(strv_length(errors), 5);
        ASSERT_STR_EQ(
                errors[0],
                "n.yaml:3:19: nic.speed-min: 25000 is out of range, did you mean '25G'? speed-min is in Gbit/s, not Mbit/s as ethtool shows it (expected a whole number of Gbit/s from 1 to 1600 with an optional G, like 100 or 100G)");
        ASSERT_STR_EQ(
                errors[1],
                "n.yaml:9:17: nodes.worker.nic.pci-ids[0]: '15b3-1017' is not a PCI id (expected \"vendor:device\" as two 4-digit hex numbers, like \"8086:1592\")");
        ASSERT_STR_EQ(
                errors[2],
                "n.yaml:10:7: nodes.worker.nic.drivr: unknown key 'drivr', did you mean 'driver'? (expected one of: pci-ids, driver, firmware-min, pcie-min-width, speed-min, fw-lldp-agent, enable-roce)");
        ASSERT_STR_EQ(
                errors[3],
                "n.yaml:11:18: nodes.worker.nic.speed-min: '100Gb' is not a speed, did you mean '100G'? (expected a whole number of Gbit/s from 1 to 1600 with an optional G, like 100 or 100G)");
        ASSERT_STR_EQ(
                errors[4],
                "n.yaml:12:23: nodes.worker.nic.pcie-min-width: x3 is not a PCIe link width (expected 1, 2, 4, 8 or 16)");
}

static void test_defaults(void) {
        _cleanup_(profile_freep) Profile *p = NULL;

        ASSERT_OK(profile_load_file(PROFILES_DIR "/good/minimal.yaml", &p, NULL));
        ASSERT_INT_EQ(p->mode, PROFILE_MODE_ENFORCE);
        ASSERT_INT_EQ(p->links[0].mtu, 0);
        ASSERT_TRUE(!p->links[0].firewall_zone);
        ASSERT_TRUE(!p->nic.present);
        ASSERT_TRUE(!p->rdma.present);
        ASSERT_TRUE(p->rdma.required);
        ASSERT_INT_EQ(p->rdma.gid, RDMA_GID_ROCE_V2);
        ASSERT_INT_EQ(p->rdma.memlock, 0);
        ASSERT_TRUE(!p->gpu.present);
        ASSERT_TRUE(p->gpu.vram_max == 0);
        ASSERT_TRUE(p->memory_min == 0);
        ASSERT_TRUE(!p->kernel_cmdline);
        ASSERT_INT_EQ(p->health.interval_usec, 60000000);
        ASSERT_TRUE(p->health.peers);
        ASSERT_INT_EQ(p->health.port, PROFILE_DEFAULT_PEER_PORT);
        ASSERT_INT_EQ(p->health.hosts, HOSTS_POLICY_CHECK);
        ASSERT_TRUE(!p->nodes[0].hostname);
}

/* Every error is one line "FILE:LINE:COL: …" (or "FILE: too many errors …"). */
static void assert_error_lines(char **errors, const char *display) {
        ASSERT_TRUE(strv_length(errors) >= 1);
        ASSERT_TRUE(strv_length(errors) <= PROFILE_ERRORS_MAX + 1);
        STRV_FOREACH(e, errors) {
                const char *rest = startswith(*e, display);
                unsigned line, column;
                int n = 0;

                ASSERT_TRUE(!strchr(*e, '\n'));
                ASSERT_TRUE(rest);
                if (startswith(rest, ": too many errors"))
                        continue;
                ASSERT_TRUE(sscanf(rest, ":%u:%u: %n", &line, &column, &n) == 2 && n > 0);
                ASSERT_TRUE(line >= 1 && column >= 1);
                ASSERT_TRUE(strstr(*e, "(expected "));
        }
}

static void test_bad_corpus(void) {
        _cleanup_(strv_freep) char **files = list_yaml(PROFILES_DIR "/bad");
        unsigned count = 0;

        STRV_FOREACH(f, files) {
                _cleanup_(freep) char *path = NULL, *expected_path = NULL, *data = NULL, *expected = NULL,
                                      *display = NULL;
                _cleanup_(profile_freep) Profile *p = NULL;
                _cleanup_(strv_freep) char **errors = NULL;
                size_t size, k = strlen(*f);

                ASSERT_TRUE(asprintf(&path, PROFILES_DIR "/bad/%s", *f) > 0);
                ASSERT_TRUE(asprintf(&expected_path, PROFILES_DIR "/bad/%.*s.expected", (int) (k - 5), *f) > 0);
                ASSERT_TRUE(asprintf(&display, "bad/%s", *f) > 0);
                ASSERT_OK(read_full_file(path, PROFILE_SIZE_MAX * 2, &data, &size));
                ASSERT_OK(read_full_file(expected_path, 64 * 1024, &expected, NULL));
                expected[strcspn(expected, "\n")] = '\0';

                ASSERT_INT_EQ(profile_load_string(display, data, size, &p, &errors), -EINVAL);
                ASSERT_TRUE(!p);
                assert_error_lines(errors, display);
                if (!streq(errors[0], expected))
                        fprintf(stderr, "%s: unexpected first error\n", *f);
                ASSERT_STR_EQ(errors[0], expected);
                count++;
        }
        ASSERT_TRUE(count >= 45);
}

/* Every .expected has its .yaml: a renamed case must not silently stop running. */
static void test_bad_corpus_complete(void) {
        _cleanup_(closedirp) DIR *d = opendir(PROFILES_DIR "/bad");

        ASSERT_TRUE(d);
        for (struct dirent *de; (de = readdir(d));) {
                _cleanup_(freep) char *yaml = NULL;
                size_t k = strlen(de->d_name);
                struct stat st;

                if (de->d_name[0] == '.')
                        continue;
                if (k > 9 && streq(de->d_name + k - 9, ".expected")) {
                        ASSERT_TRUE(
                                asprintf(&yaml, PROFILES_DIR "/bad/%.*s.yaml", (int) (k - 9), de->d_name) > 0);
                        ASSERT_INT_EQ(stat(yaml, &st), 0);
                } else {
                        ASSERT_TRUE(k > 5 && streq(de->d_name + k - 5, ".yaml"));
                        ASSERT_TRUE(
                                asprintf(&yaml, PROFILES_DIR "/bad/%.*s.expected", (int) (k - 5), de->d_name) >
                                0);
                        ASSERT_INT_EQ(stat(yaml, &st), 0);
                }
        }
}

static void test_all_errors_in_file_order(void) {
        static const char text[] =
                "nodes:\n"
                "  worker: { hostname: halo-2, links: { rdma0: 192.168.100.1/30 } }\n"
                "  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30, rdma1: 10.0.0.1/24 } }\n"
                "links:\n"
                "  rdma0: { match: { driver: ice }, mtu: 10000 }\n"
                "cluster: ok\n"
                "health: { interval: 0s, peerz: true }\n";
        static const char *const expected[] = {
                "t.yaml:3:45: nodes.head.links.rdma0: address 192.168.100.1 is already used by nodes.worker.links.rdma0 at line 2 (expected a different address on every node and link)",
                "t.yaml:3:63: nodes.head.links.rdma1: link 'rdma1' is not defined under links: (expected one of: rdma0)",
                "t.yaml:5:41: links.rdma0.mtu: 10000 is out of range (expected an MTU from 68 to 9216, like 9000)",
                "t.yaml:7:21: health.interval: 0s is out of range (expected a duration from 1s to 24h)",
                "t.yaml:7:25: health.peerz: unknown key 'peerz', did you mean 'peers'? (expected one of: interval, peers, port, prometheus-textfile, hosts, tcp-bulk-mbit)",
        };
        _cleanup_(strv_freep) char **errors = NULL;
        Profile *p = NULL;

        ASSERT_INT_EQ(profile_load_string("t.yaml", text, strlen(text), &p, &errors), -EINVAL);
        ASSERT_TRUE(!p);
        if (strv_length(errors) != ELEMENTSOF(expected))
                STRV_FOREACH(e, errors)
                        fprintf(stderr, "  %s\n", *e);
        ASSERT_INT_EQ(strv_length(errors), ELEMENTSOF(expected));
        for (size_t i = 0; i < ELEMENTSOF(expected); i++)
                ASSERT_STR_EQ(errors[i], expected[i]);

        /* ret_errors may be NULL. */
        ASSERT_INT_EQ(profile_load_string("t.yaml", text, strlen(text), &p, NULL), -EINVAL);
        ASSERT_TRUE(!p);
}

static void test_error_cap(void) {
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *text = NULL;
        size_t n = 0;
        FILE *f;

        f = open_memstream(&text, &n);
        ASSERT_TRUE(f);
        for (unsigned i = 0; i < 2000; i++)
                fprintf(f, "k%u: 1\n", i);
        ASSERT_INT_EQ(fclose(f), 0);

        ASSERT_INT_EQ(profile_load_string("cap.yaml", text, n, NULL, &errors), -EINVAL);
        ASSERT_INT_EQ(strv_length(errors), PROFILE_ERRORS_MAX + 1);
        /* The first hundred by position, and then the notice. */
        ASSERT_STR_EQ(
                errors[0],
                "cap.yaml:1:1: k0: unknown key 'k0' (expected one of: cluster, mode, links, nic, rdma, kernel, gpu, memory-min, nodes, health)");
        ASSERT_STR_EQ(
                errors[1],
                "cap.yaml:1:1: cluster: required key is missing (expected cluster: NAME at the top level, like cluster: strix-halo)");
        ASSERT_TRUE(startswith(errors[3], "cap.yaml:1:1: nodes: required key is missing"));
        ASSERT_TRUE(startswith(errors[4], "cap.yaml:2:1: k1: unknown key"));
        ASSERT_TRUE(startswith(errors[PROFILE_ERRORS_MAX - 1], "cap.yaml:97:1: k96: unknown key"));
        ASSERT_STR_EQ(
                errors[PROFILE_ERRORS_MAX],
                "cap.yaml: too many errors, stopped after the first 100 (expected at most 100 errors; fix these and run again)");
}

static void test_messages_stay_one_line(void) {
        static const char text[] = "cluster: x\n\"bad\\nkey\\u0007\": 1\nmode: \"a\\nb\"\n";
        _cleanup_(strv_freep) char **errors = NULL;

        ASSERT_INT_EQ(profile_load_string("nl\nname.yaml", text, strlen(text), NULL, &errors), -EINVAL);
        STRV_FOREACH(e, errors)
                ASSERT_TRUE(!strchr(*e, '\n'));
        ASSERT_STR_EQ(
                errors[2],
                "nl\\nname.yaml:2:1: bad\\nkey\\x07: unknown key 'bad\\nkey\\x07' (expected one of: cluster, mode, links, nic, rdma, kernel, gpu, memory-min, nodes, health)");
        ASSERT_STR_EQ(
                errors[3],
                "nl\\nname.yaml:3:7: mode: 'a\\nb' is not a known value (expected enforce or verify)");
}

static int write_file(const char *path, const char *data, size_t size) {
        _cleanup_(closep) int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

        if (fd < 0)
                return -errno;
        while (size > 0) {
                ssize_t k = write(fd, data, size);

                if (k <= 0)
                        return -EIO;
                data += k;
                size -= (size_t) k;
        }
        return 0;
}

static void test_size_cap(void) {
        char dir[] = "/tmp/halod-profile-test.XXXXXX";
        _cleanup_(freep) char *big = NULL, *edge = NULL, *reference = NULL, *data = NULL, *expected = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        size_t size, ten_mb = 10U * 1024U * 1024U;

        ASSERT_TRUE(mkdtemp(dir));
        ASSERT_TRUE(asprintf(&big, "%s/10mb.yaml", dir) > 0);
        ASSERT_TRUE(asprintf(&edge, "%s/edge.yaml", dir) > 0);

        /* 10 MB of a plausible profile: comments after a valid start. */
        data = malloc(ten_mb);
        ASSERT_TRUE(data);
        for (size_t i = 0; i < ten_mb; i++)
                data[i] = i % 64 == 63 ? '\n' : i % 64 == 0 ? '#' : 'x';
        ASSERT_OK(write_file(big, data, ten_mb));
        ASSERT_INT_EQ(profile_load_file(big, &p, &errors), -EINVAL);
        ASSERT_TRUE(!p);
        ASSERT_INT_EQ(strv_length(errors), 1);
        ASSERT_TRUE(
                asprintf(
                        &expected,
                        "%s:1:1: profile is larger than the cap of 1048576 bytes (expected a profile of at most 1 MiB)",
                        big) > 0);
        ASSERT_STR_EQ(errors[0], expected);
        errors = strv_free(errors);
        ASSERT_INT_EQ(profile_load_string("big.yaml", data, ten_mb, &p, &errors), -EINVAL);
        ASSERT_STR_EQ(
                errors[0],
                "big.yaml:1:1: profile is larger than the cap of 1048576 bytes (expected a profile of at most 1 MiB)");
        errors = strv_free(errors);

        /* Exactly at the cap loads; one byte more does not. */
        ASSERT_OK(read_full_file(SOURCE_ROOT "/conf/halod.yaml", PROFILE_SIZE_MAX, &reference, &size));
        /* The reference profile, then comment lines up to the byte. */
        memcpy(data, reference, size);
        for (size_t i = size; i < PROFILE_SIZE_MAX + 1; i++)
                data[i] = i % 64 == 63 ? '\n' : '#';
        ASSERT_OK(write_file(edge, data, PROFILE_SIZE_MAX));
        ASSERT_OK(profile_load_file(edge, &p, &errors));
        ASSERT_TRUE(p && !errors);
        p = profile_free(p);
        ASSERT_OK(write_file(edge, data, PROFILE_SIZE_MAX + 1));
        ASSERT_INT_EQ(profile_load_file(edge, &p, &errors), -EINVAL);
        ASSERT_TRUE(strstr(errors[0], "larger than the cap of 1048576 bytes"));

        ASSERT_INT_EQ(unlink(big), 0);
        ASSERT_INT_EQ(unlink(edge), 0);
        ASSERT_INT_EQ(rmdir(dir), 0);
}

static void test_unreadable(void) {
        _cleanup_(strv_freep) char **errors = NULL;
        Profile *p = NULL;

        ASSERT_INT_EQ(profile_load_file("/nonexistent/halod.yaml", &p, &errors), -ENOENT);
        ASSERT_TRUE(!p);
        ASSERT_INT_EQ(strv_length(errors), 1);
        ASSERT_STR_EQ(
                errors[0],
                "/nonexistent/halod.yaml: cannot read the profile: No such file or directory (expected a readable YAML file; pass its path as the PROFILE argument)");
        errors = strv_free(errors);
        ASSERT_INT_EQ(profile_load_file("/", &p, &errors), -EISDIR);
        ASSERT_TRUE(strstr(errors[0], "Is a directory"));
}

static void test_json(void) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(freep) char *data = NULL, *out = NULL, *expected = NULL;
        size_t size, n = 0;
        JsonWriter w;
        FILE *f;

        ASSERT_OK(read_full_file(SOURCE_ROOT "/conf/halod.yaml", PROFILE_SIZE_MAX, &data, &size));
        ASSERT_OK(profile_load_string("conf/halod.yaml", data, size, &p, NULL));
        f = open_memstream(&out, &n);
        ASSERT_TRUE(f);
        json_writer_init(&w, f, true);
        profile_dump_json(p, &w);
        json_writer_finish(&w);
        ASSERT_INT_EQ(fclose(f), 0);

        ASSERT_OK(read_full_file(PROFILES_DIR "/halod.json", 1024 * 1024, &expected, NULL));
        ASSERT_STR_EQ(out, expected);
}

int main(void) {
        test_good_profiles();
        test_reference_profile();
        test_daisy_chain();
        test_full_profile();
        test_node_nic();
        test_node_nic_errors();
        test_defaults();
        test_bad_corpus();
        test_bad_corpus_complete();
        test_all_errors_in_file_order();
        test_error_cap();
        test_messages_stay_one_line();
        test_size_cap();
        test_unreadable();
        test_json();
        return EXIT_SUCCESS;
}
