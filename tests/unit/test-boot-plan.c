/* SPDX-License-Identifier: MIT */
/* The kernel command line part of the plan (kernel.boot: manage) on the fixture host trees of each
 * boot loader: the merge rule (kept, replaced not doubled, appended), grubby's argv and what grubby
 * makes of it, the GRUB drop-in that has the last word over a cloud image's, the systemd-boot plan
 * and the undo record, and apply_boot() writing halod's files into a scratch tree. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply/apply-boot.h"
#include "basic/fileio.h"
#include "basic/strv.h"
#include "boot/bootcfg.h"
#include "boot/cmdline.h"
#include "plan/boot-plan.h"
#include "profile/profile.h"
#include "tests.h"

static const char profile_text[] =
        "cluster: t\n"
        "links:\n"
        "  rdma0:\n"
        "    match: { name: veth0 }\n"
        "kernel:\n"
        "  boot: manage\n"
        "  cmdline: [iommu=pt, pci=realloc, pcie_aspm=off, amdgpu.gttsize=126976, ttm.pages_limit=32505856]\n"
        "nodes:\n"
        "  head:\n"
        "    links: { rdma0: 192.168.100.1/30 }\n";

#define PARAMS "iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856"

static char **required(void) {
        static char *r[] = { (char *) "iommu=pt",
                             (char *) "pci=realloc",
                             (char *) "pcie_aspm=off",
                             (char *) "amdgpu.gttsize=126976",
                             (char *) "ttm.pages_limit=32505856",
                             NULL };
        return r;
}

static void test_merge(void) {
        static const struct {
                const char *have, *want, *add, *replace;
        } cases[] = {
                { "root=/dev/sda1 ro quiet", "root=/dev/sda1 ro quiet " PARAMS, PARAMS, "" },
                /* Another value: every occurrence goes, the profile's comes once. */
                { "pcie_aspm=off ro pcie_aspm=force quiet iommu=pt",
                  "ro quiet iommu=pt pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856",
                  "pci=realloc pcie_aspm=off amdgpu.gttsize=126976 ttm.pages_limit=32505856",
                  "pcie_aspm=off pcie_aspm=force" },
                /* The last occurrence is the one the kernel takes: already right, left as it is. */
                { "pcie_aspm=force ro pcie_aspm=off " PARAMS, "pcie_aspm=force ro pcie_aspm=off " PARAMS, "", "" },
                /* The kernel's names: '-' and '_' are one. */
                { "iommu=pt pci=realloc pcie-aspm=force amdgpu.gttsize=126976 ttm.pages_limit=32505856",
                  "iommu=pt pci=realloc amdgpu.gttsize=126976 ttm.pages_limit=32505856 pcie_aspm=off",
                  "pcie_aspm=off",
                  "pcie-aspm=force" },
                /* What follows "--" is init's: the parameters go before it. */
                { "ro -- single", "ro " PARAMS " -- single", PARAMS, "" },
                { PARAMS, PARAMS, "", "" },
                { "", PARAMS, PARAMS, "" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(strv_freep) char **add = NULL, **replace = NULL;
                _cleanup_(freep) char *merged = NULL, *a = NULL, *rp = NULL;

                ASSERT_OK(boot_cmdline_merge(cases[i].have, required(), &merged, &add, &replace));
                a = add ? strv_join(add, " ") : strdup("");
                rp = replace ? strv_join(replace, " ") : strdup("");
                ASSERT_STR_EQ(merged, cases[i].want);
                ASSERT_STR_EQ(a, cases[i].add);
                ASSERT_STR_EQ(rp, cases[i].replace);
        }
}

/* grubby --update-kernel=ALL --args=ARGS as grubby-bls does it to each entry's options (rhboot/grubby,
 * grubby-bls, update_args()): for each word of ARGS, a key=value whose key is in the options has its
 * value replaced in place ("s,$key=[^ ]*,$key=$value,", the first occurrence), else it is appended; a
 * bare word is appended unless present. A test double of that function, not of grubby. */
