/* SPDX-License-Identifier: MIT */
/* haloctl's output helpers: colour on a terminal only, the checks table and its JSON form. */
#include <stdio.h>
#include <unistd.h>

#include "basic/json-writer.h"
#include "haloctl-status-reboot.h"
#include "haloctl.h"

static bool use_color(void) {
        static int cached = -1;
        const char *e;

        if (arg_color >= 0)
                return arg_color;
        if (cached < 0) {
                e = getenv("NO_COLOR");
                cached = isatty(STDOUT_FILENO) && !(e && *e) && !streq_ptr(getenv("TERM"), "dumb");
        }
        return cached;
}

const char *ansi_green(void) {
        return use_color() ? "\033[0;32m" : "";
}

const char *ansi_yellow(void) {
        return use_color() ? "\033[0;33m" : "";
}

const char *ansi_red(void) {
        return use_color() ? "\033[0;31m" : "";
}

const char *ansi_grey(void) {
        return use_color() ? "\033[0;90m" : "";
}

const char *ansi_bold(void) {
        return use_color() ? "\033[1m" : "";
}

const char *ansi_normal(void) {
        return use_color() ? "\033[0m" : "";
}

static const char *outcome_color(CheckOutcome o) {
        switch (o) {
        case CHECK_PASS:
                return ansi_green();
        case CHECK_WARN:
                return ansi_yellow();
        case CHECK_FAIL:
                return ansi_red();
        default:
                return ansi_grey();
        }
}

void print_checks(const CheckList *l) {
        size_t width = 0;

        for (size_t i = 0; i < l->n_checks; i++)
                if (strlen(l->checks[i].id) > width)
                        width = strlen(l->checks[i].id);

        /* Failures first, then warnings, skips and passes, each in the order they ran. */
        for (int o = CHECK_FAIL; o >= CHECK_PASS; o--)
                for (size_t i = 0; i < l->n_checks; i++) {
                        const Check *c = &l->checks[i];

                        if ((int) c->outcome != o)
                                continue;
                        printf("%s%-4s%s  %-*s  %s\n",
                               outcome_color(c->outcome),
                               check_outcome_to_string(c->outcome),
                               ansi_normal(),
                               (int) width,
                               c->id,
                               c->summary);
                }
}

void json_checks(JsonWriter *w, const CheckList *l) {
        json_key(w, "checks");
        json_begin_array(w);
        for (size_t i = 0; i < l->n_checks; i++) {
                const Check *c = &l->checks[i];

                json_begin_object(w);
                json_kv_string(w, "id", c->id);
                json_kv_string(w, "outcome", check_outcome_to_string(c->outcome));
                json_kv_string(w, "summary", c->summary);
                json_kv_string(w, "expected", c->expected);
                json_kv_string(w, "actual", c->actual);
                json_end_object(w);
        }
        json_end_array(w);
}

void print_checks_json(const CheckList *l, char **pending_reboot) {
        JsonWriter w;

        json_writer_init(&w, stdout, true);
        json_begin_object(&w);
        json_kv_string(&w, "outcome", check_outcome_to_string(check_list_worst(l)));
        json_checks(&w, l);
        status_json_pending_reboot(&w, pending_reboot);
        json_end_object(&w);
        json_writer_finish(&w);
}

int exit_code_for_checks(const CheckList *l) {
        switch (check_list_worst(l)) {
        case CHECK_FAIL:
                return EXIT_CHECK_FAIL;
        case CHECK_WARN:
                return EXIT_CHECK_WARN;
        default:
                return EXIT_SUCCESS;
        }
}
