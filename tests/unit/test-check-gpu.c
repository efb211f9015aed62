/* SPDX-License-Identifier: MIT */
/* Tests for the gpu. checks, kernel.iommu, kernel.aspm and node.memory: the Strix Halo fixture trees
 * (tests/data/hosts/gpu-*, make-gpu-fixtures.py), scratch copies of them with real modes, and tables
 * of the values the kernel shows; and kernel.gtt, the old name of gpu.gtt, as a selector. */
#include <stdarg.h>
#include <sys/stat.h>

#include "basic/meminfo.h"
#include "basic/strv.h"
#include "check-read.h"
#include "check-test.h"
#include "check/check-gpu.h"
#include "check/check-kernel.h"
#include "check/check-node.h"
#include "check/check-registry.h"
#include "config.h"
#include "tests.h"

#define GIB (1024ULL * 1024ULL * 1024ULL)

static const char profile_full[] =
        "cluster: strix-halo\n"
        "links: { rdma0: { match: { driver: ice } } }\n"
        "kernel: { cmdline: [iommu=pt, pci=realloc, pcie_aspm=off, amdgpu.gttsize=126976, ttm.pages_limit=32505856] }\n"
        "gpu: { vram-max: 512M }\n"
        "memory-min: 120G\n"
        "nodes: { head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } } }\n";

/* Neither gpu: nor memory-min: nor the kernel parameters the device checks are for. */
static const char profile_bare[] =
        "cluster: strix-halo\n"
        "links: { rdma0: { match: { driver: ice } } }\n"
        "nodes: { head: { links: { rdma0: 192.168.100.1/30 } } }\n";

/* gpu: {}: the node has a GPU, its carve-out is not judged. */
static const char profile_gpu_empty[] =
        "cluster: strix-halo\n"
        "links: { rdma0: { match: { driver: ice } } }\n"
        "gpu: {}\n"
        "nodes: { head: { links: { rdma0: 192.168.100.1/30 } } }\n";

typedef struct Case {
        const char *host; /* below TEST_DATA_DIR/hosts, or an absolute path */
        const char *profile;
        CheckExpect expect[4];
} Case;

/* Runs every group these tests are about and asserts the expected checks. */
static void run_case(const Case *t) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(t->profile);
        _cleanup_(check_list_done) CheckList l = {};
        _cleanup_(snapshot_done) Snapshot s = {};
        _cleanup_(freep) char *root = NULL;
        Host h;
        NodeContext c;

        if (t->host[0] == '/')
                root = strdup(t->host);
        else
                ASSERT_TRUE(asprintf(&root, TEST_DATA_DIR "/hosts/%s", t->host) >= 0);
        ASSERT_TRUE(root);
        h = (Host){ .root = root };
        c = (NodeContext){ .host = &h, .profile = p, .node = profile_find_node(p, "head") };
        snapshot_init(&s, &c);

        test_read_for(&c, &s, "gpu.,kernel.,node.memory");
        ASSERT_OK(check_gpu(&c, &s, NULL, NULL, &l));
        ASSERT_OK(check_kernel_devices(&c, &s, NULL, NULL, &l));
        ASSERT_OK(check_node_memory(&c, &s, &l));
        /* node.memory: one of check_node's */
        ASSERT_INT_EQ(
                l.n_checks, check_registry_count(check_gpu) + check_registry_count(check_kernel_devices) + 1);
        for (size_t i = 0; i < ELEMENTSOF(t->expect) && t->expect[i].id; i++)
                assert_check(&l, &t->expect[i], t->host);
        for (size_t i = 0; i < l.n_checks; i++)
                ASSERT_TRUE(!strchr(l.checks[i].summary, '\n'));
}

