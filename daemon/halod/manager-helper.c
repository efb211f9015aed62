/* SPDX-License-Identifier: MIT */
/* Asking halod-helper.service to write what halod may not (the CDI spec, the /etc/hosts block, the
 * networkd backend's files, the memlock drop-ins and modules-load.d of rdma.limits/modules: manage), once per
 * difference and with a back-off, and the "helper" check that says whether it came. The request carries nothing
 * that the helper believes: it reads the profile and the kernel itself, so a request can only make it do what the profile says. */
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/errorf.h"
#include "basic/fileio.h"
#include "basic/strv.h"
#include "export/cdi.h"
#include "log.h"
#include "manager-helper.h"
#include "manager.h"
#include "plan/boot-plan.h"
#include "plan/hosts-plan.h"
#include "plan/plan.h"
#include "plan/rdma-setup-plan.h"
#include "profile/profile.h"

void helper_state_done(HelperState *s) {
        s->asked = mfree(s->asked);
}

bool manager_dir_writable(const char *dir) {
        _cleanup_(freep) char *copy = NULL;

        if (faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) >= 0)
                return true;
        if (errno != ENOENT)
                return false;
        copy = strdup(dir);
        return copy && faccessat(AT_FDCWD, dirname(copy), W_OK, AT_EACCESS) >= 0;
}

/* What the helper is to write and is not there. state gets what would make the helper write something
 * else (the expected contents), so that a new difference is asked for at once. */
typedef struct HelperFindings {
        char **parts;    /* the parts in play: "the CDI spec /run/cdi/halod.json" */
        char **wrong;    /* what of them is wrong, one line each */
        bool boot_wrong; /* the kernel command line among them: halod-helper-boot.service writes it */
        FILE *state;
} HelperFindings;

/* The helper writes only /run/cdi: another --cdi-dir is halod's own to write (it logs when it cannot,
 * manager-export.c). */
static bool cdi_in_play(Manager *m, const NodeContext *c) {
        return c->node && streq_ptr(m->cdi_dir, CDI_DIR_DEFAULT) && !manager_dir_writable(m->cdi_dir);
}

static bool hosts_in_play(const NodeContext *c) {
        return c->profile && c->profile->health.hosts == HOSTS_POLICY_MANAGE &&
                profile_may_change_host(c->profile, false) && !manager_dir_writable("/etc");
}

bool manager_helper_delegates_networkd(const Profile *p, const Backend *backend) {
        return p && backend == &backend_networkd && profile_may_change_host(p, false) &&
                !manager_dir_writable("/etc/systemd/network");
}

/* rdma.limits and rdma.modules: manage write root's files and load modules, which halod never may,
 * whatever its user: always the helper's. */
static bool rdma_setup_in_play(const NodeContext *c) {
        return c->profile && c->node && profile_may_change_host(c->profile, false) &&
                (c->profile->rdma.limits == RDMA_SETUP_MANAGE ||
                 c->profile->rdma.modules == RDMA_SETUP_MANAGE);
}

bool manager_helper_in_play(Manager *m, const NodeContext *c, bool networkd) {
        return networkd || cdi_in_play(m, c) || hosts_in_play(c) || rdma_setup_in_play(c) ||
                (c->profile && c->profile->kernel_boot == BOOT_POLICY_MANAGE &&
                 profile_may_change_host(c->profile, false));
}

int manager_helper_networkd_wrong(Snapshot *s, char **ret, char **error) {
        _cleanup_(plan_done) Plan plan = {};
        _cleanup_(strv_freep) char **lines = NULL;
        char *text;
        int r;

        r = plan_from_snapshot(s, &plan);
        if (r < 0)
                return errorf(error, r, "cannot read the link state from the kernel: %s", strerror(-r));
        plan.hosts = hosts_plan_free(plan.hosts);
        r = plan_describe(&plan, &lines);
        if (r < 0)
                return r;
        text = strv_join(lines, "; ");
        if (!text)
                return -ENOMEM;
        free(*ret);
        *ret = text;
        return 0;
}

static int find_cdi(Manager *m, const NodeContext *c, HelperFindings *f) {
        _cleanup_(freep) char *path = NULL, *text = NULL, *data = NULL;
        _cleanup_(cdi_spec_done) CdiSpec spec = {};
        int r;

        if (!cdi_in_play(m, c))
                return 0;
        if (asprintf(&path, "%s/" CDI_SPEC_FILE, m->cdi_dir) < 0)
                return -ENOMEM;
        r = strv_extendf(&f->parts, "the CDI spec %s", path);
        if (r < 0)
                return r;
        r = cdi_spec_derive(c, /* snapshot= */ NULL, &spec);
        if (r >= 0)
                r = cdi_spec_render(&spec, &text);
        if (r < 0)
                return r;
        fprintf(f->state, "cdi\n%s\n", text);
        r = read_regular_file(path, 1024 * 1024, &data, NULL);
        if (r == -ENOENT)
                return strv_extendf(&f->wrong, "there is no CDI spec %s", path);
        if (r < 0)
                return strv_extendf(&f->wrong, "cannot read the CDI spec %s: %s", path, strerror(-r));
        if (!streq(data, text))
                return strv_extendf(
                        &f->wrong,
                        "the CDI spec %s is not the one the profile and the kernel give (haloctl env --cdi "
                        "prints that one)",
                        path);
        return 0;
}

