/* SPDX-License-Identifier: MIT */
/* The "profile" check: a valid profile is loaded and a node of it is this machine. */
#pragma once

#include "check/checks.h"

/* Judges the context alone: s is not read (a group of the table like the others). */
int check_profile(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);
