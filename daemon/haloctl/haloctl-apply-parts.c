/* SPDX-License-Identifier: MIT */
/* haloctl apply --only: the parts that halod-helper.service writes for halod as root (the /etc/hosts
 * block, the CDI spec, the networkd backend's links), each derived here from the profile and the kernel,
 * never from what halod asked. */
#include <stdio.h>
#include <string.h>

#include "apply/apply-boot.h"
#include "apply/systemctl-unit.h"
#include "basic/fileio.h"
#include "basic/strv.h"
#include "export/cdi.h"
#include "haloctl-apply-parts.h"
#include "haloctl.h"

static const struct {
        const char *name;
        ApplyPart part;
} part_names[] = {
        { "hosts.", APPLY_PART_HOSTS },      { "hosts", APPLY_PART_HOSTS }, { "cdi", APPLY_PART_CDI },
        { "networkd", APPLY_PART_NETWORKD }, { "boot", APPLY_PART_BOOT },   { "limits", APPLY_PART_LIMITS },
        { "modules", APPLY_PART_MODULES },
};

int apply_parts_parse(const char *only, unsigned *ret) {
        unsigned parts = 0;

        for (const char *p = only; *p;) {
                size_t n = strcspn(p, ","), i;

                for (i = 0; i < ELEMENTSOF(part_names); i++)
                        if (strlen(part_names[i].name) == n && strncmp(p, part_names[i].name, n) == 0)
                                break;
                if (i >= ELEMENTSOF(part_names)) {
                        fprintf(stderr,
                                "haloctl apply --only: unknown part '%.*s' in '%s': the parts are hosts. (the "
                                "/etc/hosts block of health.hosts: manage), cdi (the CDI spec in " CDI_DIR_DEFAULT
                                "), networkd (the links, when systemd-networkd is the backend), boot (the kernel "
                                "command line of kernel.boot: manage), limits (the memlock drop-ins of rdma.limits: "
                                "manage) and modules (rdma.modules: manage), comma-separated.\n",
                                (int) n,
                                p,
                                only);
                        return -EINVAL;
                }
                parts |= part_names[i].part;
                p += n;
                p += *p == ',';
        }
        if (parts == 0) {
                fprintf(stderr,
                        "haloctl apply --only needs a part: hosts., cdi, networkd, boot, limits or modules.\n");
                return -EINVAL;
        }
        *ret = parts;
        return 0;
}

int apply_cdi_spec(const NodeContext *c) {
        _cleanup_(freep) char *text = NULL, *reason = NULL;
        _cleanup_(cdi_spec_done) CdiSpec spec = {};
        const char *path = CDI_DIR_DEFAULT "/" CDI_SPEC_FILE;
        int r;

        r = cdi_spec_derive(c, /* snapshot= */ NULL, &spec);
        if (r < 0) {
                fprintf(stderr, "Failed to derive the CDI spec of node %s: %s\n", c->node->name, strerror(-r));
                return EX_OSERR;
        }
        /* Runtimes read the directory as root: what the kernel names is checked, not believed. */
        r = cdi_spec_check_safe(&spec, &reason);
        if (r < 0) {
                fprintf(stderr,
                        "Refusing to write the CDI spec %s: it would hold %s. Nothing was written; check the "
                        "RDMA devices in /sys/class/infiniband_verbs.\n",
                        path,
                        strna(reason));
                return EXIT_CHECK_FAIL;
        }
        r = cdi_spec_write(&spec, path);
        if (r < 0) {
                fprintf(stderr, "Failed to write the CDI spec %s: %s\n", path, strerror(-r));
                return EX_CANTCREAT;
        }
        printf(r > 0 ? "wrote the CDI spec %s (kind " CDI_KIND ")\n"
                     : "nothing to change: the CDI spec %s is what the profile and the kernel say\n",
               path);
        STRV_FOREACH(p, spec.problems)
                fprintf(stderr, "CDI spec: %s\n", *p);
        /* The last device is "all": what a container lacks, and why (a name refused, say). */
        if (spec.n_devices > 0) {
                const FabricEnv *env = &spec.devices[spec.n_devices - 1].env;

                for (int v = 0; v < _FABRIC_ENV_VAR_MAX; v++)
                        if (!env->values[v] && fabric_env_applies(env, v))
                                fprintf(stderr,
                                        "CDI spec: %s not set: %s\n",
                                        fabric_env_var_to_string(v),
                                        strna(env->reasons[v]));
        }
        return EXIT_SUCCESS;
}

