/* SPDX-License-Identifier: MIT */
/* The "profile" check: a valid profile is loaded and a node of it is this machine. */
#pragma once

#include "check/checks.h"

int check_profile(const NodeContext *c, CheckList *out);
