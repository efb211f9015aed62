/* SPDX-License-Identifier: MIT */
/* The check model and check lists. */
#include <stdarg.h>
#include <stdio.h>

#include "check/check.h"

static const char *const check_outcome_table[_CHECK_OUTCOME_MAX] = {
        [CHECK_PASS] = "pass",
        [CHECK_SKIP] = "skip",
        [CHECK_WARN] = "warn",
        [CHECK_FAIL] = "fail",
};

DEFINE_STRING_TABLE_LOOKUP(check_outcome, CheckOutcome);

static void check_done(Check *c) {
        free(c->id);
        free(c->link);
        free(c->summary);
        free(c->expected);
        free(c->actual);
        free(c->pending_reboot);
}

/* Takes c (freed on failure). */
static int check_list_append(CheckList *l, Check *c) {
        Check *a;

        a = reallocarray(l->checks, l->n_checks + 1, sizeof(Check));
        if (a)
                l->checks = a;
        if (!a || !c->id || !c->summary || !c->expected || !c->actual) {
                check_done(c);
                return -ENOMEM;
        }
        l->checks[l->n_checks++] = *c;
        return 0;
}

static int check_list_addv(
        CheckList *l,
        char *id,
        char *link,
        CheckOutcome outcome,
        const char *expected,
        const char *actual,
        const char *summary_format,
        va_list ap) {
        Check c = {
                .id = id,
                .link = link,
                .outcome = outcome,
                .expected = strdup(strempty(expected)),
                .actual = strdup(strempty(actual)),
        };

        if (vasprintf(&c.summary, summary_format, ap) < 0)
                c.summary = NULL;
        return check_list_append(l, &c);
}

int check_list_add(
        CheckList *l,
        const char *id,
        CheckOutcome outcome,
        const char *expected,
        const char *actual,
        const char *summary_format,
        ...) {
        va_list ap;
        int r;

        va_start(ap, summary_format);
        r = check_list_addv(l, strdup(id), NULL, outcome, expected, actual, summary_format, ap);
        va_end(ap);
        return r;
}

/* "<group>.<link>.<what>", about the logical link: the journal names the link (HALOD_LINK). */
static int check_list_add_linkv(
        CheckList *l,
        const char *group,
        const char *link,
        const char *what,
        CheckOutcome outcome,
        const char *expected,
        const char *actual,
        const char *summary_format,
        va_list ap) {
        char *id, *copy = strdup(link);

        if (asprintf(&id, "%s.%s.%s", group, link, what) < 0)
                id = NULL;
        if (!copy) {
                free(id);
                return -ENOMEM;
        }
        return check_list_addv(l, id, copy, outcome, expected, actual, summary_format, ap);
}

int check_list_add_link(
        CheckList *l,
        const char *link,
        const char *what,
        CheckOutcome outcome,
        const char *expected,
        const char *actual,
        const char *summary_format,
        ...) {
        va_list ap;
        int r;

        va_start(ap, summary_format);
        r = check_list_add_linkv(l, "link", link, what, outcome, expected, actual, summary_format, ap);
        va_end(ap);
        return r;
}

int check_list_add_qos(
        CheckList *l,
        const char *link,
        const char *what,
        CheckOutcome outcome,
        const char *expected,
        const char *actual,
        const char *summary_format,
        ...) {
        va_list ap;
        int r;

        va_start(ap, summary_format);
        r = check_list_add_linkv(l, "qos", link, what, outcome, expected, actual, summary_format, ap);
        va_end(ap);
        return r;
}

int check_list_skip(CheckList *l, const char *id, const char *reason_format, ...) {
        va_list ap;
        int r;

        va_start(ap, reason_format);
        r = check_list_addv(l, strdup(id), NULL, CHECK_SKIP, NULL, NULL, reason_format, ap);
        va_end(ap);
        return r;
}

int check_list_skip_link(CheckList *l, const char *link, const char *what, const char *reason_format, ...) {
        va_list ap;
        int r;

        va_start(ap, reason_format);
        r = check_list_add_linkv(l, "link", link, what, CHECK_SKIP, NULL, NULL, reason_format, ap);
        va_end(ap);
        return r;
}

int check_list_skip_qos(CheckList *l, const char *link, const char *what, const char *reason_format, ...) {
        va_list ap;
        int r;

        va_start(ap, reason_format);
        r = check_list_add_linkv(l, "qos", link, what, CHECK_SKIP, NULL, NULL, reason_format, ap);
        va_end(ap);
        return r;
}