static char *grubby_update_args(const char *options, const char *args) {
        _cleanup_(strv_freep) char **words = NULL, **add = NULL;
        char *out;

        for (const char *p = options; *p;) {
                size_t n = strcspn(p, " ");
                if (n > 0)
                        ASSERT_OK(strv_consume(&words, strndup(p, n)));
                p += n + (p[n] == ' ');
        }
        for (const char *p = args; *p;) {
                _cleanup_(freep) char *arg = strndup(p, strcspn(p, " "));
                const char *eq = strchr(arg, '=');
                bool done = false;

                p += strlen(arg) + (p[strlen(arg)] == ' ');
                STRV_FOREACH(w, words)
                        if (!done && eq && strneq(*w, arg, (size_t) (eq - arg + 1))) {
                                free(*w);
                                *w = strdup(arg);
                                done = true;
                        } else if (!done && !eq && streq(*w, arg))
                                done = true;
                if (!done)
                        ASSERT_OK(strv_extend(&words, arg));
        }
        out = strv_join(words, " ");
        ASSERT_TRUE(out);
        return out;
}

static void load(const char *tree, Profile **p, Host *h, NodeContext *c) {
        ASSERT_OK(profile_load_string("t.yaml", profile_text, strlen(profile_text), p, NULL));
        *h = (Host){ .root = tree };
        *c = (NodeContext){ .host = h, .profile = *p, .node = profile_find_node(*p, "head") };
}

static void test_grubby(void) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(boot_plan_freep) BootPlan *bp = NULL;
        _cleanup_(strv_freep) char **lines = NULL;
        _cleanup_(freep) char *after = NULL, *joined = NULL;
        _cleanup_(kernel_cmdline_freep) KernelCmdline *k = NULL;
        _cleanup_(strv_freep) char **missing = NULL;
        const char *options =
                "root=UUID=2c1a9f0e-5b7d-4c6e-9f3a-0d8e7b6a5c4d ro rootflags=subvol=root rhgb quiet pcie_aspm=force";
        Host h;
        NodeContext c;

        load(TEST_DATA_DIR "/hosts/kernel-fedora-mkconfig-only", &p, &h, &c);
        ASSERT_OK(boot_plan_compute(&c, &bp));
        ASSERT_TRUE(bp && !bp->error);
        ASSERT_INT_EQ(bp->loader, BOOT_LOADER_GRUB_BLS);
        ASSERT_TRUE(!bp->file);
        ASSERT_TRUE(bp->commands && bp->commands[0] && !bp->commands[1]);
        joined = strv_join(bp->commands[0], "|");
        ASSERT_STR_EQ(joined, "grubby|--update-kernel=ALL|--args=" PARAMS);
        /* Both entries and the grub.cfg and /etc/default/grub grubby may rewrite are saved first. */
        ASSERT_INT_EQ(strv_length(bp->saved), 4);
        ASSERT_TRUE(strv_contains(bp->saved, "/etc/default/grub"));
        ASSERT_OK(boot_plan_describe(bp, &lines));
        ASSERT_STR_EQ(lines[0], "kernel: + " PARAMS " via grubby --update-kernel=ALL --args='" PARAMS "'");
        ASSERT_STR_EQ(lines[2], "kernel:   in force after the next reboot (halod never reboots)");

        /* What grubby does with that argument on an entry that has another pcie_aspm: the profile's
         * parameters, each once, the others kept. */
        after = grubby_update_args(options, PARAMS);
        ASSERT_STR_EQ(
                after,
                "root=UUID=2c1a9f0e-5b7d-4c6e-9f3a-0d8e7b6a5c4d ro rootflags=subvol=root rhgb quiet "
                "pcie_aspm=off iommu=pt pci=realloc amdgpu.gttsize=126976 ttm.pages_limit=32505856");
        ASSERT_OK(kernel_cmdline_parse(after, &k));
        ASSERT_INT_EQ(kernel_cmdline_missing(k, required(), &missing), 0);

        /* The undo record: what was added, nothing replaced on this entry. */
        ASSERT_STR_EQ(bp->undo_text, "added=" PARAMS "\nreplaced=\n");
}

static char *scratch_copy(const char *tree) {
        char dir[] = "/tmp/test-boot-plan.XXXXXX";
        char *cmd = NULL;

        ASSERT_TRUE(mkdtemp(dir));
        ASSERT_TRUE(asprintf(&cmd, "cp -a '%s/.' '%s/'", tree, dir) > 0);
        ASSERT_INT_EQ(system(cmd), 0);
        free(cmd);
        return strdup(dir);
}

