/* SPDX-License-Identifier: MIT */
/* Tests for the kernel. checks, gpu.gtt and the profile check, driven by the fixture hosts in tests/data/hosts. */
#include <stdarg.h>
#include <sys/stat.h>

#include "basic/strv.h"
#include "check-read.h"
#include "check-test.h"
#include "check/check-gpu.h"
#include "check/check-kernel.h"
#include "check/check-profile.h"
#include "tests.h"

#define MID "3f1a7c2e9b8d4e5fa6c7b8d9e0f1a2b3"
#define UBUNTU_UUID "0c9b3f1e-6a2d-4f7e-9b1c-5d8e2a7f4c31"
#define PARAMS \
        "iommu=pt", "pci=realloc", "pcie_aspm=off", "amdgpu.gttsize=126976", "ttm.pages_limit=32505856"

typedef struct Expect {
        CheckOutcome outcome;
        const char *summary_has; /* a substring of the summary; NULL: anything */
} Expect;

typedef struct Case {
        const char *host; /* below TEST_DATA_DIR/hosts, or an absolute path */
        const char *required[8];
        Expect cmdline, next, gtt;
} Case;

static void expect(const CheckList *l, const char *id, const Expect *e, const char *host) {
        assert_check(l, &(CheckExpect){ id, e->outcome, e->summary_has }, host);
}

static void run_case(const Case *t) {
        _cleanup_(freep) char *root = NULL;
        CheckList l = {};
        Profile p = { .path = (char *) "halod.yaml", .kernel_cmdline = (char **) t->required };
        Host h;
        NodeContext c = { .host = &h, .profile = &p };
        _cleanup_(snapshot_done) Snapshot s = {};

        if (t->host[0] == '/')
                root = strdup(t->host);
        else
                ASSERT_TRUE(asprintf(&root, TEST_DATA_DIR "/hosts/%s", t->host) >= 0);
        ASSERT_TRUE(root);
        h = (Host){ .root = root };
        snapshot_init(&s, &c);

        test_read_for(&c, &s, "kernel.cmdline,gpu.gtt");
        ASSERT_OK(check_kernel(&c, &s, NULL, NULL, &l));
        ASSERT_OK(check_gpu_gtt(&c, &s, &l));
        ASSERT_INT_EQ(l.n_checks, 3);
        expect(&l, "kernel.cmdline", &t->cmdline, t->host);
        expect(&l, "kernel.cmdline-next", &t->next, t->host);
        expect(&l, "gpu.gtt", &t->gtt, t->host);
        for (size_t i = 0; i < l.n_checks; i++)
                ASSERT_TRUE(!strchr(l.checks[i].summary, '\n'));
        check_list_done(&l);
}

