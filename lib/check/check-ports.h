/* SPDX-License-Identifier: MIT */
/* One check id over several fabric ports: each port's result, merged into one stable check. */
#pragma once

#include <stdint.h>

#include "basic/format-bytes.h"
#include "check/check.h"
#include "snapshot/fabric.h"

typedef struct PortCheck {
        CheckOutcome outcome;
        char *summary;
        char *expected;
        char *actual;
        char *pending_reboot; /* what a reboot would bring into force on this port (Check.pending_reboot) */
} PortCheck;

/* Sets a result; expected/actual may be NULL. Returns 0 or -ENOMEM. */
int port_check_set(
        PortCheck *p,
        CheckOutcome outcome,
        const char *expected,
        const char *actual,
        const char *summary_format,
        ...) _printf_(5, 6);
/* Says what a reboot would bring into force on this port; after port_check_set(), which clears it.
 * Returns 0 or -ENOMEM. */
int port_check_set_pending_reboot(PortCheck *p, const char *format, ...) _printf_(2, 3);
void port_check_done(PortCheck *p);
void port_checks_free(PortCheck *p, size_t n);

/* Adds id with the worst outcome. With one port the result is taken as it is; with several each
 * summary is prefixed by its link ("rdma0: ...; rdma1: ...") and expected/actual are joined, and so
 * is what a reboot would bring into force on each port that says so. */
int check_list_add_ports(
        CheckList *l, const char *id, const FabricPort *ports, const PortCheck *results, size_t n);

/* Turns fail into warn: for checks of optional features (rdma.required: false). */
CheckOutcome check_outcome_soften(CheckOutcome o, bool required) _pure_;
