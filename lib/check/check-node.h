/* SPDX-License-Identifier: MIT */
/* The node. checks: node.memory, the node's memory against the profile's memory-min; node.hostname,
 * its own name resolving to no loopback address. */
#pragma once

#include <stdint.h>

#include "check/checks.h"

/* The group (s: NULL for its own snapshot). */
int check_node(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);
int check_node_memory(const NodeContext *c, const Snapshot *s, CheckList *out);
int check_node_hostname(const NodeContext *c, const Snapshot *s, CheckList *out);