static const Case cases[] = {
        { "kernel-strix-ok",
          { PARAMS, NULL },
          { CHECK_PASS, "all 5 required parameters" },
          { CHECK_PASS,
            "entry 3f1a7c2e9b8d4e5fa6c7b8d9e0f1a2b3-6.17.7-300.fc43.x86_64, picked by saved_entry in grubenv) carries all 5" },
          /* The words quote the kernel (sysfs), not the profile. */
          { CHECK_PASS,
            "ROCm gets 124.0 GiB on card1 (133143986176 bytes): amdgpu's GTT (mem_info_gtt_total), within TTM's "
            "page limit of 32505856 pages (124.0 GiB, /sys/module/ttm/parameters/pages_limit, from "
            "ttm.pages_limit=32505856 on the kernel command line)" } },
        /* grubby ran, no reboot yet. */
        { "kernel-strix-reboot-pending",
          { PARAMS, NULL },
          { CHECK_FAIL,
            "lacks 5 of 5 required parameters: iommu=pt, pci=realloc, pcie_aspm=off, amdgpu.gttsize=126976, "
            "ttm.pages_limit=32505856" },
          { CHECK_WARN, "reboot pending: the next boot (entry 3f1a7c2e9b8d4e5fa6c7b8d9e0f1a2b3-6.17.7" },
          { CHECK_FAIL,
            "amdgpu GTT is 62.5 GiB on card1 (67108864000 bytes), the profile asks 124.0 GiB (133143986176 bytes" } },
        /* A kernel update wrote a new entry without them: fine now, wrong after the next boot. */
        { "kernel-strix-update-dropped",
          { PARAMS, NULL },
          { CHECK_PASS, NULL },
          { CHECK_FAIL,
            "the newest version) lacks pci=realloc, pcie_aspm=off, amdgpu.gttsize=126976, ttm.pages_limit=32505856: add "
            "them to the options line of /boot/loader/entries/3f1a7c2e9b8d4e5fa6c7b8d9e0f1a2b3-6.17.7-300.fc43.x86_64"
            ".conf (on Fedora: grubby --update-kernel=ALL --args='pci=realloc pcie_aspm=off amdgpu.gttsize=126976 "
            "ttm.pages_limit=32505856')" },
          { CHECK_PASS, NULL } },
        /* grubenv pins an older entry than the newest, and that one lacks them. */
        { "kernel-saved-entry-old",
          { PARAMS, NULL },
          { CHECK_FAIL, NULL },
          { CHECK_FAIL,
            "entry 3f1a7c2e9b8d4e5fa6c7b8d9e0f1a2b3-6.17.5-300.fc43.x86_64, picked by saved_entry in grubenv) lacks iommu=pt" },
          { CHECK_SKIP, "no GPU driven by amdgpu in /sys/class/drm" } },
        /* GRUB_DEFAULT=1 boots the second entry, whatever saved_entry says. */
        { "kernel-grub-default-index",
          { PARAMS, NULL },
          { CHECK_FAIL, NULL },
          { CHECK_FAIL,
            "the next boot (entry 3f1a7c2e9b8d4e5fa6c7b8d9e0f1a2b3-6.17.5-300.fc43.x86_64, picked by GRUB_DEFAULT=1 "
            "in /etc/default/grub) lacks iommu=pt" },
          { CHECK_SKIP, NULL } },
        /* options $kernelopts; the running kernel got a ttm.pages_limit that disagrees with the GTT size. */
        { "kernel-kernelopts",
          { PARAMS, NULL },
          { CHECK_FAIL, "ttm.pages_limit=32505856 (have ttm.pages_limit=16252928)" },
          { CHECK_WARN, "reboot pending" },
          { CHECK_FAIL,
            "the running kernel disagrees with itself: ttm.pages_limit=16252928 but amdgpu.gttsize=126976 MiB is 32505856 pages" } },
        /* Without "$kernelopts" resolved, the failure says why. */
        { "kernel-kernelopts",
          { "nosmt", NULL },
          { CHECK_FAIL, NULL },
          { CHECK_FAIL, "(grubenv does not set $tuned_params) lacks nosmt" },
          { CHECK_SKIP, "neither amdgpu.gttsize nor ttm.pages_limit" } },
        /* No entry to read: /etc/kernel/cmdline is only what the next kernel-install writes. */
        { "kernel-etc-kernel-cmdline",
          { PARAMS, NULL },
          { CHECK_PASS, NULL },
          { CHECK_WARN,
            "cannot tell what the next boot gets; /etc/kernel/cmdline, which kernel-install writes into new "
            "entries, carries all 5" },
          { CHECK_SKIP, NULL } },
        /* systemd-boot with the ESP at /boot/efi, entries written from /proc/cmdline. */
        { "kernel-sdboot-esp",
          { PARAMS, NULL },
          { CHECK_PASS, NULL },
          { CHECK_PASS,
            "the next boot (systemd-boot entry /boot/efi/loader/entries/" MID "-6.17.7-300.fc43.x86_64.conf, the "
            "first in systemd-boot's order) carries all 5" },
          { CHECK_SKIP, NULL } },
        /* /etc/kernel/cmdline edited, kernel-install not run: a reboot would come up without them. */
        { "kernel-sdboot-not-installed",
          { PARAMS, NULL },
          { CHECK_FAIL, NULL },
          { CHECK_FAIL,
            "lacks iommu=pt, pci=realloc, pcie_aspm=off, amdgpu.gttsize=126976, ttm.pages_limit=32505856: edited, "
            "not installed: /etc/kernel/cmdline carries them, but /boot/efi/loader/entries/" MID
            "-6.17.7-300.fc43.x86_64.conf was written before: run kernel-install add 6.17.7-300.fc43.x86_64 "
            "/usr/lib/modules/6.17.7-300.fc43.x86_64/vmlinuz, then reboot" },
          { CHECK_SKIP, NULL } },
        /* XBOOTLDR at /boot, the ESP at /efi: loader.conf's default pins the older kernel. */
        { "kernel-sdboot-xbootldr",
          { PARAMS, NULL },
          { CHECK_PASS, NULL },
          { CHECK_FAIL,
            "the next boot (systemd-boot entry /boot/loader/entries/" MID "-6.12.38+deb13-amd64.conf, picked by "
            "default " MID "-6.12.38* in /efi/loader/loader.conf) lacks iommu=pt, pci=realloc, pcie_aspm=off, "
            "amdgpu.gttsize=126976, ttm.pages_limit=32505856: edited, not installed: /etc/kernel/cmdline carries "
            "them, but /boot/loader/entries/" MID "-6.12.38+deb13-amd64.conf was written before: run kernel-install "
            "add 6.12.38+deb13-amd64 /boot/vmlinuz-6.12.38+deb13-amd64, then reboot" },
          { CHECK_SKIP, NULL } },
        /* RHEL 8 on UEFI, grubenv recreated without kernelopts: 10_linux's fallback in grub.cfg. */
        { "kernel-rhel8-efi",
          { PARAMS, NULL },
          { CHECK_PASS, NULL },
          { CHECK_PASS,
            "the next boot (entry " MID
            "-4.18.0-553.el8_10.x86_64, picked by saved_entry in grubenv) carries all 5" },
          { CHECK_SKIP, NULL } },
        /* Ubuntu's cloud image: the drop-in read after /etc/default/grub takes the edit away. */
        { "kernel-ubuntu-cloudimg",
          { PARAMS, NULL },
          { CHECK_FAIL, NULL },
          { CHECK_FAIL,
            "/etc/default/grub has them in GRUB_CMDLINE_LINUX_DEFAULT, but "
            "/etc/default/grub.d/50-cloudimg-settings.cfg, which grub-mkconfig reads after it, sets "
            "GRUB_CMDLINE_LINUX_DEFAULT again without them: add them there (or in a drop-in sorted after it), then "
            "run update-grub" },
          { CHECK_SKIP, NULL } },
        { "kernel-etc-kernel-cmdline",
          { PARAMS, "amd_pstate=active", NULL },
          { CHECK_FAIL, "lacks 1 of 6 required parameters: amd_pstate=active" },
          { CHECK_FAIL, "lacks amd_pstate=active: add them to /etc/kernel/cmdline, then reinstall the kernel" },
          { CHECK_SKIP, NULL } },
        { "kernel-grub-missing",
          { PARAMS, NULL },
          { CHECK_FAIL, NULL },
          { CHECK_FAIL, "add them to GRUB_CMDLINE_LINUX in /etc/default/grub, then run update-grub" },
          { CHECK_SKIP, NULL } },
        { "kernel-grub-missing",
          { "quiet", "splash", NULL },
          { CHECK_PASS, NULL },
          { CHECK_PASS, "the next boot (/etc/default/grub) carries all 2" },
          { CHECK_SKIP, NULL } },
        { "kernel-grub-dropin",
          { PARAMS, NULL },
          { CHECK_PASS, NULL },
          { CHECK_PASS, "the next boot (/etc/default/grub.d/60-halo.cfg) carries all 5" },
          { CHECK_SKIP, NULL } },
        /* iommu=pt is there, but after "--": init's, not the kernel's. */
        { "kernel-no-bootcfg",
          { "iommu=pt", NULL },
          { CHECK_FAIL, "lacks 1 of 1 required parameters: iommu=pt" },
          { CHECK_SKIP,
            "no boot configuration found (looked for /efi/loader/entries/*.conf, /boot/loader/entries/*.conf, "
            "/boot/efi/loader/entries/*.conf, /etc/kernel/cmdline, "
            "/boot/grub/grub.cfg, /boot/grub2/grub.cfg, "
            "/etc/default/grub)" },
          { CHECK_SKIP, NULL } },
        /* The profile asks nothing of the kernel. */
        { "kernel-strix-ok",
          { NULL },
          { CHECK_SKIP, "requires no kernel parameters" },
          { CHECK_SKIP, "requires no kernel parameters" },
          { CHECK_SKIP, "neither amdgpu.gttsize nor ttm.pages_limit" } },
        /* Newer kernels deprecate amdgpu.gttsize: ttm.pages_limit alone sets the GTT size (amdgpu_ttm.c
         * sizes the GTT from TTM's limit when amdgpu.gttsize is unset). */
        { "kernel-strix-ok",
          { "ttm.pages_limit=32505856", NULL },
          { CHECK_PASS, NULL },
          { CHECK_PASS, NULL },
          { CHECK_PASS, "ROCm gets 124.0 GiB on card1 (133143986176 bytes)" } },
        /* amdgpu.gttsize alone leaves TTM at half of RAM, where KFD caps ROCm: never a pass. */
        { "kernel-strix-ok",
          { "amdgpu.gttsize=0x1F000", NULL },
          { CHECK_FAIL, "amdgpu.gttsize=0x1F000 (have amdgpu.gttsize=126976)" },
          { CHECK_FAIL, NULL },
          { CHECK_FAIL,
            "the profile sets amdgpu.gttsize=126976 but no ttm.pages_limit: amdgpu's GTT would be 124.0 GiB, but "
            "TTM keeps its page limit at half of RAM (ttm_device.c) and KFD caps what ROCm may allocate there "
            "(amdgpu_amdkfd_gpuvm.c): add ttm.pages_limit=32505856 to kernel.cmdline" } },
        { "kernel-strix-ok",
          { "amdgpu.gttsize=65536", "ttm.pages_limit=16777216", NULL },
          { CHECK_FAIL, "amdgpu.gttsize=65536 (have amdgpu.gttsize=126976), ttm.pages_limit=16777216 (have" },
          { CHECK_FAIL, NULL },
          { CHECK_FAIL,
            "amdgpu GTT is 124.0 GiB on card1 (133143986176 bytes), the profile asks 64.0 GiB (68719476736 bytes, amdgpu.gttsize=65536 MiB" } },
        { "kernel-strix-ok",
          { "amdgpu.gttsize=126976", "ttm.pages_limit=1", NULL },
          { CHECK_FAIL, NULL },
          { CHECK_FAIL, NULL },
          { CHECK_FAIL,
            "the profile disagrees with itself: ttm.pages_limit=1 but amdgpu.gttsize=126976 MiB is 32505856 pages" } },
        { "kernel-strix-ok",
          { "amdgpu.gttsize=lots", NULL },
          { CHECK_FAIL, NULL },
          { CHECK_FAIL, NULL },
          { CHECK_FAIL, "the profile's amdgpu.gttsize=lots is not a size" } },
        { "kernel-strix-ok",
          { "two words", NULL },
          { CHECK_FAIL, "not a single parameter" },
          { CHECK_FAIL, "not a single parameter" },
          { CHECK_SKIP, NULL } },
        { "/nonexistent-kernel-host",
          { PARAMS, NULL },
          { CHECK_FAIL, "cannot read /proc/cmdline: No such file or directory" },
          { CHECK_SKIP, "no boot configuration found" },
          { CHECK_SKIP, "no GPU driven by amdgpu" } },
};