static void test_fixtures(void) {
        static const Case cases[] = {
                { "gpu-strix-ok",
                  profile_full,
                  { { "gpu.vram",
                      CHECK_PASS,
                      "the iGPU's VRAM carve-out is 512 MiB on card1 (/sys/class/drm/card1/device/mem_info_vram_total), "
                      "within gpu.vram-max 512 MiB" },
                    { "kernel.iommu",
                      CHECK_PASS,
                      "the fabric NIC 0000:c2:00.0 (rdma0) and the GPU 0000:c3:00.0 (card1) are in identity IOMMU domains" },
                    { "node.memory",
                      CHECK_PASS,
                      "MemTotal is 125.3 GiB (/proc/meminfo), at least memory-min 120 GiB" },
                    { "gpu.gtt", CHECK_PASS, "ROCm gets 124.0 GiB on card1" } } },
                /* The guide's older form on 6.18: amdgpu.gttsize=126976 and no ttm.pages_limit. amdgpu's GTT
                 * (mem_info_gtt_total) is 124 GiB, TTM's page limit its default, half of MemTotal, and KFD
                 * caps what ROCm may allocate there: the "62 GB instead of 124". */
                { "gpu-strix-gttsize-only",
                  profile_full,
                  { { "gpu.gtt",
                      CHECK_FAIL,
                      "ROCm gets 62.7 GiB, not the 124.0 GiB on card1 (133143986176 bytes) of amdgpu's GTT: TTM's "
                      "page limit is 16426680 pages (/sys/module/ttm/parameters/pages_limit, TTM's default, half of "
                      "MemTotal (ttm_device.c): nothing sets ttm.pages_limit), and KFD caps what ROCm may allocate "
                      "at it (amdgpu_amdkfd_gpuvm.c); the profile asks 124.0 GiB: boot with "
                      "ttm.pages_limit=32505856 (see kernel.cmdline)" },
                    { "gpu.vram", CHECK_PASS, NULL } } },
                /* The vendor's default carve-out: gpu.vram names the BIOS setting, and MemTotal lost it. */
                { "gpu-strix-vendor-default",
                  profile_full,
                  { { "gpu.vram",
                      CHECK_FAIL,
                      "the iGPU's VRAM carve-out is 16 GiB on card1 (/sys/class/drm/card1/device/mem_info_vram_total), "
                      "above gpu.vram-max 512 MiB: set \"UMA Frame Buffer Size\" (or \"iGPU Memory\") in the BIOS to "
                      "512 MiB; the 15.5 GiB above it are memory that the GTT (and the model in it) cannot use" },
                    { "node.memory", CHECK_FAIL, "MemTotal is 109.8 GiB (/proc/meminfo), below memory-min 120 GiB" },
                    { "kernel.iommu", CHECK_PASS, NULL } } },
                /* The guide's "two of nothing". */
                { "gpu-strix-64g",
                  profile_full,
                  { { "node.memory",
                      CHECK_FAIL,
                      "MemTotal is 61.9 GiB (/proc/meminfo), below memory-min 120 GiB: this node cannot hold its share" },
                    { "gpu.vram", CHECK_PASS, NULL } } },
                { "gpu-strix-stock-kernel",
                  profile_full,
                  { { "kernel.iommu",
                      CHECK_FAIL,
                      "the fabric NIC 0000:c2:00.0 (rdma0) is DMA-FQ and the GPU 0000:c3:00.0 (card1) is DMA-FQ in "
                      "iommu_group/type, not identity" },
                    /* The kernel manages ASPM: sysfs says it, whether or not libpci could. */
                    { "kernel.aspm",
                      CHECK_FAIL,
                      "ASPM L1 is enabled on the PCIe link of 0000:c2:00.0 (sysfs link/l0s_aspm and link/l1_aspm)" } } },
                { "gpu-strix-no-iommu",
                  profile_full,
                  { { "kernel.iommu",
                      CHECK_PASS,
                      "the fabric NIC 0000:c2:00.0 (rdma0) and the GPU 0000:c3:00.0 (card1) are in no IOMMU group" } } },
                /* The profile asks for none of it. */
                { "gpu-strix-vendor-default",
                  profile_bare,
                  { { "gpu.vram", CHECK_SKIP, "the profile has no gpu: section" },
                    { "node.memory", CHECK_SKIP, "the profile sets no memory-min" },
                    { "kernel.iommu", CHECK_SKIP, "does not ask for iommu=pt" },
                    { "kernel.aspm", CHECK_SKIP, "does not ask for pcie_aspm=off" } } },
                { "gpu-strix-vendor-default",
                  profile_gpu_empty,
                  { { "gpu.vram", CHECK_SKIP, "the profile sets no gpu.vram-max" } } },
                /* No amdgpu at all: the old kernel trees, and a NIC-only one. */
                { "kernel-grub-missing",
                  profile_full,
                  { { "gpu.vram",
                      CHECK_SKIP,
                      "no GPU driven by amdgpu in /sys/class/drm: the carve-out cannot be checked" },
                    { "gpu.devices", CHECK_FAIL, "no /dev/kfd: amdgpu's compute interface (KFD) is missing" },
                    { "node.memory", CHECK_SKIP, "could not look at /proc/meminfo: No such file or directory" } } },
                { "nic-e810-x4",
                  profile_bare,
                  { { "gpu.devices",
                      CHECK_SKIP,
                      "the profile has no gpu: section, and no GPU is driven by amdgpu here" } } },
                /* A directory where sysfs has the card's device link. */
                { "kernel-strix-ok",
                  profile_full,
                  { { "kernel.iommu",
                      CHECK_SKIP,
                      "could not look at the PCI device of the GPU card1 (/sys/class/drm/card1/device): not a link to a "
                      "PCI device" } } },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                run_case(&cases[i]);

        if (HAVE_LIBPCI) {
                /* pcie_aspm=off is in force (no link/ in sysfs): the Link Control register says. */
                run_case(&(Case){
                        "gpu-strix-ok",
                        profile_full,
                        { { "kernel.aspm",
                            CHECK_PASS,
                            "ASPM is off on the PCIe link of 0000:c2:00.0 (the PCIe Link Control register in config "
                            "space)" } } });
                run_case(&(Case){ "gpu-strix-vendor-default",
                                  profile_full,
                                  { { "kernel.aspm",
                                      CHECK_FAIL,
                                      "ASPM L1 is enabled on the PCIe link of 0000:c2:00.0 (the PCIe Link Control "
                                      "register in config space): the link sleeps between bursts" } } });
        }
}

/* A scratch copy of a fixture tree with /dev/kfd and /dev/dri/renderD128 at the given modes and
 * group (what udev sets on a node); -1 leaves the group. */
static char *tree_with_modes(const char *tree, mode_t kfd, mode_t render, gid_t gid) {
        _cleanup_(freep) char *src = NULL, *p = NULL;
        char *root;

        ASSERT_TRUE(asprintf(&src, TEST_DATA_DIR "/hosts/%s", tree) >= 0);
        root = copy_tree_without(src, "dev/kmsg");
        ASSERT_TRUE(asprintf(&p, "%s/dev/kfd", root) >= 0);
        ASSERT_TRUE(chmod(p, kfd) >= 0);
        ASSERT_TRUE(gid == (gid_t) -1 || chown(p, (uid_t) -1, gid) >= 0);
        p = mfree(p);
        ASSERT_TRUE(asprintf(&p, "%s/dev/dri/renderD128", root) >= 0);
        ASSERT_TRUE(chmod(p, render) >= 0);
        ASSERT_TRUE(gid == (gid_t) -1 || chown(p, (uid_t) -1, gid) >= 0);
        return root;
}

static void shellf(const char *fmt, ...) {
        _cleanup_(freep) char *cmd = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&cmd, fmt, ap);
        va_end(ap);
        ASSERT_TRUE(r >= 0);
        ASSERT_INT_EQ(system(cmd), 0);
}

