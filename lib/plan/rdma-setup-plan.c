/* SPDX-License-Identifier: MIT */
/* What rdma.limits: manage and rdma.modules: manage would write and load on this host: each file halod
 * owns, in the syntax of the component that reads it, compared with what is below the host root. */
#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "basic/strv.h"
#include "boot/modprobe-conf.h"
#include "limits/memlock-sources.h"
#include "nic/nic-family.h"
#include "plan/rdma-setup-plan.h"

void rdma_setup_plan_done(RdmaSetupPlan *p) {
        for (size_t i = 0; i < p->n_files; i++) {
                free(p->files[i].body);
                free(p->files[i].what);
                free(p->files[i].reason);
        }
        p->n_files = 0;
        p->modules = strv_free(p->modules);
        p->load = strv_free(p->load);
        p->errors = strv_free(p->errors);
}

/* Compares the file below the root with body: what applying it would do. */
static int file_action(const Host *h, SetupFile *f) {
        _cleanup_(freep) char *path = NULL, *part = NULL, *body = NULL;
        int r;

        r = host_path(h, f->path, &path);
        if (r < 0)
                return r;
        r = owned_file_read(path, &part, &body);
        if (r == -ENOMEM)
                return r;
        if (r == -ENOENT)
                f->action = SETUP_FILE_CREATE;
        else if (r == 1 && streq(part, f->part))
                f->action = streq(body, f->body) ? SETUP_FILE_KEEP : SETUP_FILE_UPDATE;
        else {
                f->action = SETUP_FILE_REFUSED;
                if (r == 1)
                        r = asprintf(&f->reason, "it is halod's for the part %s, not %s", part, f->part);
                else if (r == 0)
                        r = asprintf(
                                &f->reason,
                                "it is not halod's (its first line is not halod's marker): move your "
                                "settings to another file of the directory, or remove it");
                else if (r == -EBADFD)
                        r = asprintf(&f->reason, "it is not a regular file");
                else
                        r = asprintf(&f->reason, "it cannot be read: %s", strerror(-r));
                if (r < 0)
                        return -ENOMEM;
        }
        return 0;
}

static int add_file(
        const Host *h,
        RdmaSetupPlan *p,
        const char *part,
        const char *path,
        const char *when,
        char *body,
        char *what) {
        SetupFile *f;

        if (!body || !what) {
                free(body);
                free(what);
                return -ENOMEM;
        }
        assert(p->n_files < RDMA_SETUP_FILES_MAX);
        f = &p->files[p->n_files++];
        *f = (SetupFile){ .part = part, .path = path, .body = body, .what = what, .when = when };
        return file_action(h, f);
}

static char *format_or_null(const char *fmt, ...) _printf_(1, 2);
static char *format_or_null(const char *fmt, ...) {
        va_list ap;
        char *s;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        return r < 0 ? NULL : s;
}

/* The three places a workload's memlock limit comes from, each in its reader's syntax. */
static int plan_limits(const Host *h, uint64_t want, RdmaSetupPlan *p) {
        char systemd[32] = "infinity", pam[32] = "unlimited", podman[48] = "-1:-1";
        int r;

        if (want != MEMLOCK_UNLIMITED) {
                /* systemd: bytes (rlimit_parse()); pam_limits: KiB, rounded up; podman: soft:hard bytes. */
                snprintf(systemd, sizeof(systemd), "%" PRIu64, want);
                snprintf(pam, sizeof(pam), "%" PRIu64, (want + 1023) / 1024);
                snprintf(podman, sizeof(podman), "%" PRIu64 ":%" PRIu64, want, want);
        }
        r = add_file(
                h,
                p,
                RDMA_SETUP_PART_LIMITS,
                MEMLOCK_SYSTEMD_FILE,
                "for services started after `systemctl daemon-reexec` (or a reboot)",
                format_or_null("[Manager]\nDefaultLimitMEMLOCK=%s\n", systemd),
                format_or_null("DefaultLimitMEMLOCK=%s", systemd));
        if (r < 0)
                return r;
        /* "-" sets both the soft limit, which the kernel checks, and the hard one. Debian's and Ubuntu's
         * pam_limits applies "*" to every user but root (debian/patches
         * 027_pam_limits_better_init_allow_explicit_root), so root, whose logins often run the workload,
         * gets a line of its own; upstream's applies both to root, the same value. */
        r = add_file(
                h,
                p,
                RDMA_SETUP_PART_LIMITS,
                MEMLOCK_LIMITS_FILE,
                "for login sessions opened from now on",
                format_or_null("*\t-\tmemlock\t%s\nroot\t-\tmemlock\t%s\n", pam, pam),
                format_or_null("* and root - memlock %s", pam));
        if (r < 0 || !podman_installed(h))
                return r;
        /* A later file's default_ulimits replaces the list of the earlier ones (containers.conf(5)). */
        return add_file(
                h,
                p,
                RDMA_SETUP_PART_LIMITS,
                MEMLOCK_CONTAINERS_FILE,
                "for podman containers started from now on",
                format_or_null("[containers]\ndefault_ulimits = [\"memlock=%s\"]\n", podman),
                format_or_null("default_ulimits = [\"memlock=%s\"]", podman));
}

/* The family whose RDMA driver the node needs: the profile's nic.driver, else the fabric NICs sysfs
 * shows below the root. */