static void test_fixtures(void) {
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                run_case(&cases[i]);
}

/* What kernel.cmdline says a reboot brings into force (Check.pending_reboot, the PendingReboot
 * property): the parameters the running kernel lacks, only where the next boot carries them all. */
static void test_pending_reboot(void) {
        static const struct {
                const char *host;
                const char *reboot; /* NULL: nothing pending */
        } t[] = {
                { "kernel-strix-reboot-pending",
                  "kernel command line: iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 "
                  "ttm.pages_limit=32505856" },
                { "kernel-kernelopts", "kernel command line: ttm.pages_limit=32505856" },
                /* In force already. */
                { "kernel-strix-ok", NULL },
                /* The next boot lacks them too: a reboot alone brings nothing. */
                { "kernel-saved-entry-old", NULL },
        };
        const char *required[] = { PARAMS, NULL };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                _cleanup_(freep) char *root = NULL;
                _cleanup_(check_list_done) CheckList l = {};
                Profile p = { .path = (char *) "halod.yaml", .kernel_cmdline = (char **) required };
                Host h;
                NodeContext c = { .host = &h, .profile = &p };
                _cleanup_(snapshot_done) Snapshot s = {};
                const Check *k;

                ASSERT_TRUE(asprintf(&root, TEST_DATA_DIR "/hosts/%s", t[i].host) >= 0);
                h = (Host){ .root = root };
                snapshot_init(&s, &c);
                test_read_for(&c, &s, "kernel.cmdline");
                ASSERT_OK(check_kernel(&c, &s, NULL, NULL, &l));
                k = check_list_find(&l, "kernel.cmdline");
                ASSERT_TRUE(k);
                if (t[i].reboot)
                        ASSERT_STR_EQ(strna(k->pending_reboot), t[i].reboot);
                else
                        ASSERT_TRUE(!k->pending_reboot);
                /* Only kernel.cmdline says it: kernel.cmdline-next's warning is the same fact. */
                ASSERT_TRUE(!check_list_find(&l, "kernel.cmdline-next")->pending_reboot);
        }
}