static int find_hosts(const NodeContext *c, HelperFindings *f) {
        _cleanup_(hosts_plan_freep) HostsPlan *hp = NULL;
        int r;

        if (!hosts_in_play(c))
                return 0;
        r = strv_extend(&f->parts, "its /etc/hosts block");
        if (r < 0)
                return r;
        r = hosts_plan_compute(c, &hp);
        if (r < 0)
                return r;
        /* A block that cannot be managed (broken, or the file unreadable) is not a block that is right: the
         * helper refuses it too, and `haloctl apply --only hosts.` says why. */
        if (hp && hp->error) {
                fprintf(f->state, "hosts\n%s\n", hp->error);
                return strv_extendf(&f->wrong, "/etc/hosts: %s", hp->error);
        }
        if (!hp || !hp->text)
                return 0;
        fprintf(f->state, "hosts\n%s\n", hp->text);
        return strv_extend(&f->wrong, "/etc/hosts lacks the other nodes' names as the profile says");
}

/* The kernel command line (kernel.boot: manage): what the next boot lacks, as the helper's own plan
 * would write it. The helper has halod-helper-boot.service run the boot loader's tool; halod never
 * does, and never reboots. */
static int find_boot(const NodeContext *c, HelperFindings *f) {
        _cleanup_(boot_plan_freep) BootPlan *bp = NULL;
        _cleanup_(strv_freep) char **lines = NULL;
        _cleanup_(freep) char *text = NULL;
        int r;

        if (!c->profile || c->profile->kernel_boot != BOOT_POLICY_MANAGE ||
            !profile_may_change_host(c->profile, false))
                return 0;
        r = strv_extend(&f->parts, "the kernel command line");
        if (r < 0)
                return r;
        r = boot_plan_compute(c, &bp);
        if (r >= 0)
                r = boot_plan_describe(bp, &lines);
        if (r < 0 || !bp)
                return r;
        text = strv_join(lines, "; ");
        if (!text)
                return -ENOMEM;
        fprintf(f->state, "boot\n%s\n", text);
        f->boot_wrong = true;
        return strv_extend(&f->wrong, text);
}

