/* SPDX-License-Identifier: MIT */
/* rdma.memlock's decision: the memlock limits a workload gets (systemd's default for services, the PAM
 * limits for login sessions, podman's default_ulimits) against the profile, and /dev/infiniband access,
 * from what check-rdma-memlock-read.c read. */
#include <inttypes.h>
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-rdma.h"

#define SYSTEMD_DROPIN "/etc/systemd/system.conf.d/90-rdma.conf"
#define LIMITS_DROPIN LIMITS_CONF_DROPIN_DIR "/90-rdma.conf"
#define CONTAINERS_CONF_ADMIN_DIR "/etc/containers/"

/* What the check says, sorted by weight: problems fail it, warnings make it warn. */
typedef struct Verdict {
        char **problems;
        char **warnings;
        char **ok;
        char **actual; /* "services 8 MiB": each limit that was judged */
} Verdict;

static void verdict_done(Verdict *v) {
        v->problems = strv_free(v->problems);
        v->warnings = strv_free(v->warnings);
        v->ok = strv_free(v->ok);
        v->actual = strv_free(v->actual);
}

static bool enough(uint64_t have, uint64_t want) {
        return want == 0 || have >= want;
}

/* "8 MiB", or "8 MiB (hard unlimited)" when the hard limit differs. */
static char *describe_limit(MemlockLimit l) {
        char soft[BYTES_STRING_MAX], hard[BYTES_STRING_MAX];
        char *s;

        format_bytes(l.soft, soft);
        if (l.soft == l.hard)
                return strdup(soft);
        format_bytes(l.hard, hard);
        return asprintf(&s, "%s (hard %s)", soft, hard) < 0 ? NULL : s;
}