static void shellf(const char *fmt, ...) _printf_(1, 2);
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

/* Broken sysfs: an amdgpu card without the GTT attribute, then with garbage in it; then TTM's page
 * limit missing and holding garbage. */
static void test_gtt_broken_sysfs(void) {
        char dir[] = "/tmp/kernel-gtt-XXXXXX";
        Case t = {
                .host = dir,
                .required = { "amdgpu.gttsize=126976", "ttm.pages_limit=32505856", NULL },
                .cmdline = { CHECK_PASS, NULL },
                .next = { CHECK_SKIP, NULL },
                .gtt = { CHECK_FAIL, "cannot read /sys/class/drm/card0/device/mem_info_gtt_total" },
        };

        ASSERT_TRUE(mkdtemp(dir));
        shellf("mkdir -p %s/proc %s/sys/class/drm/card0/device && "
               "echo amdgpu.gttsize=126976 ttm.pages_limit=32505856 >%s/proc/cmdline && "
               "ln -s ../../../../bus/pci/drivers/amdgpu %s/sys/class/drm/card0/device/driver",
               dir,
               dir,
               dir,
               dir);
        run_case(&t);

        shellf("echo 128GB >%s/sys/class/drm/card0/device/mem_info_gtt_total", dir);
        t.gtt = (Expect){ CHECK_FAIL, "mem_info_gtt_total holds \"128GB\", not a byte count" };
        run_case(&t);

        /* amdgpu's GTT is right; TTM's limit cannot be read: never a pass. */
        shellf("echo 133143986176 >%s/sys/class/drm/card0/device/mem_info_gtt_total", dir);
        t.gtt = (Expect){ CHECK_FAIL,
                          "cannot read /sys/module/ttm/parameters/pages_limit: No such file or directory: TTM's page "
                          "limit caps what ROCm may allocate" };
        run_case(&t);
        shellf("mkdir -p %s/sys/module/ttm/parameters && echo -1 >%s/sys/module/ttm/parameters/pages_limit",
               dir,
               dir);
        t.gtt = (Expect){ CHECK_FAIL, "/sys/module/ttm/parameters/pages_limit holds \"-1\", not a page count" };
        run_case(&t);
        /* AMD's amdgpu-dkms: its own TTM, amdttm. */
        shellf("rm -r %s/sys/module/ttm && mkdir -p %s/sys/module/amdttm/parameters && "
               "echo 32505856 >%s/sys/module/amdttm/parameters/pages_limit",
               dir,
               dir,
               dir);
        t.gtt = (Expect){ CHECK_PASS,
                          "within TTM's page limit of 32505856 pages (124.0 GiB, "
                          "/sys/module/amdttm/parameters/pages_limit, from ttm.pages_limit=32505856 on the kernel "
                          "command line)" };
        run_case(&t);
        /* Written at run time (or by modprobe.d): the file, not the command line, is the limit. */
        shellf("echo 8388608 >%s/sys/module/amdttm/parameters/pages_limit", dir);
        t.gtt = (Expect){
                CHECK_FAIL,
                "ROCm gets 32.0 GiB, not the 124.0 GiB on card0 (133143986176 bytes) of amdgpu's GTT: TTM's "
                "page limit is 8388608 pages (/sys/module/amdttm/parameters/pages_limit, not the "
                "ttm.pages_limit=32505856 of the kernel command line: written at run time or by modprobe.d)"
        };
        run_case(&t);

        shellf("echo ttm.pages_limit=lots amdgpu.gttsize=126976 >%s/proc/cmdline", dir);
        t.cmdline = (Expect){ CHECK_FAIL, NULL };
        t.gtt = (Expect){ CHECK_FAIL, "the running kernel's ttm.pages_limit=lots is not a size" };
        run_case(&t);

        shellf("rm -rf %s", dir);
}

