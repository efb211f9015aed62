/* SPDX-License-Identifier: MIT */
/* rdma.memlock's decision: the memlock limits a workload gets (systemd's default for services, the PAM
 * limits for login sessions, podman's default_ulimits) against the profile, and /dev/infiniband access,
 * from the facts the snapshot read (limits/memlock-facts.h). */
#include <inttypes.h>
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-rdma.h"
#include "check/memlock-verdict.h"

#define SYSTEMD_DROPIN "/etc/systemd/system.conf.d/90-rdma.conf"
#define CONTAINERS_CONF_ADMIN_DIR "/etc/containers/"

static void verdict_done(MemlockVerdict *v) {
        v->problems = strv_free(v->problems);
        v->warnings = strv_free(v->warnings);
        v->ok = strv_free(v->ok);
        v->actual = strv_free(v->actual);
}

bool memlock_enough(uint64_t have, uint64_t want) {
        return want == 0 || have >= want;
}

char *memlock_describe_limit(MemlockLimit l) {
        char soft[BYTES_STRING_MAX], hard[BYTES_STRING_MAX];
        char *s;

        format_bytes(l.soft, soft);
        if (l.soft == l.hard)
                return strdup(soft);
        format_bytes(l.hard, hard);
        return asprintf(&s, "%s (hard %s)", soft, hard) < 0 ? NULL : s;
}

/* Without systemd no DefaultLimitMEMLOCK raises anything: every process inherits PID 1's limit. */
static int judge_pid1(const MemlockServices *s, uint64_t want, const char *want_s, MemlockVerdict *v) {
        _cleanup_(freep) char *have = memlock_describe_limit(s->limit);
        char ulimit[32] = "unlimited";

        if (!have || strv_extendf(&v->actual, "PID 1 %s", have) < 0)
                return -ENOMEM;
        if (memlock_enough(s->limit.soft, want))
                return strv_extendf(
                        &v->ok,
                        "every process: %s (PID 1's limit, " PROC_PID1_LIMITS
                        "; the host does not run systemd)",
                        have);
        if (want != MEMLOCK_UNLIMITED)
                snprintf(ulimit, sizeof(ulimit), "%" PRIu64, (want + 1023) / 1024);
        return strv_extendf(
                &v->problems,
                "every process gets %s < %s from PID 1 (" PROC_PID1_LIMITS
                "): the host does not run systemd, so no DefaultLimitMEMLOCK raises it; raise PID 1's "
                "limit where it is started (a container's runtime: --ulimit memlock=-1:-1; OpenRC: "
                "rc_ulimit=\"-l %s\" in /etc/rc.conf), then restart the workload",
                have,
                want_s,
                ulimit);
}

/* systemd gives a service its limits when it starts it: after DefaultLimitMEMLOCK was raised (and
 * `systemctl daemon-reexec` run), services already running keep the old limit until restarted. */
static int judge_services_running(const MemlockServices *s, const char *have, MemlockVerdict *v) {
        _cleanup_(freep) char *list = NULL;

        if (s->stale) {
                list = strv_join((char **) s->stale, ", ");
                if (!list)
                        return -ENOMEM;
                return strv_extendf(
                        &v->ok,
                        "services: %s (systemd's DefaultLimitMEMLOCK) for those started from now on; these run "
                        "with less than their units now give (a service keeps the limit it started with), so "
                        "restart them: %s",
                        have,
                        list);
        }
        if (s->stale_error)
                return strv_extendf(
                        &v->ok,
                        "services: %s (systemd's DefaultLimitMEMLOCK) for those started from now on; a service "
                        "keeps the limit it started with, and the running ones could not be compared (%s): "
                        "restart the workload's service after raising it",
                        have,
                        s->stale_error);
        return strv_extendf(&v->ok, "services: %s (systemd's DefaultLimitMEMLOCK)", have);
}

/* The files say enough and the running manager has less: it read them before they said so. systemd
 * reads system.conf and its drop-ins at boot, at daemon-reexec and at daemon-reload (src/core/main.c:
 * MANAGER_RELOAD calls parse_configuration() and set_manager_defaults()). */
/* The files say enough and the running manager gives services less. */
static bool services_pending(const MemlockServices *s, const SystemdConf *conf, uint64_t want) {
        return s->state == MEMLOCK_SERVICES_READ && !memlock_enough(s->limit.soft, want) && conf->set &&
                memlock_enough(conf->limit.soft, want);
}