int check_list_set_pending_reboot(CheckList *l, const char *format, ...) {
        Check *c;
        char *s;
        va_list ap;
        int r;

        if (l->n_checks == 0)
                return -ENOENT;
        c = &l->checks[l->n_checks - 1];
        va_start(ap, format);
        r = vasprintf(&s, format, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        free(c->pending_reboot);
        c->pending_reboot = s;
        return 0;
}

int check_list_add_copy(CheckList *l, const Check *c) {
        Check copy = {
                .id = strdup(c->id),
                .link = c->link ? strdup(c->link) : NULL,
                .outcome = c->outcome,
                .summary = strdup(c->summary),
                .expected = strdup(c->expected),
                .actual = strdup(c->actual),
                .pending = c->pending,
                .pending_reboot = c->pending_reboot ? strdup(c->pending_reboot) : NULL,
        };

        if ((c->link && !copy.link) || (c->pending_reboot && !copy.pending_reboot)) {
                check_done(&copy);
                return -ENOMEM;
        }
        return check_list_append(l, &copy);
}

void check_list_done(CheckList *l) {
        for (size_t i = 0; i < l->n_checks; i++)
                check_done(&l->checks[i]);
        l->checks = mfree(l->checks);
        l->n_checks = 0;
}

int check_list_take(CheckList *dst, CheckList *src) {
        Check *a;

        if (src->n_checks == 0)
                return 0;
        a = realloc(dst->checks, sizeof(Check) * (dst->n_checks + src->n_checks));
        if (!a)
                return -ENOMEM;
        memcpy(a + dst->n_checks, src->checks, sizeof(Check) * src->n_checks);
        dst->checks = a;
        dst->n_checks += src->n_checks;
        src->checks = mfree(src->checks);
        src->n_checks = 0;
        return 0;
}

const Check *check_list_find(const CheckList *l, const char *id) {
        for (size_t i = 0; i < l->n_checks; i++)
                if (streq(l->checks[i].id, id))
                        return &l->checks[i];
        return NULL;
}

CheckOutcome check_list_worst(const CheckList *l) {
        CheckOutcome w = CHECK_PASS;

        for (size_t i = 0; i < l->n_checks; i++)
                if (l->checks[i].outcome > w)
                        w = l->checks[i].outcome;
        return w;
}

size_t check_list_count(const CheckList *l, CheckOutcome outcome) {
        size_t n = 0;

        for (size_t i = 0; i < l->n_checks; i++)
                if (l->checks[i].outcome == outcome)
                        n++;
        return n;
}

/* Ids that were renamed, still accepted as selectors for one release (haloctl(1), CHECKS): the old id
 * selects the check under its new one, which is the only id it is reported under (D-Bus, JSON, the
 * journal, the metrics), so that nothing counts it twice. */
static const struct {
        const char *old_id, *new_id;
} check_id_aliases[] = {
        { "kernel.gtt", "gpu.gtt" }, /* renamed in 0.2 */
};

const char *check_selector_resolve(const char *selector, size_t *n) {
        for (size_t i = 0; i < ELEMENTSOF(check_id_aliases); i++)
                if (*n == strlen(check_id_aliases[i].old_id) &&
                    strncmp(selector, check_id_aliases[i].old_id, *n) == 0) {
                        *n = strlen(check_id_aliases[i].new_id);
                        return check_id_aliases[i].new_id;
                }
        return selector;
}

bool check_id_selected(const char *id, const char *only) {
        const char *p = only;

        if (isempty(only))
                return true;
        while (*p) {
                size_t n = strcspn(p, ","), k = n;
                const char *selector = check_selector_resolve(p, &k);

                if (k > 0 && strncmp(id, selector, k) == 0)
                        return true;
                p += n;
                if (*p == ',')
                        p++;
        }
        return false;
}

int check_list_take_selected(CheckList *dst, CheckList *src, const char *only) {
        size_t kept = 0;
        int r;

        /* Frees what only does not select, then moves the rest in one piece. */
        for (size_t i = 0; i < src->n_checks; i++) {
                if (check_id_selected(src->checks[i].id, only))
                        src->checks[kept++] = src->checks[i];
                else
                        check_done(&src->checks[i]);
        }
        src->n_checks = kept;
        r = check_list_take(dst, src);
        if (r < 0)
                check_list_done(src);
        return r;
}
