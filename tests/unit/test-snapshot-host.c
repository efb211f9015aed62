/* SPDX-License-Identifier: MIT */
/* Tests for the snapshot's host facts (snapshot/snapshot-host.h): each source is read once per
 * snapshot, and what cannot be read is kept with its errno for the checks to say so. Driven by the
 * Strix Halo fixture tree (tests/data/hosts/gpu-strix-ok). */
#include "check-read.h"
#include "check-test.h"
#include "check/check-gpu.h"
#include "check/check-kernel.h"
#include "check/check-node.h"
#include "snapshot/snapshot.h"

static const char profile_full[] =
        "cluster: strix-halo\n"
        "links: { rdma0: { match: { driver: ice } } }\n"
        "kernel: { cmdline: [iommu=pt, pci=realloc, pcie_aspm=off, amdgpu.gttsize=126976, ttm.pages_limit=32505856] }\n"
        "gpu: { vram-max: 512M }\n"
        "memory-min: 120G\n"
        "nodes: { head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } } }\n";

static const SnapshotPart host_parts = SNAPSHOT_CMDLINE | SNAPSHOT_BOOT | SNAPSHOT_GPUS | SNAPSHOT_MEMINFO;

static void shell(const char *root, const char *what) {
        _cleanup_(freep) char *cmd = NULL;

        ASSERT_TRUE(asprintf(&cmd, "cd '%s' && %s", root, what) >= 0);
        ASSERT_INT_EQ(system(cmd), 0);
}

/* What the snapshot reads of the fixture, and that the groups judge from it: the sources are removed
 * after the read, and every check still sees them. */
static void test_read_once(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_full);
        _cleanup_(check_list_done) CheckList l = {};
        _cleanup_(snapshot_done) Snapshot s = {};
        char *root = copy_tree_without(TEST_DATA_DIR "/hosts/gpu-strix-ok", "dev/kmsg");
        Host h = { .root = root };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };

        snapshot_init(&s, &c);
        ASSERT_OK(snapshot_read(&s, host_parts));
        ASSERT_INT_EQ(s.parts & host_parts, host_parts);

        ASSERT_INT_EQ(s.host.cmdline_error, 0);
        ASSERT_TRUE(strstr(s.host.cmdline, " iommu=pt "));
        ASSERT_TRUE(kernel_cmdline_find(s.host.cmdline_parsed, "ttm.pages_limit"));
        ASSERT_INT_EQ(s.host.boot_error, 0);
        ASSERT_TRUE(s.host.boot && strstr(s.host.boot->cmdline, "amdgpu.gttsize=126976"));
        ASSERT_INT_EQ(s.host.drm_error, 0);
        ASSERT_TRUE(strv_contains(s.host.drm, "renderD128"));
        ASSERT_INT_EQ(s.host.gpus_error, 0);
        ASSERT_INT_EQ(s.host.n_gpus, 1);
        ASSERT_STR_EQ(s.host.gpus[0].card, "card1");
        ASSERT_STR_EQ(s.host.gpus[0].pci, "0000:c3:00.0");
        ASSERT_INT_EQ(s.host.gpus[0].vram.error, 0);
        ASSERT_TRUE(s.host.gpus[0].vram.bytes == 536870912);
        ASSERT_INT_EQ(s.host.gpus[0].gtt.error, 0);
        ASSERT_TRUE(s.host.gpus[0].gtt.bytes == 133143986176);
        ASSERT_INT_EQ(s.host.ttm_error, 0);
        ASSERT_STR_EQ(s.host.ttm_path, "/sys/module/ttm/parameters/pages_limit");
        ASSERT_TRUE(s.host.ttm_pages_limit == 32505856);
        ASSERT_INT_EQ(s.host.meminfo_error, 0);
        ASSERT_INT_EQ(s.host.mem_total_error, 0);
        ASSERT_TRUE(s.host.mem_total == 131413440ULL * 1024);

        /* Gone from the host now: only the snapshot still has them. */
        shell(root, "rm -r proc/cmdline proc/meminfo sys/class/drm sys/module etc/kernel/cmdline");
        ASSERT_OK(check_kernel(&c, &s, NULL, NULL, &l));
        ASSERT_OK(check_gpu_vram(&c, &s, &l));
        ASSERT_OK(check_gpu_gtt(&c, &s, &l));
        ASSERT_OK(check_node(&c, &s, NULL, NULL, &l));
        assert_check(&l, &(CheckExpect){ "kernel.cmdline", CHECK_PASS, "all 5 required parameters" }, root);
        /* The tree has /etc/kernel/cmdline and no boot entry: the next kernel-install's words, read
         * before they were removed, and a warning that they are not the next boot's. */
        assert_check(&l, &(CheckExpect){ "kernel.cmdline-next", CHECK_WARN, "carries all 5" }, root);
        assert_check(&l, &(CheckExpect){ "gpu.vram", CHECK_PASS, "512 MiB on card1" }, root);
        assert_check(&l, &(CheckExpect){ "gpu.gtt", CHECK_PASS, "ROCm gets 124.0 GiB on card1" }, root);
        assert_check(&l, &(CheckExpect){ "node.memory", CHECK_PASS, "MemTotal is 125.3 GiB" }, root);

        /* Forgotten, a part is read again: now the host lacks it, and the check says it cannot look. */
        snapshot_forget(&s, SNAPSHOT_CMDLINE | SNAPSHOT_MEMINFO);
        ASSERT_INT_EQ(s.parts & (SNAPSHOT_CMDLINE | SNAPSHOT_MEMINFO), 0);
        ASSERT_TRUE(!s.host.cmdline && !s.host.cmdline_parsed);
        check_list_done(&l);
        test_read_for(&c, &s, "kernel.cmdline,node.");
        ASSERT_OK(check_kernel_cmdline(&c, &s, &l));
        ASSERT_OK(check_node(&c, &s, NULL, NULL, &l));
        assert_check(&l, &(CheckExpect){ "kernel.cmdline", CHECK_FAIL, "cannot read /proc/cmdline" }, root);
        assert_check(&l, &(CheckExpect){ "node.memory", CHECK_SKIP, "could not look at /proc/meminfo" }, root);
        ASSERT_INT_EQ(s.host.cmdline_error, -ENOENT);
        ASSERT_INT_EQ(s.host.meminfo_error, -ENOENT);
        remove_tree(root);
}