/* GRUB_DEFAULT=saved with the saved entry the recovery one (which lacks the parameters), then without
 * grubenv (GRUB boots the first entry), then with a grubenv that cannot be read (a directory here, as
 * EACCES is for user halod: the test runs as root): nobody knows which entry boots, so no pass. */
static void test_saved_entry_unknown(void) {
        char dir[] = "/tmp/kernel-saved-XXXXXX";
        Case t = {
                .host = dir,
                .required = { PARAMS, NULL },
                .cmdline = { CHECK_PASS, NULL },
                .next = { CHECK_FAIL, "(recovery mode)', picked by saved_entry=" },
                .gtt = { CHECK_SKIP, NULL },
        };

        ASSERT_TRUE(mkdtemp(dir));
        shellf("cp -a %s/hosts/kernel-ubuntu-saved-recovery/. %s", TEST_DATA_DIR, dir);
        run_case(&t);

        /* A stale /boot/grub2/grubenv (a migration, a second distribution) is not the one GRUB reads
         * with /boot/grub/grub.cfg: $prefix/grubenv, beside it. */
        shellf("mkdir %s/boot/grub2 && printf '# GRUB Environment Block\\nsaved_entry=gnulinux-simple-%s\\n' "
               ">%s/boot/grub2/grubenv",
               dir,
               UBUNTU_UUID,
               dir);
        run_case(&t);
        shellf("rm -r %s/boot/grub2", dir);

        /* After a kernel purge saved_entry names a removed entry: GRUB boots the submenu's first. */
        shellf("printf '# GRUB Environment Block\\nsaved_entry=gnulinux-advanced-%s>gnulinux-6.8.0-40-generic-%s\\n' "
               ">%s/boot/grub/grubenv",
               UBUNTU_UUID,
               UBUNTU_UUID,
               dir);
        t.next = (Expect){
                CHECK_PASS,
                "entry 'Ubuntu, with Linux 6.8.0-49-generic', saved_entry=\"gnulinux-advanced-" UBUNTU_UUID
                ">gnulinux-6.8.0-40-generic-" UBUNTU_UUID
                "\" in grubenv (GRUB_DEFAULT=saved) names no "
                "entry at some level: GRUB boots the first entry of the menu it reached) carries all 5"
        };
        run_case(&t);

        shellf("rm %s/boot/grub/grubenv", dir);
        t.next = (Expect){ CHECK_PASS,
                           "entry 'Ubuntu', saved_entry is not set in grubenv; GRUB boots the first entry) carries "
                           "all 5 required parameters" };
        run_case(&t);

        shellf("mkdir %s/boot/grub/grubenv", dir);
        t.next = (Expect){
                CHECK_WARN,
                "could not look at which entry boots next: /boot/grub/grubenv could not be read: Is a "
                "directory, and GRUB_DEFAULT=saved boots the one its saved_entry names; `sudo haloctl "
                "check --only kernel.cmdline-next` reads it. The first entry 'Ubuntu' of "
                "/boot/grub/grub.cfg, which boots when saved_entry is not set, carries all 5 required "
                "parameters"
        };
        run_case(&t);

        shellf("rm -rf %s", dir);
}

