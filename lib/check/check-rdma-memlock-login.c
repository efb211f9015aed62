/* SPDX-License-Identifier: MIT */
/* rdma.memlock's login sessions: what pam_limits sets them (linux-pam modules/pam_limits/pam_limits.c),
 * and what they keep where it sets nothing. pam_limits starts from the limits of the process that runs
 * it (init_limits(): getrlimit()), lets a line set the soft limit ("soft"), the hard one ("hard") or
 * both ("-") (process_limit()), and calls setrlimit() only for a limit some line set, with the soft
 * cut to the hard (setup_limits()). So a session without a soft line keeps the soft limit of the
 * program that opened it: sshd's and getty's are their services' (systemd's DefaultLimitMEMLOCK), su's
 * and runuser's their caller's, which is PID 1's own where the caller is no service (systemd raises
 * its own to an eighth of RAM: src/core/main.c, bump_rlimit_memlock()). The kernel checks the soft
 * limit (mm/mlock.c, ib_umem_get()'s RLIMIT_MEMLOCK). Debian's and Ubuntu's pam_limits start every
 * session from PID 1's limits instead (inherited_read_debian()). */
#include <inttypes.h>
#include <stdio.h>

#include "basic/strv.h"
#include "check/memlock-verdict.h"

/* What a session keeps when no soft line decides: the limits halod could read of the programs that
 * open sessions (upstream's pam_limits), or PID 1's (Debian's), in words, and the lowest of them. */
typedef struct Inherited {
        bool known;    /* at least one was read: lowest holds it */
        bool complete; /* every one was read */
        uint64_t lowest;
        char *words;
        const char *rule;      /* "keep the limit of the program that opens them" */
        const char *each;      /* "each keeps what opens it" */
        const char *soft_from; /* "what the program that opens the session has" */
} Inherited;

static void inherited_done(Inherited *i) {
        i->words = mfree(i->words);
}

static void inherited_add(Inherited *i, uint64_t soft) {
        i->lowest = i->known && i->lowest < soft ? i->lowest : soft;
        i->known = true;
}

/* Debian's pam_limits (debian/patches 027_pam_limits_better_init_allow_explicit_root, the patch that
 * also keeps "*" from root) reads /proc/1/limits in init_limits() for every session, and
 * setup_limits() then sets every limit it read: a session without a line starts from PID 1's limit,
 * whatever opened it. */
static int inherited_read_debian(const MemlockServices *s, Inherited *ret) {
        const MemlockLimit *pid1 = s->state == MEMLOCK_SERVICES_PID1 ? &s->limit
                : s->has_pid1                                        ? &s->pid1
                                                                     : NULL;
        char b[BYTES_STRING_MAX];
        int r;

        *ret = (Inherited){
                .complete = pid1,
                .rule = "start from PID 1's limit (Debian's pam_limits)",
                .each = "each starts from PID 1's (Debian's pam_limits)",
                .soft_from = "PID 1's, where Debian's pam_limits starts each session",
        };
        if (pid1) {
                inherited_add(ret, pid1->soft);
                r = asprintf(
                        &ret->words,
                        "every login PID 1's %s (" PROC_PID1_LIMITS ")",
                        format_bytes(pid1->soft, b));
        } else
                r = asprintf(
                        &ret->words,
                        "every login PID 1's, which could not be read (%s)",
                        s->pid1_error ?: "not asked");
        return r < 0 ? -ENOMEM : 0;
}