/* A host root with nothing in it: every part is read, each with its error; no GPU driver is no error. */
static void test_nothing_there(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_full);
        _cleanup_(snapshot_done) Snapshot s = {};
        char *root = strdup("/tmp/halod-tree-XXXXXX");
        Host h = { .root = root };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };

        ASSERT_TRUE(root && mkdtemp(root));
        h.root = root;
        shell(root, "mkdir -p proc && echo 'MemFree: 1 kB' >proc/meminfo");
        snapshot_init(&s, &c);
        ASSERT_OK(snapshot_read(&s, host_parts));
        ASSERT_INT_EQ(s.parts & host_parts, host_parts);
        ASSERT_INT_EQ(s.host.cmdline_error, -ENOENT);
        ASSERT_TRUE(!s.host.cmdline && !s.host.cmdline_parsed);
        ASSERT_INT_EQ(s.host.boot_error, -ENOENT);
        ASSERT_TRUE(!s.host.boot);
        ASSERT_INT_EQ(s.host.drm_error, -ENOENT);
        ASSERT_INT_EQ(s.host.gpus_error, 0);
        ASSERT_INT_EQ(s.host.n_gpus, 0);
        ASSERT_INT_EQ(s.host.meminfo_error, 0);
        ASSERT_INT_EQ(s.host.mem_total_error, -ENOENT);
        snapshot_done(&s);
        ASSERT_INT_EQ(s.parts, 0);
        remove_tree(root);
}