/* Without systemd no DefaultLimitMEMLOCK raises anything: every process inherits PID 1's limit. */
static int judge_pid1(const MemlockServices *s, uint64_t want, const char *want_s, Verdict *v) {
        _cleanup_(freep) char *have = describe_limit(s->limit);
        char ulimit[32] = "unlimited";

        if (!have || strv_extendf(&v->actual, "PID 1 %s", have) < 0)
                return -ENOMEM;
        if (enough(s->limit.soft, want))
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

static int judge_services(const MemlockServices *s, uint64_t want, const char *want_s, Verdict *v) {
        _cleanup_(freep) char *have = NULL;
        char value[32] = "infinity";

        switch (s->state) {
        case MEMLOCK_SERVICES_NOT_ASKED:
                return strv_extend(
                        &v->ok,
                        "services: not read under --root (systemd's DefaultLimitMEMLOCK comes from the running "
                        "manager)");
        case MEMLOCK_SERVICES_NO_SYSTEMD:
                return strv_extendf(
                        &v->warnings,
                        "the host does not run systemd, so every process starts from PID 1's limit, and "
                        "that could not be read (%s): `sudo haloctl check --only rdma.memlock` reads it",
                        strna(s->error));
        case MEMLOCK_SERVICES_PID1:
                return judge_pid1(s, want, want_s, v);
        case MEMLOCK_SERVICES_UNREADABLE:
                return strv_extendf(
                        &v->warnings,
                        "could not look at systemd's DefaultLimitMEMLOCK (%s): `sudo haloctl check --only "
                        "rdma.memlock` asks again",
                        strna(s->error));
        default:
                break;
        }

        have = describe_limit(s->limit);
        if (!have || strv_extendf(&v->actual, "services %s", have) < 0)
                return -ENOMEM;
        if (enough(s->limit.soft, want))
                return strv_extendf(&v->ok, "services: %s (systemd's DefaultLimitMEMLOCK)", have);
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

/* "FILE:LINE" of the lines that decide a limit, or NULL when none does. */
static char *describe_lines(const LimitsLine *soft, const LimitsLine *hard) {
        char *s;

        if (!soft && !hard)
                return NULL;
        if (!soft || !hard || soft == hard)
                return asprintf(&s, "%s:%u", (soft ?: hard)->file, (soft ?: hard)->line) < 0 ? NULL : s;
        return asprintf(&s, "%s:%u and %s:%u", soft->file, soft->line, hard->file, hard->line) < 0 ? NULL : s;
}

/* Login sessions of everyone ("*"), and of each user or group that limits.conf names. A session
 * without a line keeps what the service that runs the login has: systemd's default. */
/* The files that could not be read or were refused, and the users and groups with lines of their
 * own: who gets enough (*granted), who gets less (a warning). */
static int judge_login_domains(
        const LimitsConf *pam,
        const MemlockServices *s,
        bool inherited_known,
        uint64_t want,
        const char *want_s,
        char ***granted,
        Verdict *v) {
        _cleanup_(strv_freep) char **seen = NULL;
        const LimitsLine *soft, *hard;
        int r;

        STRV_FOREACH(u, pam->unreadable)
                if (strv_extendf(
                            &v->warnings,
                            "could not look at %s: `sudo haloctl check --only rdma.memlock` reads it",
                            *u) < 0)
                        return -ENOMEM;
        STRV_FOREACH(j, pam->rejected)
                if (strv_extend(&v->warnings, *j) < 0)
                        return -ENOMEM;

        /* The users and groups with lines of their own: who gets enough, who gets less. */
        for (size_t i = 0; i < pam->n_lines; i++) {
                const char *d = pam->lines[i].domain;
                _cleanup_(freep) char *at = NULL;
                char b[BYTES_STRING_MAX];
                uint64_t got;

                if (streq(d, "*") || strv_contains(seen, d))
                        continue;
                if (strv_extend(&seen, d) < 0)
                        return -ENOMEM;
                limits_conf_effective(pam, d, &soft, &hard);
                if (!soft && !inherited_known)
                        continue;
                got = soft ? soft->value : s->limit.soft;
                at = describe_lines(soft, hard);
                if (!at)
                        return -ENOMEM;
                format_bytes(got, b);
                if (enough(got, want))
                        r = strv_extendf(granted, "%s for %s (%s)", b, d, at);
                else
                        r = strv_extendf(
                                &v->warnings, "login sessions of %s get %s < %s (%s)", d, b, want_s, at);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int judge_login(
        const LimitsConf *pam, const MemlockServices *s, uint64_t want, const char *want_s, Verdict *v) {
        _cleanup_(strv_freep) char **granted = NULL;
        _cleanup_(freep) char *where = NULL, *have = NULL;
        const LimitsLine *soft, *hard;
        bool inherited_known = s->state == MEMLOCK_SERVICES_READ || s->state == MEMLOCK_SERVICES_PID1;
        char value[32] = "unlimited";
        uint64_t star;
        int r;

        r = judge_login_domains(pam, s, inherited_known, want, want_s, &granted, v);
        if (r < 0)
                return r;

        limits_conf_effective(pam, "*", &soft, &hard);
        where = describe_lines(soft, hard);
        if ((soft || hard) && !where)
                return -ENOMEM;
        if (!soft && !inherited_known) {
                _cleanup_(freep) char *list = granted ? strv_join(granted, ", ") : NULL;

                if (granted)
                        return list ? strv_extendf(&v->ok, "login sessions: %s", list) : -ENOMEM;
                return strv_extend(
                        &v->ok,
                        "login sessions: keep the limit of the service that runs the login (no memlock line for * "
                        "in " LIMITS_CONF_FILE " or limits.d)");
        }
        star = soft ? soft->value : s->limit.soft;
        have = describe_limit((MemlockLimit){
                .soft = star,
                .hard = hard              ? hard->value
                        : inherited_known ? s->limit.hard
                                          : star,
        });
        if (!have || strv_extendf(&v->actual, "login sessions %s", have) < 0)
                return -ENOMEM;

        if (enough(star, want)) {
                if (soft)
                        return strv_extendf(&v->ok, "login sessions: %s (%s)", have, where);
                return strv_extendf(
                        &v->ok, "login sessions: %s (as services: no memlock line for * in limits.conf)", have);
        }
        if (granted) {
                _cleanup_(freep) char *list = strv_join(granted, ", ");

                if (!list)
                        return -ENOMEM;
                return strv_extendf(&v->ok, "login sessions: %s; everyone else %s", list, have);
        }
        if (want != MEMLOCK_UNLIMITED)
                snprintf(value, sizeof(value), "%" PRIu64, (want + 1023) / 1024);
        if (soft)
                return strv_extendf(
                        &v->problems,
                        "login sessions get %s < %s (%s): make that \"* - memlock %s\" and log in again",
                        have,
                        want_s,
                        where,
                        value);
        return strv_extendf(
                &v->problems,
                "login sessions get %s < %s (no memlock line for * in " LIMITS_CONF_FILE
                " or limits.d: they keep the services' limit): set \"* - memlock %s\" in " LIMITS_DROPIN
                " and log in again",
                have,
                want_s,
                value);
}

static int judge_podman(const MemlockFacts *f, uint64_t want, const char *want_s, Verdict *v) {
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
        have = describe_limit(c->memlock);
        if (!have || strv_extendf(&v->actual, "podman containers %s", have) < 0)
                return -ENOMEM;
        if (enough(c->memlock.soft, want))
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

int check_rdma_memlock_judge(const MemlockFacts *f, uint64_t want, PortCheck *ret) {
        _cleanup_(verdict_done) Verdict v = {};
        _cleanup_(freep) char *summary = NULL, *actual = NULL;
        char want_s[BYTES_STRING_MAX];
        CheckOutcome outcome;
        int r;

        format_bytes(want, want_s);
        r = judge_services(&f->services, want, want_s, &v);
        if (r >= 0)
                r = judge_login(&f->pam, &f->services, want, want_s, &v);
        if (r >= 0)
                r = judge_podman(f, want, want_s, &v);
        if (r < 0)
                return r;
        STRV_FOREACH(u, f->uverbs_problems)
                if (strv_extend(&v.problems, *u) < 0)
                        return -ENOMEM;
        STRV_FOREACH(u, f->uverbs_ok)
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