static NicFamily node_family(const NodeContext *c) {
        const ProfileNic *nic = node_context_nic(c);
        NicFamily f = nic ? nic_family_from_driver(nic->driver) : NIC_FAMILY_UNKNOWN;

        return f != NIC_FAMILY_UNKNOWN ? f : nic_family_on_host(c->host);
}

static int plan_module_state(const Host *h, const char *module, RdmaSetupPlan *p) {
        _cleanup_(module_block_done) ModuleBlock block = {};
        _cleanup_(freep) char *sys = NULL;
        int r;

        r = module_find_block(h, module, &block, /* ret_unreadable= */ NULL);
        if (r < 0)
                return r;
        if (r > 0)
                /* The user's own block is a decision halod does not overrule. */
                return strv_extendf(
                        &p->errors,
                        "modules: %s is kept from loading by %s%s%u (%s): remove that first, or set rdma.modules: "
                        "check",
                        module,
                        block.source,
                        block.line > 0 ? ":" : "",
                        block.line,
                        block.text);
        if (asprintf(&sys, "/sys/module/%s", module) < 0)
                return -ENOMEM;
        if (host_path_exists(h, sys))
                return 0;
        return strv_extend(&p->load, module);
}

static int plan_modules(const NodeContext *c, RdmaSetupPlan *p) {
        NicFamily family = node_family(c);
        _cleanup_(freep) char *body = NULL;
        int r;

        if (family == NIC_FAMILY_UNKNOWN)
                return strv_extend(
                        &p->errors,
                        "modules: cannot tell which RDMA driver the fabric NIC needs: nic.driver is neither ice "
                        "nor mlx5_core, and sysfs shows no single family of E810 or ConnectX NICs; set nic.driver");
        r = strv_extend(&p->modules, nic_family_rdma_module(family));
        if (r >= 0)
                r = strv_extend(&p->modules, RDMA_UCM_MODULE);
        if (r < 0)
                return r;
        STRV_FOREACH(m, p->modules) {
                r = plan_module_state(c->host, *m, p);
                if (r < 0)
                        return r;
        }
        body = strv_join(p->modules, "\n");
        return add_file(
                c->host,
                p,
                RDMA_SETUP_PART_MODULES,
                MODULES_LOAD_FILE,
                "at each boot (systemd-modules-load.service)",
                body ? format_or_null("%s\n", body) : NULL,
                strv_join(p->modules, " "));
}

int rdma_setup_plan_compute(const NodeContext *c, RdmaSetupParts parts, RdmaSetupPlan *ret) {
        const ProfileRdma *rdma = &c->profile->rdma;
        _cleanup_(rdma_setup_plan_done) RdmaSetupPlan p = {};
        int r;

        if ((parts & RDMA_SETUP_LIMITS) && rdma->limits == RDMA_SETUP_MANAGE && rdma->memlock > 0) {
                r = plan_limits(c->host, rdma->memlock, &p);
                if (r < 0)
                        return r;
        }
        if ((parts & RDMA_SETUP_MODULES) && rdma->modules == RDMA_SETUP_MANAGE) {
                r = plan_modules(c, &p);
                if (r < 0)
                        return r;
        }
        *ret = p;
        p = (RdmaSetupPlan){};
        return 0;
}

bool rdma_setup_plan_has_errors(const RdmaSetupPlan *p) {
        if (p->errors)
                return true;
        for (size_t i = 0; i < p->n_files; i++)
                if (p->files[i].action == SETUP_FILE_REFUSED)
                        return true;
        return false;
}

bool rdma_setup_plan_is_empty(const RdmaSetupPlan *p) {
        if (rdma_setup_plan_has_errors(p) || p->load)
                return false;
        for (size_t i = 0; i < p->n_files; i++)
                if (p->files[i].action != SETUP_FILE_KEEP)
                        return false;
        return true;
}

int rdma_setup_plan_describe(const RdmaSetupPlan *p, char ***lines) {
        _cleanup_(freep) char *load = NULL;
        int r;

        STRV_FOREACH(e, p->errors)
                if (strv_extend(lines, *e) < 0)
                        return -ENOMEM;
        for (size_t i = 0; i < p->n_files; i++) {
                const SetupFile *f = &p->files[i];

                if (f->action == SETUP_FILE_KEEP)
                        continue;
                if (f->action == SETUP_FILE_REFUSED)
                        r = strv_extendf(
                                lines, "%s: cannot write %s (%s): %s", f->part, f->path, f->what, f->reason);
                else
                        r = strv_extendf(
                                lines,
                                "%s: %s %s (%s): %s",
                                f->part,
                                f->action == SETUP_FILE_CREATE ? "write" : "rewrite",
                                f->path,
                                f->what,
                                f->when);
                if (r < 0)
                        return r;
        }
        if (!p->load)
                return 0;
        load = strv_join(p->load, " ");
        if (!load)
                return -ENOMEM;
        return strv_extendf(lines, "modules: load %s now (systemctl restart " MODULES_LOAD_SERVICE ")", load);
}

const char *const *rdma_setup_part_dirs(const char *part) {
        static const char *const limits[] = {
                "/etc/systemd/system.conf.d", LIMITS_CONF_DROPIN_DIR, "/etc/containers/containers.conf.d", NULL
        };
        static const char *const modules[] = { "/etc/modules-load.d", NULL };

        if (streq_ptr(part, RDMA_SETUP_PART_LIMITS))
                return limits;
        if (streq_ptr(part, RDMA_SETUP_PART_MODULES))
                return modules;
        return NULL;
}