static void remove_tree(const char *dir) {
        _cleanup_(freep) char *cmd = NULL;

        ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
        ASSERT_INT_EQ(system(cmd), 0);
}

static void test_grub_cloudimg(void) {
        _cleanup_(freep) char *root = NULL, *dropin = NULL, *text = NULL, *later = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(boot_plan_freep) BootPlan *bp = NULL, *again = NULL, *blocked = NULL;
        _cleanup_(boot_config_freep) BootConfig *grub = NULL;
        _cleanup_(strv_freep) char **lines = NULL;
        Host h;
        NodeContext c;

        /* The Ubuntu cloud image: /etc/default/grub has them in _DEFAULT, 50-cloudimg-settings.cfg
         * sets _DEFAULT again without them. */
        root = scratch_copy(TEST_DATA_DIR "/hosts/kernel-ubuntu-cloudimg");
        load(root, &p, &h, &c);
        ASSERT_OK(boot_plan_compute(&c, &bp));
        ASSERT_TRUE(bp && !bp->error);
        ASSERT_INT_EQ(bp->loader, BOOT_LOADER_GRUB);
        ASSERT_STR_EQ(bp->file, BOOT_GRUB_DROPIN);
        ASSERT_STR_EQ(
                bp->file_text,
                "# The kernel parameters of halod's profile (kernel.cmdline, kernel.boot: manage).\n"
                "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX " PARAMS "\"\n");
        ASSERT_TRUE(bp->commands && !bp->commands[1]);
        ASSERT_STR_EQ(bp->commands[0][0], "update-grub");
        ASSERT_OK(boot_plan_describe(bp, &lines));
        ASSERT_STR_EQ(lines[0], "kernel: + " PARAMS " via /etc/default/grub.d/99-halod.cfg and update-grub");

        /* The drop-in written as apply writes it (the tool is not run on a tree): grub-mkconfig's
         * reading of the files now has them, after the cloud image's. */
        ASSERT_TRUE(asprintf(&dropin, "%s" BOOT_GRUB_DROPIN, root) > 0);
        ASSERT_INT_EQ(owned_file_write(dropin, BOOT_PART, bp->file_text, 0644), 1);
        ASSERT_OK(boot_config_load_grub_default(&h, &grub, NULL));
        ASSERT_TRUE(strstr(grub->cmdline, "console=tty1 console=ttyS0"));
        ASSERT_TRUE(strstr(grub->linux_cmdline, PARAMS));
        ASSERT_STR_EQ(grub->path, BOOT_GRUB_DROPIN);

        /* Planned again: the drop-in is right, grub.cfg is not (update-grub not run): only the tool. */
        ASSERT_OK(boot_plan_compute(&c, &again));
        ASSERT_TRUE(again && !again->error && !again->file);
        ASSERT_STR_EQ(again->commands[0][0], "update-grub");

        /* A drop-in sorted after halod's that sets the command line: refused, with its name. */
        ASSERT_TRUE(asprintf(&later, "%s/etc/default/grub.d/zz-local.cfg", root) > 0);
        ASSERT_OK(write_file_atomic(later, "GRUB_CMDLINE_LINUX=\"\"\n", 22, 0644));
        ASSERT_OK(boot_plan_compute(&c, &blocked));
        ASSERT_TRUE(
                blocked && blocked->error &&
                strstr(blocked->error, "/etc/default/grub.d/zz-local.cfg sorts after"));

        /* A file of that name that is not halod's is never taken over. */
        ASSERT_OK(unlink(later));
        ASSERT_OK(write_file_atomic(dropin, "GRUB_TIMEOUT=5\n", 15, 0644));
        blocked = boot_plan_free(blocked);
        ASSERT_OK(boot_plan_compute(&c, &blocked));
        ASSERT_TRUE(blocked && blocked->error && strstr(blocked->error, "99-halod.cfg is not halod's"));
        remove_tree(root);
}