/* /etc/hosts is the tree's below --root, read once; on the running system NSS answers, not the file. */
static void test_etc_hosts(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_full);
        _cleanup_(snapshot_done) Snapshot s = {}, running = {};
        char *root = copy_tree_without(TEST_DATA_DIR "/hosts/hosts-names", "etc/hosts");
        Host h = { .root = root }, system = {};
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") },
                    sc = { .host = &system, .profile = p, .node = profile_find_node(p, "head") };

        /* No file: no names, not an error. */
        snapshot_init(&s, &c);
        ASSERT_OK(snapshot_read(&s, SNAPSHOT_ETC_HOSTS));
        ASSERT_INT_EQ(s.host.etc_hosts_error, 0);
        ASSERT_STR_EQ(s.host.etc_hosts, "");
        /* Read once: a file written since is not seen until the part is forgotten. */
        shell(root, "echo '192.168.100.2 halo-2' >etc/hosts");
        ASSERT_OK(snapshot_read(&s, SNAPSHOT_ETC_HOSTS));
        ASSERT_STR_EQ(s.host.etc_hosts, "");
        snapshot_forget(&s, SNAPSHOT_ETC_HOSTS);
        ASSERT_OK(snapshot_read(&s, SNAPSHOT_ETC_HOSTS));
        ASSERT_STR_EQ(s.host.etc_hosts, "192.168.100.2 halo-2\n");

        /* The running system's file is read too (for the line that answers), and its name. */
        snapshot_init(&running, &sc);
        ASSERT_OK(snapshot_read(&running, SNAPSHOT_ETC_HOSTS));
        ASSERT_TRUE(running.host.etc_hosts || running.host.etc_hosts_error < 0);
        ASSERT_TRUE(running.host.hostname && running.host.hostname_error == 0);
        remove_tree(root);
}

/* The parts the checks judge instead of reading the host themselves (issue 33): /etc/group, the device
 * nodes, the GPU's IOMMU group and the networkd and netplan files, each read once and kept with its
 * error, and read again only after it is forgotten. */
static void test_judged_parts(void) {
        static const SnapshotPart parts = SNAPSHOT_GPUS | SNAPSHOT_ETC_GROUP | SNAPSHOT_DEVICES |
                SNAPSHOT_NET_CONFIG;
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_full);
        _cleanup_(snapshot_done) Snapshot s = {};
        char *root = copy_tree_without(TEST_DATA_DIR "/hosts/gpu-strix-ok", "dev/kmsg");
        Host h = { .root = root };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };

        shell(root,
              "mkdir -p etc/systemd/network etc/netplan && printf '[Match]\\nName=x\\n' "
              ">etc/systemd/network/10-x.network && echo 'network: {}' >etc/netplan/01.yaml");
        snapshot_init(&s, &c);
        ASSERT_OK(snapshot_read(&s, parts));
        ASSERT_INT_EQ(s.parts & parts, parts);
        ASSERT_TRUE(strstr(s.host.etc_group, "render:x:105:"));
        ASSERT_INT_EQ(s.host.kfd.error, 0);
        ASSERT_STR_EQ(s.host.kfd.path, "/dev/kfd");
        ASSERT_TRUE(s.host.kfd_in_sysfs);
        ASSERT_INT_EQ(s.host.render.n, 1);
        ASSERT_STR_EQ(s.host.render.nodes[0].path, "/dev/dri/renderD128");
        /* No /dev/infiniband: no uverbs device, and the NIC family the tree's PCI bus shows. */
        ASSERT_INT_EQ(s.host.uverbs.error, -ENOENT);
        ASSERT_INT_EQ(s.host.uverbs.n, 0);
        ASSERT_INT_EQ(s.host.nic_family, NIC_FAMILY_E810);
        ASSERT_INT_EQ(s.host.gpus[0].iommu.error, 0);
        ASSERT_STR_EQ(s.host.gpus[0].iommu.type, "identity");
        ASSERT_INT_EQ(s.host.network_files.n, 1);
        ASSERT_STR_EQ(s.host.network_files.files[0].path, "/etc/systemd/network/10-x.network");
        ASSERT_STR_EQ(s.host.network_files.files[0].text, "[Match]\nName=x\n");
        ASSERT_INT_EQ(s.host.netplan_files.n, 1);
        ASSERT_STR_EQ(s.host.netplan_files.files[0].path, "/etc/netplan/01.yaml");

        /* Gone from the host: the snapshot keeps what it read until the parts are forgotten. */
        shell(root, "rm -r etc/group dev/kfd etc/systemd etc/netplan");
        ASSERT_OK(snapshot_read(&s, parts));
        ASSERT_TRUE(s.host.etc_group);
        ASSERT_INT_EQ(s.host.kfd.error, 0);
        ASSERT_INT_EQ(s.host.network_files.n, 1);
        snapshot_forget(&s, SNAPSHOT_ETC_GROUP | SNAPSHOT_DEVICES | SNAPSHOT_NET_CONFIG);
        ASSERT_INT_EQ(s.parts & (SNAPSHOT_ETC_GROUP | SNAPSHOT_DEVICES | SNAPSHOT_NET_CONFIG), 0);
        ASSERT_OK(snapshot_read(&s, parts));
        ASSERT_TRUE(!s.host.etc_group);
        ASSERT_INT_EQ(s.host.etc_group_error, -ENOENT);
        ASSERT_INT_EQ(s.host.kfd.error, -ENOENT);
        ASSERT_INT_EQ(s.host.network_files.n, 0);
        ASSERT_INT_EQ(s.host.netplan_files.n, 0);
        remove_tree(root);
}