/* The boot part through unit (halod-helper.service's --boot-unit): systemd starts it and this waits for
 * the job. No plan here: the helper's sandbox hides what the plan reads (/usr/lib/modules for
 * kernel-install), so the unit plans and writes, and its journal says what it did. */
static int apply_boot_through_unit(const char *unit) {
        int r;

        r = systemctl_unit("start", unit);
        if (r < 0) {
                fprintf(stderr, "Failed to run systemctl start %s: %s\n", unit, strerror(-r));
                return EX_OSERR;
        }
        if (r > 0) {
                fprintf(stderr,
                        "Failed to write the kernel command line: %s failed (systemctl start exited %d); its "
                        "journal says why: journalctl -u %s\n",
                        unit,
                        r,
                        unit);
                return EXIT_CHECK_FAIL;
        }
        printf("kernel: %s ran the boot part and ended well: journalctl -u %s says what it wrote\n", unit, unit);
        return EXIT_SUCCESS;
}

int apply_boot_part(const NodeContext *c, bool undo, const char *unit) {
        _cleanup_(boot_plan_freep) BootPlan *bp = NULL;
        _cleanup_(strv_freep) char **lines = NULL;
        _cleanup_(freep) char *error = NULL;
        _cleanup_(closep) int lock = -EBADF;
        int r;

        if (!undo && c->profile->kernel_boot != BOOT_POLICY_MANAGE) {
                printf("%s does not say kernel.boot: manage: the kernel command line is left alone.\n",
                       c->profile->path);
                return EXIT_SUCCESS;
        }
        /* Before the lock: the unit's haloctl takes it, and this process waits for the unit's job. */
        if (unit)
                return apply_boot_through_unit(unit);
        /* Planned from what the previous holder left, and written and put back before the next one looks. */
        r = apply_lock_part(
                c->host,
                undo ? "taking back halod's change to the kernel command line"
                     : "changing the kernel command line",
                &lock);
        if (r != EXIT_SUCCESS)
                return r;
        r = undo ? boot_plan_undo(c, &bp) : boot_plan_compute(c, &bp);
        if (r >= 0)
                r = boot_plan_describe(bp, &lines);
        if (r < 0) {
                fprintf(stderr, "Failed to plan the kernel command line: %s\n", strerror(-r));
                return EX_OSERR;
        }
        if (!bp) {
                printf(undo ? "nothing to undo: halod wrote nothing into the boot configuration\n"
                            : "nothing to change: the next boot carries the kernel parameters of the profile\n");
                return EXIT_SUCCESS;
        }
        STRV_FOREACH(l, lines)
                printf("%s\n", *l);
        r = apply_boot(c->host, bp, &error);
        if (r < 0) {
                fprintf(stderr,
                        "Failed to %s the kernel command line: %s\n",
                        undo ? "undo" : "write",
                        strna(error));
                return EXIT_CHECK_FAIL;
        }
        printf(undo ? "kernel: halod's change to the command line is taken back; a reboot brings it into force\n"
                    : "kernel: written; reboot required to bring the parameters into force (halod never reboots)\n");
        return EXIT_SUCCESS;
}

bool apply_parts_drop(unsigned *parts, ApplyPart part) {
        *parts &= ~(unsigned) part;
        return *parts == 0;
}

void helper_stamp(const char *dir, const char *name, int exit_status) {
        _cleanup_(freep) char *path = NULL, *text = NULL;
        int r;

        if (asprintf(&path, "%s/%s", dir, name) < 0 ||
            asprintf(&text, streq(name, HELPER_STAMP_RESULT) ? "exit status %d\n" : "", exit_status) < 0) {
                fprintf(stderr, "Out of memory.\n");
                return;
        }
        r = write_file_atomic(path, text, strlen(text), 0644);
        if (r < 0)
                fprintf(stderr, "Failed to write %s, ignoring: %s\n", path, strerror(-r));
}