static void devices_case(
        const char *what, char *root, const char *profile, CheckOutcome outcome, const char *has) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile);
        _cleanup_(check_list_done) CheckList l = {};
        Host h = { .root = root };
        NodeContext c = { .host = &h, .profile = p };
        _cleanup_(snapshot_done) Snapshot s = {};

        snapshot_init(&s, &c);
        test_read_for(&c, &s, "gpu.devices");
        ASSERT_OK(check_gpu_devices(&c, &s, &l));
        assert_check(&l, &(CheckExpect){ "gpu.devices", outcome, has }, what);
        remove_tree(root);
}

static void test_devices(void) {
        char *root;

        /* systemd's udev rules: render 0666 for both. */
        devices_case(
                "0666",
                tree_with_modes("gpu-strix-ok", 0666, 0666, (gid_t) -1),
                profile_full,
                CHECK_PASS,
                "mode 0666), /dev/dri/renderD128 (group ");
        devices_case(
                "0666 summary",
                tree_with_modes("gpu-strix-ok", 0666, 0666, (gid_t) -1),
                profile_full,
                CHECK_PASS,
                "every user may open them");
        /* Without a gpu: section, an amdgpu card is reason enough to look. */
        devices_case(
                "no gpu:, a card",
                tree_with_modes("gpu-strix-ok", 0666, 0666, (gid_t) -1),
                profile_bare,
                CHECK_PASS,
                "every user may open them");
        devices_case(
                "0600",
                tree_with_modes("gpu-strix-ok", 0600, 0666, (gid_t) -1),
                profile_full,
                CHECK_FAIL,
                "only the owner may open /dev/kfd, so the workload's user cannot use the GPU");

        /* Group render (105 in the tree's /etc/group), as ROCm's documentation has it: needs root. */
        if (geteuid() == 0) {
                devices_case(
                        "0660 render",
                        tree_with_modes("gpu-strix-ok", 0660, 0660, 105),
                        profile_full,
                        CHECK_PASS,
                        "/dev/kfd (group render, mode 0660), /dev/dri/renderD128 (group render, mode 0660): the "
                        "workload's user must be in group render (usermod -aG render USER)");
                devices_case(
                        "0666 and 0660",
                        tree_with_modes("gpu-strix-ok", 0666, 0660, 39),
                        profile_full,
                        CHECK_PASS,
                        "/dev/dri/renderD128 (group video, mode 0660): the workload's user must be in group video");
        } else
                ASSERT_TRUE(!getenv("CI")); /* CI runs the suite as root */

        /* The kernel made /dev/kfd (sysfs has it), /dev does not show it: a private /dev. */
        root = tree_with_modes("gpu-strix-ok", 0666, 0666, (gid_t) -1);
        shellf("rm %s/dev/kfd", root);
        devices_case(
                "private /dev",
                root,
                profile_full,
                CHECK_SKIP,
                "could not look at /dev/kfd: the kernel has it (/sys/class/kfd/kfd), but /dev here does not show it");
        /* Neither: amdgpu made no KFD. */
        root = tree_with_modes("gpu-strix-ok", 0666, 0666, (gid_t) -1);
        shellf("rm -r %s/dev/kfd %s/sys/class/kfd", root, root);
        devices_case(
                "no kfd",
                root,
                profile_full,
                CHECK_FAIL,
                "no /dev/kfd: amdgpu's compute interface (KFD) is missing");
        /* No render node, but sysfs has one. */
        root = tree_with_modes("gpu-strix-ok", 0666, 0666, (gid_t) -1);
        shellf("rm -r %s/dev/dri", root);
        devices_case(
                "private /dev/dri",
                root,
                profile_full,
                CHECK_SKIP,
                "could not look at /dev/dri/renderD*: the kernel has it (/sys/class/drm/renderD*)");
        root = tree_with_modes("gpu-strix-ok", 0666, 0666, (gid_t) -1);
        shellf("rm -r %s/dev/dri %s/sys/class/drm/renderD128", root, root);
        devices_case(
                "no render node",
                root,
                profile_full,
                CHECK_FAIL,
                "no /dev/dri/renderD*: amdgpu made no render node");
}