int check_rdma_memlock_pending_reboot(const MemlockFacts *f, uint64_t want, char **ret) {
        _cleanup_(freep) char *configured = NULL;

        if (!services_pending(&f->services, &f->systemd, want)) {
                *ret = NULL;
                return 0;
        }
        configured = memlock_describe_limit(f->systemd.limit);
        if (!configured ||
            asprintf(
                    ret,
                    "memlock: %s for services from systemd's DefaultLimitMEMLOCK (%s:%u), or `systemctl "
                    "daemon-reexec`",
                    configured,
                    f->systemd.file,
                    f->systemd.line) < 0)
                return -ENOMEM;
        return 0;
}

static int judge_services_pending(
        const SystemdConf *conf, const char *have, const char *want_s, MemlockVerdict *v) {
        _cleanup_(freep) char *configured = memlock_describe_limit(conf->limit);

        if (!configured)
                return -ENOMEM;
        return strv_extendf(
                &v->problems,
                "services get %s < %s (systemd's DefaultLimitMEMLOCK): %s:%u sets %s, which the running manager "
                "has not read yet: run `systemctl daemon-reexec` (daemon-reload and a reboot read it too), then "
                "restart the workload",
                have,
                want_s,
                conf->file,
                conf->line,
                configured);
}

/* A tree that was not booted: systemd has loaded nothing yet, and gives services at boot what its
 * system.conf and drop-ins set, or its built-in default. */
static int judge_services_tree(
        const MemlockServices *s, const SystemdConf *conf, uint64_t want, const char *want_s, MemlockVerdict *v) {
        _cleanup_(freep) char *have = memlock_describe_limit(s->limit), *from = NULL;
        char value[32] = "infinity";

        if (!have || strv_extendf(&v->actual, "services %s", have) < 0)
                return -ENOMEM;
        if (conf->set ? asprintf(&from, "DefaultLimitMEMLOCK, %s:%u", conf->file, conf->line) < 0
                      : !(from = strdup("systemd's built-in default: no system.conf or system.conf.d file of the "
                                        "tree sets DefaultLimitMEMLOCK")))
                return -ENOMEM;
        if (memlock_enough(s->limit.soft, want))
                return strv_extendf(&v->ok, "services: %s at boot (%s)", have, from);
        if (want != MEMLOCK_UNLIMITED)
                snprintf(value, sizeof(value), "%" PRIu64, want);
        return strv_extendf(
                &v->problems,
                "services get %s < %s at boot (%s): set DefaultLimitMEMLOCK=%s in the [Manager] section of " SYSTEMD_DROPIN,
                have,
                want_s,
                from,
                value);
}

static int judge_services(
        const MemlockServices *s, const SystemdConf *conf, uint64_t want, const char *want_s, MemlockVerdict *v) {
        _cleanup_(freep) char *have = NULL;
        char value[32] = "infinity";

        STRV_FOREACH(j, conf->rejected)
                if (strv_extend(&v->warnings, *j) < 0)
                        return -ENOMEM;

        switch (s->state) {
        case MEMLOCK_SERVICES_NOT_ASKED:
                /* A tree with /run/systemd/system was booted with systemd, whose default is the running
                 * manager's: what services get is not known, so the check cannot pass. */
                return strv_extend(
                        &v->warnings,
                        "could not look at what services get: systemd's DefaultLimitMEMLOCK is the running "
                        "manager's, and --root reads a tree (its run/systemd/system says it was booted with "
                        "systemd); `haloctl check` on the node reads it");
        case MEMLOCK_SERVICES_NO_SYSTEMD:
                return strv_extendf(
                        &v->warnings,
                        "the host does not run systemd, so every process starts from PID 1's limit, and "
                        "that could not be read (%s): `sudo haloctl check --only rdma.memlock` reads it",
                        strna(s->error));
        case MEMLOCK_SERVICES_PID1:
                return judge_pid1(s, want, want_s, v);
        case MEMLOCK_SERVICES_FILES:
                return judge_services_tree(s, conf, want, want_s, v);
        case MEMLOCK_SERVICES_UNREADABLE:
                return strv_extendf(
                        &v->warnings,
                        "could not look at systemd's DefaultLimitMEMLOCK (%s): `sudo haloctl check --only "
                        "rdma.memlock` asks again",
                        strna(s->error));
        default:
                break;
        }

        have = memlock_describe_limit(s->limit);
        if (!have || strv_extendf(&v->actual, "services %s", have) < 0)
                return -ENOMEM;
        if (memlock_enough(s->limit.soft, want))
                return judge_services_running(s, have, v);
        if (services_pending(s, conf, want))
                return judge_services_pending(conf, have, want_s, v);
        if (want != MEMLOCK_UNLIMITED)
                snprintf(value, sizeof(value), "%" PRIu64, want);
        return strv_extendf(
                &v->problems,
                "services get %s < %s (systemd's DefaultLimitMEMLOCK): set DefaultLimitMEMLOCK=%s in the "
                "[Manager] section of " SYSTEMD_DROPIN
                ", then run `systemctl daemon-reexec` and restart the "
                "workload",
                have,
                want_s,
                value);
}