static int inherited_read(const LimitsConf *pam, const MemlockServices *s, Inherited *ret) {
        _cleanup_(freep) char *services = NULL, *pid1 = NULL;
        char b[BYTES_STRING_MAX];
        int r;

        if (pam->wildcard_skips_root)
                return inherited_read_debian(s, ret);
        *ret = (Inherited){
                .complete = true,
                .rule = "keep the limit of the program that opens them",
                .each = "each keeps what opens it",
                .soft_from = "what the program that opens the session has",
        };
        if (s->state == MEMLOCK_SERVICES_PID1) {
                /* No systemd: every process, the programs that open sessions among them, descends
                 * from PID 1. */
                inherited_add(ret, s->limit.soft);
                r = asprintf(
                        &ret->words,
                        "every login PID 1's %s (" PROC_PID1_LIMITS "; the host does not run systemd)",
                        format_bytes(s->limit.soft, b));
                return r < 0 ? -ENOMEM : 0;
        }

        if (s->state == MEMLOCK_SERVICES_READ || s->state == MEMLOCK_SERVICES_FILES) {
                inherited_add(ret, s->limit.soft);
                r = asprintf(
                        &services,
                        "sshd and getty logins the services' %s (systemd's DefaultLimitMEMLOCK%s)",
                        format_bytes(s->limit.soft, b),
                        s->state == MEMLOCK_SERVICES_FILES ? " at boot" : "");
        } else {
                ret->complete = false;
                r = asprintf(
                        &services,
                        "sshd and getty logins the services' (%s)",
                        s->error ?: "not read: it is the running manager's");
        }
        if (r < 0)
                return -ENOMEM;

        if (s->has_pid1) {
                inherited_add(ret, s->pid1.soft);
                r = asprintf(
                        &pid1,
                        "su and runuser their caller's, PID 1's own %s (" PROC_PID1_LIMITS
                        ") where the caller is no service",
                        format_bytes(s->pid1.soft, b));
        } else {
                ret->complete = false;
                r = asprintf(
                        &pid1,
                        "su and runuser their caller's (PID 1's own could not be read: %s)",
                        s->pid1_error ?: "not asked");
        }
        if (r < 0)
                return -ENOMEM;
        return asprintf(&ret->words, "%s, %s", services, pid1) < 0 ? -ENOMEM : 0;
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

/* The value of a limits.conf line for want: KiB, or "unlimited". */
static void limits_value(uint64_t want, char buf[static 32]) {
        if (want == MEMLOCK_UNLIMITED)
                (void) snprintf(buf, 32, "unlimited");
        else
                (void) snprintf(buf, 32, "%" PRIu64, (want + 1023) / 1024);
}

/* A line that sets only the hard limit: the soft one, which the kernel checks, stays what the session
 * inherits. */
static int judge_hard_only(
        const LimitsLine *hard, const char *domain, const Inherited *in, uint64_t want, char ***into) {
        char value[32], b[BYTES_STRING_MAX];

        limits_value(want, value);
        return strv_extendf(
                into,
                "login sessions%s%s: %s:%u sets only the hard memlock limit (%s, \"hard\"): pam_limits leaves the "
                "soft limit, the one the kernel checks, at %s (%s): add "
                "\"%s soft memlock %s\" beside it (or make it \"%s - memlock %s\") and log in again",
                streq(domain, "*") ? "" : " of ",
                streq(domain, "*") ? "" : domain,
                hard->file,
                hard->line,
                format_bytes(hard->value, b),
                in->soft_from,
                in->words,
                domain,
                value,
                domain,
                value);
}

/* The users and groups with lines of their own: who gets enough (*granted), who gets less (a
 * warning); and the files that could not be read or were refused. */
static int judge_login_domains(
        const LimitsConf *pam,
        const Inherited *in,
        uint64_t want,
        const char *want_s,
        char ***granted,
        MemlockVerdict *v) {
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
        STRV_FOREACH(j, pam->misread)
                if (strv_extend(&v->warnings, *j) < 0)
                        return -ENOMEM;

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
                if (!soft && hard && hard != soft && !memlock_enough(in->lowest, want)) {
                        r = judge_hard_only(hard, d, in, want, &v->warnings);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (!soft && !in->known)
                        continue;
                got = soft ? soft->value : in->lowest;
                if (hard && hard->value < got)
                        got = hard->value; /* setup_limits() cuts the soft limit to the hard one */
                at = describe_lines(soft, hard);
                if (!at)
                        return -ENOMEM;
                format_bytes(got, b);
                if (memlock_enough(got, want))
                        r = strv_extendf(granted, "%s for %s (%s)", b, d, at);
                else
                        r = strv_extendf(
                                &v->warnings, "login sessions of %s get %s < %s (%s)", d, b, want_s, at);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* "*" has no soft line: the session keeps what opens it. */
static int judge_inherited(
        const Inherited *in, char **granted, uint64_t want, const char *want_s, MemlockVerdict *v) {
        _cleanup_(freep) char *list = granted ? strv_join(granted, ", ") : NULL;
        char value[32], b[BYTES_STRING_MAX];

        if (granted && !list)
                return -ENOMEM;
        limits_value(want, value);
        if (in->known && strv_extendf(&v->actual, "login sessions %s", format_bytes(in->lowest, b)) < 0)
                return -ENOMEM;
        if (in->known && !memlock_enough(in->lowest, want)) {
                if (list)
                        return strv_extendf(
                                &v->ok, "login sessions: %s; everyone else keeps %s", list, in->words);
                return strv_extendf(
                        &v->problems,
                        "login sessions %s, as no soft or - memlock line for * is in " LIMITS_CONF_FILE
                        " or limits.d: %s; below %s: set \"* - memlock %s\" "
                        "in " LIMITS_DROPIN " and log in again",
                        in->rule,
                        in->words,
                        want_s,
                        value);
        }
        if (!in->complete && want > 0)
                return strv_extendf(
                        list ? &v->ok : &v->warnings,
                        "login sessions%s%s %s (no memlock line for * in " LIMITS_CONF_FILE
                        " or limits.d): %s; set \"* - memlock %s\" in " LIMITS_DROPIN " to decide it",
                        list ? ": " : "",
                        strempty(list),
                        in->rule,
                        in->words,
                        value);
        return strv_extendf(
                &v->ok,
                "login sessions: no memlock line for *, so %s: %s%s%s",
                in->each,
                in->words,
                list ? "; " : "",
                strempty(list));
}

/* Root where the host's pam_limits is Debian's (debian/patches
 * 027_pam_limits_better_init_allow_explicit_root): "*" lines do not count for root, and init_limits()
 * starts every session from PID 1's limits (parse_kernel_limits(), /proc/1/limits), so a root login
 * without a line of its own keeps PID 1's limit however much "*" grants. Root logins are a common way
 * to run the workload. */
static int judge_root(
        const LimitsConf *pam, const MemlockServices *s, uint64_t want, const char *want_s, MemlockVerdict *v) {
        const LimitsLine *soft, *hard, *any_soft, *any_hard;
        char value[32], b[BYTES_STRING_MAX];
        const MemlockLimit *pid1;

        if (!pam->wildcard_skips_root || want == 0)
                return 0;
        limits_conf_effective(pam, "root", &soft, &hard);
        limits_conf_effective(pam, "*", &any_soft, &any_hard);
        if (soft || hard || !any_soft)
                return 0; /* judged with the domains that have lines, or with everyone for "*" */
        pid1 = s->state == MEMLOCK_SERVICES_PID1 ? &s->limit : s->has_pid1 ? &s->pid1 : NULL;
        if (pid1 && memlock_enough(pid1->soft, want))
                return 0;
        limits_value(want, value);
        if (!pid1)
                return strv_extendf(
                        &v->warnings,
                        "login sessions of root: this host's pam_limits (Debian's) does not apply the * line "
                        "(%s:%u) to root, whose sessions start from PID 1's limit, which could not be read (%s): "
                        "add \"root - memlock %s\" in " LIMITS_DROPIN " to decide it",
                        any_soft->file,
                        any_soft->line,
                        s->pid1_error ?: "not asked",
                        value);
        return strv_extendf(
                &v->problems,
                "login sessions of root get %s < %s: this host's pam_limits (Debian's) does not apply the * line "
                "(%s:%u) to root, whose sessions start from PID 1's limit (" PROC_PID1_LIMITS
                "): add \"root - memlock %s\" in " LIMITS_DROPIN " and log in again",
                format_bytes(pid1->soft, b),
                want_s,
                any_soft->file,
                any_soft->line,
                value);
}

/* The hard limit of a session without a hard line: PID 1's (Debian's pam_limits), else what opens it,
 * the services' where known; fallback where not. */
static uint64_t inherited_hard(const LimitsConf *pam, const MemlockServices *s, uint64_t fallback) {
        if (pam->wildcard_skips_root && s->state != MEMLOCK_SERVICES_PID1)
                return s->has_pid1 ? s->pid1.hard : fallback;
        if (s->state == MEMLOCK_SERVICES_READ || s->state == MEMLOCK_SERVICES_PID1 ||
            s->state == MEMLOCK_SERVICES_FILES)
                return s->limit.hard;
        return fallback;
}

int memlock_judge_login(
        const LimitsConf *pam, const MemlockServices *s, uint64_t want, const char *want_s, MemlockVerdict *v) {
        _cleanup_(inherited_done) Inherited in = {};
        _cleanup_(strv_freep) char **granted = NULL;
        _cleanup_(freep) char *where = NULL, *have = NULL;
        const LimitsLine *soft, *hard;
        MemlockLimit limit;
        char value[32];
        int r;

        r = inherited_read(pam, s, &in);
        if (r >= 0)
                r = judge_login_domains(pam, &in, want, want_s, &granted, v);
        if (r >= 0)
                r = judge_root(pam, s, want, want_s, v);
        if (r < 0)
                return r;

        limits_conf_effective(pam, "*", &soft, &hard);
        if (!soft && hard && want > 0)
                return judge_hard_only(hard, "*", &in, want, &v->problems);
        if (!soft)
                return judge_inherited(&in, granted, want, want_s, v);

        limit = (MemlockLimit){ .soft = soft->value,
                                .hard = hard ? hard->value : inherited_hard(pam, s, soft->value) };
        if (limit.hard < limit.soft)
                limit.soft = limit.hard; /* setup_limits() cuts the soft limit to the hard one */
        where = describe_lines(soft, hard);
        have = memlock_describe_limit(limit);
        if (!where || !have || strv_extendf(&v->actual, "login sessions %s", have) < 0)
                return -ENOMEM;
        if (memlock_enough(limit.soft, want))
                return strv_extendf(&v->ok, "login sessions: %s (%s)", have, where);
        if (granted) {
                _cleanup_(freep) char *list = strv_join(granted, ", ");

                if (!list)
                        return -ENOMEM;
                return strv_extendf(&v->ok, "login sessions: %s; everyone else %s", list, have);
        }
        limits_value(want, value);
        return strv_extendf(
                &v->problems,
                "login sessions get %s < %s (%s): make that \"* - memlock %s\" and log in again",
                have,
                want_s,
                where,
                value);
}