/* Sources that cannot be read are "could not look", never a pass. */
static void test_unreadable(void) {
        static const struct {
                const char *hidden;
                CheckExpect expect;
        } cases[] = {
                { "sys/devices/pci0000:00/0000:00:08.1/0000:c3:00.0/mem_info_vram_total",
                  { "gpu.vram",
                    CHECK_SKIP,
                    "could not look at /sys/class/drm/card1/device/mem_info_vram_total: No such file or directory" } },
                { "proc/meminfo", { "node.memory", CHECK_SKIP, "could not look at /proc/meminfo" } },
                { "sys/kernel/iommu_groups/12/type",
                  { "kernel.iommu",
                    CHECK_SKIP,
                    "could not look at /sys/bus/pci/devices/0000:c2:00.0/iommu_group/type (the fabric NIC 0000:c2:00.0 "
                    "(rdma0))" } },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *root = copy_tree_without(TEST_DATA_DIR "/hosts/gpu-strix-ok", cases[i].hidden);
                Case t = { root, profile_full, { cases[i].expect } };

                run_case(&t);
                remove_tree(root);
        }
}

static void test_meminfo_total(void) {
        static const struct {
                const char *text;
                int r;
                uint64_t bytes;
        } cases[] = {
                /* A 128 GB Strix Halo board with a 512 MiB carve-out, a 64 GB one, a 16 GB laptop. */
                { "MemTotal:       131413440 kB\nMemFree:        127219136 kB\n", 0, 131413440ULL * 1024 },
                { "MemTotal:        64884576 kB\n", 0, 64884576ULL * 1024 },
                { "MemTotal:       15731588 kB", 0, 15731588ULL * 1024 },
                { "MemFree:          100 kB\nMemTotal:\t16000 kB\n", 0, 16000ULL * 1024 },
                { "MemFree:          100 kB\n", -ENOENT, 0 },
                { "", -ENOENT, 0 },
                { "MemTotal:       131413440 MB\n", -EBADMSG, 0 },
                { "MemTotal:       131413440\n", -EBADMSG, 0 },
                { "MemTotal:       -1 kB\n", -EBADMSG, 0 },
                { "MemTotal: kB\n", -EBADMSG, 0 },
                { "MemTotal:       131413440 kB trailing\n", -EBADMSG, 0 },
                { "MemTotal:       99999999999999999999 kB\n", -EBADMSG, 0 },
                { "MemTotal:       18014398509481984 kB\n", -EBADMSG, 0 }, /* bytes overflow 64 bits */
                /* Only the line that starts with it. */
                { "XMemTotal: 5 kB\n", -ENOENT, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint64_t bytes = 0;

                ASSERT_INT_EQ(meminfo_total(cases[i].text, &bytes), cases[i].r);
                if (cases[i].r == 0)
                        ASSERT_TRUE(bytes == cases[i].bytes);
        }
}

static void test_aspm_evaluate(void) {
        static const struct {
                int aspm;
                CheckOutcome outcome;
                const char *actual, *has;
        } cases[] = {
                { 0, CHECK_PASS, "off", "ASPM is off on the PCIe link of 0000:c2:00.0 (here)" },
                { 1, CHECK_FAIL, "L0s", "ASPM L0s is enabled on the PCIe link of 0000:c2:00.0 (here)" },
                { 2, CHECK_FAIL, "L1", "ASPM L1 is enabled" },
                { 3, CHECK_FAIL, "L0s L1", "ASPM L0s L1 are enabled" },
                { -1, CHECK_SKIP, "", "could not look at the PCIe link of 0000:c2:00.0: why" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(port_check_done) PortCheck p = {};

                ASSERT_OK(check_kernel_aspm_evaluate("0000:c2:00.0", cases[i].aspm, "here", "why", &p));
                ASSERT_INT_EQ(p.outcome, cases[i].outcome);
                ASSERT_STR_EQ(p.actual, cases[i].actual);
                ASSERT_TRUE(strstr(p.summary, cases[i].has));
                if (cases[i].outcome == CHECK_FAIL)
                        ASSERT_TRUE(strstr(p.summary, "setpci -s 0000:c2:00.0 CAP_EXP+10.w=0:3"));
        }
}

/* kernel.gtt, gpu.gtt's name before 0.2, still selects it: the check is reported as gpu.gtt only. */
static void test_kernel_gtt_alias(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_full);
        _cleanup_(check_list_done) CheckList l = {};
        Host h = { .root = TEST_DATA_DIR "/hosts/gpu-strix-ok" };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };

        ASSERT_TRUE(check_id_selected("gpu.gtt", "kernel.gtt"));
        ASSERT_TRUE(check_id_selected("gpu.gtt", "nic.,kernel.gtt"));
        ASSERT_TRUE(!check_id_selected("gpu.vram", "kernel.gtt"));
        ASSERT_TRUE(!check_id_selected("kernel.cmdline", "kernel.gtt"));
        /* Only the whole old id: kernel. is the kernel's checks, which gpu.gtt no longer is. */
        ASSERT_TRUE(!check_id_selected("gpu.gtt", "kernel."));
        ASSERT_TRUE(!check_id_selected("gpu.gtt", "kernel.g"));
        ASSERT_TRUE(checks_group_selected("gpu.", "kernel.gtt"));
        ASSERT_TRUE(!checks_group_selected("node.", "kernel.gtt"));

        ASSERT_OK(test_checks_run(&c, /* s= */ NULL, "kernel.gtt", &l));
        ASSERT_INT_EQ(l.n_checks, 1);
        ASSERT_STR_EQ(l.checks[0].id, "gpu.gtt");
        ASSERT_INT_EQ(l.checks[0].outcome, CHECK_PASS);
        check_list_done(&l);

        ASSERT_OK(test_checks_run(&c, /* s= */ NULL, "gpu.,node.", &l));
        ASSERT_INT_EQ(l.n_checks, 5);
        ASSERT_STR_EQ(l.checks[0].id, "gpu.vram");
        ASSERT_STR_EQ(l.checks[1].id, "gpu.gtt");
        ASSERT_STR_EQ(l.checks[2].id, "gpu.devices");
        ASSERT_STR_EQ(l.checks[3].id, "node.memory");
        ASSERT_STR_EQ(l.checks[4].id, "node.hostname");
        ASSERT_TRUE(!check_list_find(&l, "kernel.gtt"));
}

int main(void) {
        test_fixtures();
        test_devices();
        test_unreadable();
        test_meminfo_total();
        test_aspm_evaluate();
        test_kernel_gtt_alias();
        return EXIT_SUCCESS;
}