/* A recovery entry boots, grub.cfg was not regenerated, and /etc/default/grub has the parameters in
 * GRUB_CMDLINE_LINUX_DEFAULT only: update-grub would not bring them to the recovery entry (10_linux
 * gives it GRUB_CMDLINE_LINUX alone), so the fix is to move them, not to regenerate. */
static void test_recovery_default_only(void) {
        char dir[] = "/tmp/kernel-recovery-XXXXXX";
        Case t = {
                .host = dir,
                .required = { PARAMS, NULL },
                .cmdline = { CHECK_PASS, NULL },
                .next = { CHECK_FAIL,
                          "lacks iommu=pt, pci=realloc, pcie_aspm=off, amdgpu.gttsize=126976, ttm.pages_limit=32505856: "
                          "/etc/default/grub has them only in GRUB_CMDLINE_LINUX_DEFAULT, which recovery entries never "
                          "get: move them to GRUB_CMDLINE_LINUX and run update-grub, or boot the normal entry" },
                .gtt = { CHECK_SKIP, NULL },
        };

        ASSERT_TRUE(mkdtemp(dir));
        shellf("cp -a %s/hosts/kernel-ubuntu-saved-recovery/. %s && sed -i 's/ iommu=pt pci=realloc pcie_aspm=off "
               "amdgpu.gttsize=126976 ttm.pages_limit=32505856//' %s/boot/grub/grub.cfg",
               TEST_DATA_DIR,
               dir,
               dir);
        run_case(&t);

        /* In GRUB_CMDLINE_LINUX, regenerating is the fix. */
        shellf("sed -i 's/^GRUB_CMDLINE_LINUX=\"\"/GRUB_CMDLINE_LINUX=\""
               "iommu=pt pci=realloc pcie_aspm=off "
               "amdgpu.gttsize=126976 ttm.pages_limit=32505856\"/' %s/etc/default/grub",
               dir);
        t.next = (Expect){ CHECK_FAIL, "edited, not regenerated: /etc/default/grub carries them" };
        run_case(&t);

        shellf("rm -rf %s", dir);
}