static int judge_podman(const MemlockFacts *f, uint64_t want, const char *want_s, MemlockVerdict *v) {
        const ContainersConf *c = &f->containers;
        _cleanup_(freep) char *have = NULL;
        char ulimit[2 * 20 + 2]; /* two uint64_t and a colon */

        if (!f->podman)
                return 0;
        STRV_FOREACH(u, c->unreadable)
                if (strv_extendf(
                            &v->warnings,
                            "could not look at %s: `sudo haloctl check --only rdma.memlock` reads it",
                            *u) < 0)
                        return -ENOMEM;
        STRV_FOREACH(j, c->rejected)
                if (strv_extend(&v->warnings, *j) < 0)
                        return -ENOMEM;

        /* A CDI spec (halod.io/fabric) gives a container the devices and the variables, never a
         * limit: the container gets its memlock from default_ulimits or from podman run. */
        if (!c->has_memlock)
                return strv_extendf(
                        &v->ok,
                        "podman containers: the limit of whoever starts podman (no memlock in default_ulimits%s%s; "
                        "the CDI devices halod.io/fabric cannot raise it: `podman run --ulimit memlock=-1:-1`)",
                        c->file ? " of " : "",
                        strempty(c->file));

        /* podman takes bytes, soft:hard, not "1 GiB". */
        if (want == MEMLOCK_UNLIMITED)
                strcpy(ulimit, "-1:-1");
        else
                snprintf(ulimit, sizeof(ulimit), "%" PRIu64 ":%" PRIu64, want, want);
        have = memlock_describe_limit(c->memlock);
        if (!have || strv_extendf(&v->actual, "podman containers %s", have) < 0)
                return -ENOMEM;
        if (memlock_enough(c->memlock.soft, want))
                return strv_extendf(
                        &v->ok,
                        "podman containers: %s (default_ulimits \"%s\", %s:%u)",
                        have,
                        c->memlock_entry,
                        c->file,
                        c->line);
        return strv_extendf(
                &v->problems,
                "podman containers get %s < %s (default_ulimits \"%s\", %s:%u): make it \"memlock=%s\" in "
                "[containers] of %s, or start each with `podman run --ulimit memlock=%s` (the CDI devices "
                "halod.io/fabric cannot set a limit)",
                have,
                want_s,
                c->memlock_entry,
                c->file,
                c->line,
                ulimit,
                startswith(c->file, CONTAINERS_CONF_ADMIN_DIR) ? c->file
                                                               : CONTAINERS_CONF_ADMIN_DIR "containers.conf",
                ulimit);
}

int check_rdma_memlock_judge(
        const MemlockFacts *f, char **uverbs_problems, char **uverbs_ok, uint64_t want, PortCheck *ret) {
        _cleanup_(verdict_done) MemlockVerdict v = {};
        _cleanup_(freep) char *summary = NULL, *actual = NULL;
        char want_s[BYTES_STRING_MAX];
        CheckOutcome outcome;
        int r;

        format_bytes(want, want_s);
        r = judge_services(&f->services, &f->systemd, want, want_s, &v);
        if (r >= 0)
                r = memlock_judge_login(&f->pam, &f->services, want, want_s, &v);
        if (r >= 0)
                r = judge_podman(f, want, want_s, &v);
        if (r < 0)
                return r;
        STRV_FOREACH(u, uverbs_problems)
                if (strv_extend(&v.problems, *u) < 0)
                        return -ENOMEM;
        STRV_FOREACH(u, uverbs_ok)
                if (strv_extend(&v.ok, *u) < 0)
                        return -ENOMEM;

        outcome = v.problems ? CHECK_FAIL : v.warnings ? CHECK_WARN : CHECK_PASS;
        /* The problems first, then what could not be judged; what is fine only when nothing is wrong. */
        STRV_FOREACH(w, v.warnings)
                if (strv_extend(&v.problems, *w) < 0)
                        return -ENOMEM;
        summary = strv_join(v.problems ?: v.ok, "; ");
        actual = v.actual ? strv_join(v.actual, ", ") : strdup("");
        if (!summary || !actual)
                return -ENOMEM;
        return port_check_set(ret, outcome, want > 0 ? want_s : NULL, actual, "%s", summary);
}

int check_rdma_memlock_evaluate(
        const MemlockFacts *f, const SnapshotHost *h, NicFamily family, uint64_t want, PortCheck *ret) {
        _cleanup_(strv_freep) char **problems = NULL, **ok = NULL;
        int r;

        r = check_rdma_uverbs(h, family, &problems, &ok);
        if (r < 0)
                return r;
        return check_rdma_memlock_judge(f, problems, ok, want, ret);
}
