/* SPDX-License-Identifier: MIT */
/* The node. checks: node.memory, the node's memory against the profile's memory-min. */
#pragma once

#include <stdint.h>

#include "check/checks.h"

int check_node(const NodeContext *c, CheckList *out);
int check_node_memory(const NodeContext *c, CheckList *out);

/* MemTotal of a /proc/meminfo text, in bytes: -ENOENT when it has no MemTotal line, -EBADMSG when
 * that line is not "MemTotal: <number> kB". */
int meminfo_total(const char *text, uint64_t *ret);