/* systemd-boot: the entries carry them, but what the next kernel-install writes does not (an
 * /etc/kernel/cmdline without them); the one-shot EFI variable of `systemctl reboot
 * --boot-loader-entry` picks the older entry for one boot. */
static void test_sd_boot_next_install(void) {
        char dir[] = "/tmp/kernel-sdboot-XXXXXX";
        Case t = {
                .host = dir,
                .required = { PARAMS, NULL },
                .cmdline = { CHECK_PASS, NULL },
                .next = { CHECK_WARN,
                          "carries all 5 required parameters, but /etc/kernel/cmdline lacks iommu=pt, pci=realloc, "
                          "pcie_aspm=off, amdgpu.gttsize=126976, ttm.pages_limit=32505856: the next kernel-install "
                          "(every kernel update runs it) writes entries without them; add them there" },
                .gtt = { CHECK_SKIP, NULL },
        };

        ASSERT_TRUE(mkdtemp(dir));
        shellf("cp -a %s/hosts/kernel-sdboot-esp/. %s && mkdir -p %s/etc/kernel && echo 'root=UUID=x ro quiet' "
               ">%s/etc/kernel/cmdline",
               TEST_DATA_DIR,
               dir,
               dir,
               dir);
        run_case(&t);

        /* LoaderEntryOneShot: 4 bytes of attributes, then UTF-16LE with a NUL. */
        shellf("rm %s/etc/kernel/cmdline && sed -i 's/ iommu=pt//' %s/boot/efi/loader/entries/" MID
               "-6.17.5-300.fc43.x86_64.conf && mkdir -p %s/sys/firmware/efi/efivars && printf '\\007\\0\\0\\0' "
               ">%s/sys/firmware/efi/efivars/LoaderEntryOneShot-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f && printf '%%s' "
               "'" MID
               "-6.17.5-300.fc43.x86_64.conf' | iconv -t UTF-16LE "
               ">>%s/sys/firmware/efi/efivars/LoaderEntryOneShot-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f",
               dir,
               dir,
               dir,
               dir,
               dir);
        t.next = (Expect){ CHECK_FAIL,
                           "picked by LoaderEntryOneShot=" MID
                           "-6.17.5-300.fc43.x86_64.conf (this boot only)) lacks "
                           "iommu=pt: add them to /etc/kernel/cmdline, then run kernel-install add "
                           "6.17.5-300.fc43.x86_64 /usr/lib/modules/6.17.5-300.fc43.x86_64/vmlinuz" };
        run_case(&t);
        shellf("rm -rf %s", dir);
}

