/* SPDX-License-Identifier: MIT */
/* The journal's account of a verify (manager-journal.c). */
#pragma once

#include <stdbool.h>

#include "check/check.h"

typedef struct Manager Manager;

/* Logs what changed for check c since the verify before (old: the check then, NULL when it is new),
 * once per transition: check failed / check recovered. */
void manager_journal_transition(Manager *m, const Check *c, const Check *old, bool drift);