/* The ports a verify hands to halod's watch: a copy of the snapshot's located ports that outlives it. */
static void test_ports_copy(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_full);
        _cleanup_(fabric_ports_done) FabricPorts copy = {};
        Host h = { .root = TEST_DATA_DIR "/hosts/gpu-strix-ok" };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };

        {
                _cleanup_(snapshot_done) Snapshot s = {};

                snapshot_init(&s, &c);
                ASSERT_OK(snapshot_read(&s, SNAPSHOT_LOCATED));
                ASSERT_INT_EQ(s.n_ports, 1);
                ASSERT_TRUE(s.ports[0].ifname && s.ports[0].pci);
                ASSERT_OK(fabric_ports_copy(s.ports, s.n_ports, &copy));
                ASSERT_TRUE(copy.ports[0].ifname != s.ports[0].ifname);
        }
        ASSERT_INT_EQ(copy.n, 1);
        ASSERT_STR_EQ(copy.ports[0].link, "rdma0");
        ASSERT_TRUE(copy.ports[0].has_address);
        ASSERT_TRUE(copy.ports[0].ifname && copy.ports[0].pci);
        ASSERT_TRUE(!copy.ports[0].problem && !copy.ports[0].resolve_error);
}

/* The watch's ports seed a re-check's snapshot (snapshot_seed_ports()): taken as read and located,
 * and refused when they are not the node's links (another profile's), or the ports were read. */
static void test_seed_ports(void) {
        static const char other_profile[] =
                "cluster: strix-halo\n"
                "links: { fab0: { match: { driver: ice } } }\n"
                "nodes: { head: { hostname: halo-1, links: { fab0: 192.168.100.1/30 } } }\n";
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_full),
                                         *q = test_profile_load(other_profile);
        _cleanup_(fabric_ports_done) FabricPorts ports = {};
        Host h = { .root = TEST_DATA_DIR "/hosts/gpu-strix-ok" };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };
        NodeContext other = { .host = &h, .profile = q, .node = profile_find_node(q, "head") };

        ASSERT_OK(fabric_ports_find(&c, &ports));
        ASSERT_INT_EQ(ports.n, 1);
        {
                _cleanup_(snapshot_done) Snapshot s = {};

                snapshot_init(&s, &c);
                ASSERT_OK(snapshot_seed_ports(&s, ports.ports, ports.n));
                ASSERT_INT_EQ(s.parts & (SNAPSHOT_PORTS | SNAPSHOT_LOCATED), SNAPSHOT_PORTS | SNAPSHOT_LOCATED);
                ASSERT_TRUE(s.ports[0].ifname != ports.ports[0].ifname);
                ASSERT_STR_EQ(s.ports[0].ifname, ports.ports[0].ifname);
                ASSERT_STR_EQ(s.ports[0].pci, ports.ports[0].pci);
                ASSERT_INT_EQ(s.netdevs.n, 0);
                /* Read already: not seeded twice. */
                ASSERT_INT_EQ(snapshot_seed_ports(&s, ports.ports, ports.n), -ESTALE);
        }
        {
                _cleanup_(snapshot_done) Snapshot s = {};

                snapshot_init(&s, &other);
                ASSERT_INT_EQ(snapshot_seed_ports(&s, ports.ports, ports.n), -ESTALE);
                ASSERT_INT_EQ(snapshot_seed_ports(&s, ports.ports, 0), -ESTALE);
                ASSERT_INT_EQ(s.parts & SNAPSHOT_PORTS, 0);
        }
}

int main(void) {
        test_judged_parts();
        test_ports_copy();
        test_seed_ports();
        test_read_once();
        test_etc_hosts();
        test_nothing_there();
        return EXIT_SUCCESS;
}