/* RHEL 8 on UEFI with kernelopts in the grubenv on the ESP, /boot/grub2/grubenv a link to it; then a
 * stale regular /boot/grub2/grubenv beside the ESP's real one, which is the one GRUB reads there. */
static void test_rhel8_grubenv(void) {
        char dir[] = "/tmp/kernel-rhel8-XXXXXX";
        Case t = {
                .host = dir,
                .required = { PARAMS, "nosmt", NULL },
                .cmdline = { CHECK_FAIL, NULL },
                .next = { CHECK_WARN, "reboot pending: the next boot (entry " MID "-4.18.0-553.el8_10.x86_64" },
                .gtt = { CHECK_SKIP, NULL },
        };

        ASSERT_TRUE(mkdtemp(dir));
        shellf("cp -a %s/hosts/kernel-rhel8-efi/. %s && sed -i 's|^saved_entry=.*|&\\nkernelopts=root=/dev/mapper/"
               "rhel-root ro nosmt iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 "
               "ttm.pages_limit=32505856|' %s/boot/efi/EFI/redhat/grubenv",
               TEST_DATA_DIR,
               dir,
               dir);
        run_case(&t);

        shellf("rm %s/boot/grub2/grubenv && printf '# GRUB Environment Block\nkernelopts=root=/dev/sda2 ro\n' "
               ">%s/boot/grub2/grubenv",
               dir,
               dir);
        run_case(&t);
        shellf("rm -rf %s", dir);
}

static void test_profile(void) {
        ProfileNode nodes[] = { { .name = (char *) "head" }, { .name = (char *) "worker" } };
        Profile p = { .path = (char *) "/etc/halod/halod.yaml", .nodes = nodes, .n_nodes = 2 };
        Host h = HOST_SYSTEM;
        NodeContext c = { .host = &h };
        CheckList l = {};

        ASSERT_OK(check_profile(&c, NULL, NULL, NULL, &l));
        c.profile = &p;
        ASSERT_OK(check_profile(&c, NULL, NULL, NULL, &l));
        c.node = &nodes[1];
        ASSERT_OK(check_profile(&c, NULL, NULL, NULL, &l));

        ASSERT_INT_EQ(l.n_checks, 3);
        ASSERT_INT_EQ(l.checks[0].outcome, CHECK_FAIL);
        ASSERT_STR_EQ(l.checks[0].summary, "no profile is loaded: run haloctl validate PROFILE");
        ASSERT_INT_EQ(l.checks[1].outcome, CHECK_FAIL);
        ASSERT_STR_EQ(
                l.checks[1].summary,
                "profile /etc/halod/halod.yaml is valid but none of its nodes (head, worker) is this machine: "
                "pass --node NAME");
        ASSERT_INT_EQ(l.checks[2].outcome, CHECK_PASS);
        ASSERT_STR_EQ(l.checks[2].id, "profile");
        ASSERT_STR_EQ(l.checks[2].summary, "profile /etc/halod/halod.yaml valid, node worker");
        check_list_done(&l);
}

int main(void) {
        test_fixtures();
        test_pending_reboot();
        test_gtt_broken_sysfs();
        test_saved_entry_unknown();
        test_recovery_default_only();
        test_sd_boot_next_install();
        test_rhel8_grubenv();
        test_profile();
        return EXIT_SUCCESS;
}