static int find_rdma_setup(const NodeContext *c, HelperFindings *f) {
        _cleanup_(rdma_setup_plan_done) RdmaSetupPlan plan = {};
        _cleanup_(strv_freep) char **lines = NULL;
        int r;

        if (!rdma_setup_in_play(c))
                return 0;
        r = strv_extend(&f->parts, "the memlock drop-ins and RDMA modules of rdma.limits and rdma.modules");
        if (r >= 0)
                r = rdma_setup_plan_compute(c, RDMA_SETUP_ALL, &plan);
        if (r >= 0)
                r = rdma_setup_plan_describe(&plan, &lines);
        if (r < 0)
                return r;
        STRV_FOREACH(l, lines) {
                fprintf(f->state, "rdma-setup\n%s\n", *l);
                r = strv_extend(&f->wrong, *l);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int find_networkd(const char *networkd_wrong, HelperFindings *f) {
        int r;

        if (!networkd_wrong)
                return 0;
        r = strv_extend(&f->parts, "the networkd backend's files");
        if (r < 0 || isempty(networkd_wrong))
                return r;
        fprintf(f->state, "networkd\n%s\n", networkd_wrong);
        return strv_extendf(&f->wrong, "systemd-networkd: %s", networkd_wrong);
}

static int request_path(Manager *m, char **ret) {
        return asprintf(ret, "%s/" HELPER_REQUEST_FILE, m->runtime_dir) < 0 ? -ENOMEM : 0;
}

static int ask(Manager *m, char **wrong) {
        _cleanup_(freep) char *path = NULL, *lines = NULL, *text = NULL;

        /* For whoever reads the file by hand: the helper does not read it. Written anew each time (a
         * rename, which PathChanged= sees). */
        lines = strv_join(wrong, "\n");
        if (!lines || request_path(m, &path) < 0 ||
            asprintf(
                    &text,
                    "# halod asks halod-helper.service to look again; it does not read this file.\n%s\n",
                    lines) < 0)
                return -ENOMEM;
        return write_file_atomic(path, text, strlen(text), 0644);
}

static usec_t mtime_usec(const char *path) {
        struct stat st;

        if (stat(path, &st) < 0)
                return 0;
        return (usec_t) st.st_mtim.tv_sec * USEC_PER_SEC + (usec_t) st.st_mtim.tv_nsec / 1000;
}

static usec_t request_mtime(Manager *m) {
        _cleanup_(freep) char *path = NULL;

        if (request_path(m, &path) < 0)
                return 0;
        return mtime_usec(path);
}

static int add_check(CheckList *checks, HelperVerdict v, char **parts, char **wrong, bool boot_wrong) {
        _cleanup_(freep) char *what = NULL, *why = NULL, *result = NULL;

        what = strv_join(parts, ", ");
        why = strv_join(wrong, "; ");
        if (!what || !why)
                return -ENOMEM;
        switch (v) {
        case HELPER_VERDICT_PASS:
                return check_list_add(
                        checks,
                        HELPER_CHECK_ID,
                        CHECK_PASS,
                        "as the profile says",
                        "as the profile says",
                        "what halod-helper.service writes for halod is as the profile says: %s",
                        what);
        case HELPER_VERDICT_ASKED:
                return check_list_add(
                        checks,
                        HELPER_CHECK_ID,
                        CHECK_WARN,
                        "as the profile says",
                        "asked for",
                        "asked halod-helper.service to write it: %s",
                        why);
        case HELPER_VERDICT_FAILED:
                (void) read_regular_file(HELPER_RUNTIME_DIR "/" HELPER_STAMP_RESULT, 256, &result, NULL);
                if (result)
                        result[strcspn(result, "\n")] = '\0';
                return check_list_add(
                        checks,
                        HELPER_CHECK_ID,
                        CHECK_FAIL,
                        "as the profile says",
                        strna(result),
                        "still wrong after halod-helper.service ran (%s): %s; see journalctl -u "
                        "halod-helper.service%s",
                        strna(result),
                        why,
                        boot_wrong ? " -u halod-helper-boot.service" : "");
        default:
                return check_list_add(
                        checks,
                        HELPER_CHECK_ID,
                        CHECK_WARN,
                        "as the profile says",
                        "asked for, not run since",
                        "asked halod-helper.service, which has not run since: %s (is halod-helper.path "
                        "active? systemctl status halod-helper.path)",
                        why);
        }
}

int manager_helper_step(
        Manager *m, const NodeContext *c, const char *networkd_wrong, bool with_check, CheckList *checks) {
        _cleanup_(strv_freep) char **parts = NULL, **wrong = NULL;
        _cleanup_(freep) char *state = NULL;
        HelperFindings f = {};
        HelperState *s = &m->helper;
        HelperVerdict verdict;
        HelperAsk decision;
        HelperRun run;
        size_t size = 0;
        int r;

        f.state = open_memstream(&state, &size);
        if (!f.state)
                return -ENOMEM;
        r = find_cdi(m, c, &f);
        if (r >= 0)
                r = find_hosts(c, &f);
        if (r >= 0)
                r = find_networkd(networkd_wrong, &f);
        if (r >= 0)
                r = find_boot(c, &f);
        if (r >= 0)
                r = find_rdma_setup(c, &f);
        parts = TAKE_PTR(f.parts);
        wrong = TAKE_PTR(f.wrong);
        if (fclose(f.state) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0)
                return r;
        if (!parts) {
                /* Nothing of the helper's: the same difference coming back later is new again. */
                s->asked = mfree(s->asked);
                s->failed = false;
                return -ENOENT;
        }

        run = helper_run_of(
                s->asked_realtime,
                mtime_usec(HELPER_RUNTIME_DIR "/" HELPER_STAMP_STARTED),
                mtime_usec(HELPER_RUNTIME_DIR "/" HELPER_STAMP_RESULT));
        decision = helper_ask_decide(
                strv_length(wrong) > 0,
                s->asked && streq(s->asked, state),
                run,
                now(CLOCK_MONOTONIC),
                s->asked_usec,
                s->backoff_usec);
        verdict = helper_verdict(strv_length(wrong) > 0, decision, run, s->failed);
        if (strv_length(wrong) == 0)
                s->asked = mfree(s->asked);
        else if (decision != HELPER_ASK_NOT) {
                r = ask(m, wrong);
                if (r < 0)
                        return r;
                free(s->asked);
                s->asked = TAKE_PTR(state);
                s->asked_usec = now(CLOCK_MONOTONIC);
                s->backoff_usec = helper_backoff_next(decision, s->backoff_usec);
                /* The request's own mtime: the file system's clock, which the helper's files get too
                 * (coarser than CLOCK_REALTIME). */
                s->asked_realtime = request_mtime(m) ?: now(CLOCK_REALTIME);
        }
        s->failed = verdict == HELPER_VERDICT_FAILED;
        if (with_check) {
                r = add_check(checks, verdict, parts, wrong, f.boot_wrong);
                if (r < 0)
                        return r;
        }
        return decision != HELPER_ASK_NOT;
}

void manager_helper_report(Manager *m, int r) {
        if (r == -ENOENT || r == m->helper.last_result)
                return;
        if (r > 0)
                log_info(
                        "Asked halod-helper.service to write what halod may not (%s/" HELPER_REQUEST_FILE ").",
                        m->runtime_dir);
        else if (r < 0)
                log_warning_errno(
                        r,
                        "Failed to ask halod-helper.service to write what halod may not (%s/" HELPER_REQUEST_FILE
                        "): %m. Run `sudo haloctl apply --only cdi,hosts.,networkd,boot,limits,modules` instead.",
                        m->runtime_dir);
        m->helper.last_result = r;
}
