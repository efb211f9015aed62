/* SPDX-License-Identifier: MIT */
/* Merging per-port results into one check, and small helpers of the NIC and RDMA checks. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-ports.h"

int port_check_set(
        PortCheck *p,
        CheckOutcome outcome,
        const char *expected,
        const char *actual,
        const char *summary_format,
        ...) {
        char *summary = NULL, *e = NULL, *a = NULL;
        va_list ap;
        int r;

        va_start(ap, summary_format);
        r = vasprintf(&summary, summary_format, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        e = strdup(strempty(expected));
        a = strdup(strempty(actual));
        if (!e || !a) {
                free(summary);
                free(e);
                free(a);
                return -ENOMEM;
        }
        port_check_done(p);
        *p = (PortCheck){ .outcome = outcome, .summary = summary, .expected = e, .actual = a };
        return 0;
}

int port_check_set_pending_reboot(PortCheck *p, const char *format, ...) {
        char *s;
        va_list ap;
        int r;

        va_start(ap, format);
        r = vasprintf(&s, format, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        free(p->pending_reboot);
        p->pending_reboot = s;
        return 0;
}

void port_check_done(PortCheck *p) {
        if (!p)
                return;
        p->summary = mfree(p->summary);
        p->expected = mfree(p->expected);
        p->actual = mfree(p->actual);
        p->pending_reboot = mfree(p->pending_reboot);
}

void port_checks_free(PortCheck *p, size_t n) {
        for (size_t i = 0; p && i < n; i++)
                port_check_done(&p[i]);
        free(p);
}

static int severity(CheckOutcome o) {
        switch (o) {
        case CHECK_FAIL:
                return 3;
        case CHECK_WARN:
                return 2;
        case CHECK_SKIP:
                return 1;
        default:
                return 0;
        }
}

/* The ports' pending_reboot, on the check added last: as it is with one port, else each prefixed by its
 * link. */
static int add_pending_reboot(CheckList *l, const FabricPort *ports, const PortCheck *results, size_t n) {
        _cleanup_(strv_freep) char **what = NULL;
        _cleanup_(freep) char *joined = NULL;

        if (n == 1)
                return results[0].pending_reboot
                        ? check_list_set_pending_reboot(l, "%s", results[0].pending_reboot)
                        : 0;
        for (size_t i = 0; i < n; i++)
                if (results[i].pending_reboot &&
                    strv_extendf(&what, "%s: %s", ports[i].link, results[i].pending_reboot) < 0)
                        return -ENOMEM;
        if (!what)
                return 0;
        joined = strv_join(what, "; ");
        if (!joined)
                return -ENOMEM;
        return check_list_set_pending_reboot(l, "%s", joined);
}

static int add_merged(CheckList *l, const char *id, const FabricPort *ports, const PortCheck *results, size_t n) {
        _cleanup_(strv_freep) char **summaries = NULL, **expected = NULL, **actual = NULL;
        _cleanup_(freep) char *s = NULL, *e = NULL, *a = NULL;
        CheckOutcome worst = CHECK_PASS;

        for (size_t i = 0; i < n; i++) {
                if (severity(results[i].outcome) > severity(worst))
                        worst = results[i].outcome;
                if (strv_extendf(&summaries, "%s: %s", ports[i].link, strempty(results[i].summary)) < 0 ||
                    strv_extendf(&expected, "%s: %s", ports[i].link, strempty(results[i].expected)) < 0 ||
                    strv_extendf(&actual, "%s: %s", ports[i].link, strempty(results[i].actual)) < 0)
                        return -ENOMEM;
        }
        s = strv_join(summaries, "; ");
        e = strv_join(expected, ", ");
        a = strv_join(actual, ", ");
        if (!s || !e || !a)
                return -ENOMEM;
        return check_list_add(l, id, worst, e, a, "%s", s);
}

int check_list_add_ports(
        CheckList *l, const char *id, const FabricPort *ports, const PortCheck *results, size_t n) {
        int r;

        if (n == 0)
                return 0;
        if (n == 1)
                r = check_list_add(
                        l,
                        id,
                        results[0].outcome,
                        results[0].expected,
                        results[0].actual,
                        "%s",
                        strempty(results[0].summary));
        else
                r = add_merged(l, id, ports, results, n);
        if (r < 0)
                return r;
        return add_pending_reboot(l, ports, results, n);
}

CheckOutcome check_outcome_soften(CheckOutcome o, bool required) {
        return !required && o == CHECK_FAIL ? CHECK_WARN : o;
}