static void test_sd_boot(void) {
        _cleanup_(freep) char *root = NULL, *cmdline = NULL, *text = NULL, *undo = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(boot_plan_freep) BootPlan *bp = NULL, *back = NULL;
        _cleanup_(freep) char *error = NULL;
        Host h;
        NodeContext c;

        /* An entry without them, /etc/kernel/cmdline with pcie_aspm=force. */
        root = scratch_copy(TEST_DATA_DIR "/hosts/kernel-sdboot-esp");
        ASSERT_TRUE(asprintf(&cmdline, "%s/etc/kernel/cmdline", root) > 0);
        ASSERT_TRUE(
                asprintf(
                        &text,
                        "mkdir -p '%s/etc/kernel' && sed -i 's/ iommu=pt.*systemd/ systemd/' '%s'/boot/efi/loader/entries/*.conf",
                        root,
                        root) > 0);
        ASSERT_INT_EQ(system(text), 0);
        ASSERT_OK(write_file_atomic(cmdline, "root=UUID=x ro\nquiet pcie_aspm=force\n", 38, 0644));
        load(root, &p, &h, &c);
        ASSERT_OK(boot_plan_compute(&c, &bp));
        ASSERT_TRUE(bp && !bp->error);
        ASSERT_INT_EQ(bp->loader, BOOT_LOADER_SYSTEMD_BOOT);
        ASSERT_STR_EQ(bp->file, KERNEL_CMDLINE_FILE);
        ASSERT_STR_EQ(bp->file_text, "root=UUID=x ro quiet " PARAMS "\n");
        ASSERT_STR_EQ(
                bp->undo_text,
                "added=" PARAMS
                "\nreplaced=pcie_aspm=force\ncmdline-before=root=UUID=x ro quiet pcie_aspm=force\n");
        ASSERT_INT_EQ(strv_length(bp->commands[0]), 4);
        ASSERT_STR_EQ(bp->commands[0][0], "kernel-install");
        ASSERT_STR_EQ(bp->commands[0][3], "/usr/lib/modules/6.17.5-300.fc43.x86_64/vmlinuz");
        ASSERT_STR_EQ(bp->commands[1][2], "6.17.7-300.fc43.x86_64");

        /* On a host tree the tool is not run: nothing is written either. */
        ASSERT_INT_EQ(apply_boot(&h, bp, &error), -EOPNOTSUPP);
        ASSERT_TRUE(strstr(error, "not on the host tree"));
        ASSERT_OK(read_full_file(cmdline, 4096, &undo, NULL));
        ASSERT_STR_EQ(undo, "root=UUID=x ro\nquiet pcie_aspm=force\n");

        /* Nothing recorded, nothing to undo. */
        ASSERT_OK(boot_plan_undo(&c, &back));
        ASSERT_TRUE(!back);
        remove_tree(root);
}

/* The undo of a grubby apply, from the record: grubby removes what halod added, then puts back what it
 * replaced; a record that is not halod's is refused. */
static void test_grubby_undo(void) {
        _cleanup_(freep) char *root = NULL, *record = NULL, *a = NULL, *b = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(boot_plan_freep) BootPlan *bp = NULL, *none = NULL, *foreign = NULL;
        Host h;
        NodeContext c;

        root = scratch_copy(TEST_DATA_DIR "/hosts/kernel-fedora-mkconfig-only");
        load(root, &p, &h, &c);
        ASSERT_OK(boot_plan_undo(&c, &none));
        ASSERT_TRUE(!none);

        ASSERT_TRUE(asprintf(&record, "%s" BOOT_UNDO_FILE, root) > 0);
        ASSERT_INT_EQ(
                owned_file_write(
                        record, BOOT_PART, "added=iommu=pt pcie_aspm=off\nreplaced=pcie_aspm=force\n", 0644),
                1);
        ASSERT_OK(boot_plan_undo(&c, &bp));
        ASSERT_TRUE(bp && bp->undo && !bp->error && !bp->file);
        a = strv_join(bp->commands[0], "|");
        b = strv_join(bp->commands[1], "|");
        ASSERT_STR_EQ(a, "grubby|--update-kernel=ALL|--remove-args=iommu=pt pcie_aspm=off");
        ASSERT_STR_EQ(b, "grubby|--update-kernel=ALL|--args=pcie_aspm=force");
        ASSERT_TRUE(!bp->commands[2]);

        ASSERT_OK(write_file_atomic(record, "added=x\n", 8, 0644));
        ASSERT_OK(boot_plan_undo(&c, &foreign));
        ASSERT_TRUE(foreign && foreign->error && strstr(foreign->error, "is not halod's"));
        remove_tree(root);
}

int main(void) {
        test_merge();
        test_grubby();
        test_grub_cloudimg();
        test_sd_boot();
        test_grubby_undo();
        return 0;
}
