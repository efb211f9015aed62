/* SPDX-License-Identifier: MIT */
/* The check model: a stable id, an outcome, a one-line summary, expected and actual values. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"

typedef enum CheckOutcome {
        CHECK_PASS,
        CHECK_SKIP,
        CHECK_WARN,
        CHECK_FAIL,
        _CHECK_OUTCOME_MAX,
        _CHECK_OUTCOME_INVALID = -EINVAL,
} CheckOutcome;

const char *check_outcome_to_string(CheckOutcome o) _pure_;
CheckOutcome check_outcome_from_string(const char *s) _pure_;

/* Room for any check id, NUL included: the profile's names are at most 63 characters, so
 * "peer.NODE.reachable" and "link.LINK.mtu" fit with room to spare. */
#define CHECK_ID_MAX 256U

typedef struct Check {
        char *id;   /* stable: "kernel.cmdline", "link.rdma0.mtu", "nic.firmware" */
        char *link; /* the logical link of a link check ("rdma0"), for the journal; NULL otherwise */
        CheckOutcome outcome;
        char *summary;  /* one line, for the person at the terminal */
        char *expected; /* "" when it does not apply */
        char *actual;
        /* Its measurement had not ended when the run did (a peer's probes, check-peer.h): the outcome is
         * skip and actual says "pending" to the reader; code asks this flag, never the text. */
        bool pending;
        /* What a reboot (or a re-exec of the service manager) would bring into force that the running
         * system lacks, for the PendingReboot property: "kernel command line: iommu=pt"; NULL when
         * nothing. Set by the check that judged it; code asks this, never the summary. */
        char *pending_reboot;
} Check;

typedef struct CheckList {
        Check *checks;
        size_t n_checks;
} CheckList;

/* Adds a check; expected/actual may be NULL (stored as ""). Returns 0 or -ENOMEM. */
int check_list_add(
        CheckList *l,
        const char *id,
        CheckOutcome outcome,
        const char *expected,
        const char *actual,
        const char *summary_format,
        ...) _printf_(6, 7);
/* Adds the link check "link.<link>.<what>" about the logical link. */
int check_list_add_link(
        CheckList *l,
        const char *link,
        const char *what,
        CheckOutcome outcome,
        const char *expected,
        const char *actual,
        const char *summary_format,
        ...) _printf_(7, 8);
/* Adds the QoS check "qos.<link>.<what>" about the logical link. */
int check_list_add_qos(
        CheckList *l,
        const char *link,
        const char *what,
        CheckOutcome outcome,
        const char *expected,
        const char *actual,
        const char *summary_format,
        ...) _printf_(7, 8);
/* Adds a skipped check: the profile asks nothing of it, or what it compares is not there to read. The
 * reason is the summary; expected and actual are "". */
int check_list_skip(CheckList *l, const char *id, const char *reason_format, ...) _printf_(3, 4);
/* The same for "link.<link>.<what>" and "qos.<link>.<what>". */
int check_list_skip_link(CheckList *l, const char *link, const char *what, const char *reason_format, ...)
        _printf_(4, 5);
int check_list_skip_qos(CheckList *l, const char *link, const char *what, const char *reason_format, ...)
        _printf_(4, 5);
/* Says what a reboot would bring into force (Check.pending_reboot) on the check added last. Returns 0,
 * -ENOMEM, or -ENOENT when l is empty. */
int check_list_set_pending_reboot(CheckList *l, const char *format, ...) _printf_(2, 3);
/* Adds a copy of c. */
int check_list_add_copy(CheckList *l, const Check *c);
void check_list_done(CheckList *l);
/* Moves every check of src to the end of dst; src is left empty. */
int check_list_take(CheckList *dst, CheckList *src);
/* The same for the checks that only selects (see check_id_selected()); the others are freed. */
int check_list_take_selected(CheckList *dst, CheckList *src, const char *only);

const Check *check_list_find(const CheckList *l, const char *id);
/* The worst outcome by severity (fail > warn > skip > pass); CHECK_PASS for an empty list. */
CheckOutcome check_list_worst(const CheckList *l);
size_t check_list_count(const CheckList *l, CheckOutcome outcome);
/* True when id starts with one of the comma-separated prefixes in only (NULL matches all). An old id
 * of a renamed check ("kernel.gtt") selects the check under its new id ("gpu.gtt"). */
bool check_id_selected(const char *id, const char *only);
/* One selector of only, n bytes long, as it is meant: an old id becomes its new one (n updated). */
const char *check_selector_resolve(const char *selector, size_t *n);
