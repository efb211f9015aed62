/* SPDX-License-Identifier: MIT */
/* node.memory: MemTotal is at least the profile's memory-min, so that no node holds less of the model
 * than the others (the guide's "two of nothing": a 64 GB board in a 128 GB cluster). */
#include <inttypes.h>
#include <stdio.h>

#include "check/check-node.h"
#include "check/check-ports.h"

static double gib(uint64_t bytes) {
        return (double) bytes / (1024.0 * 1024.0 * 1024.0);
}

int check_node_memory(const NodeContext *c, const Snapshot *s, CheckList *out) {
        _cleanup_(freep) char *expected = NULL, *actual = NULL;
        uint64_t min = c->profile ? c->profile->memory_min : 0, total;
        char min_text[BYTES_STRING_MAX];
        int r;

        if (min == 0)
                return check_list_skip(out, "node.memory", "the profile sets no memory-min");
        if (asprintf(&expected, "%" PRIu64, min) < 0)
                return -ENOMEM;
        format_bytes(min, min_text);

        if (!snapshot_has(s, SNAPSHOT_MEMINFO))
                return 0; /* not selected: its caller did not read it */
        if (s->host.meminfo_error < 0)
                return check_list_add(
                        out,
                        "node.memory",
                        CHECK_SKIP,
                        expected,
                        NULL,
                        "could not look at " PROC_MEMINFO ": %s",
                        strerror(-s->host.meminfo_error));
        r = s->host.mem_total_error;
        total = s->host.mem_total;
        if (r < 0)
                return check_list_add(
                        out,
                        "node.memory",
                        CHECK_SKIP,
                        expected,
                        NULL,
                        "could not look: " PROC_MEMINFO " has %s",
                        r == -ENOENT ? "no MemTotal line" : "a MemTotal line that is not \"<number> kB\"");
        if (asprintf(&actual, "%" PRIu64, total) < 0)
                return -ENOMEM;

        if (total >= min)
                return check_list_add(
                        out,
                        "node.memory",
                        CHECK_PASS,
                        expected,
                        actual,
                        "MemTotal is %.1f GiB (" PROC_MEMINFO "), at least memory-min %s",
                        gib(total),
                        min_text);
        /* MemTotal is what the kernel got: below the installed size by the firmware's share and the
         * iGPU's carve-out. A shortfall of more than that is a smaller board. */
        return check_list_add(
                out,
                "node.memory",
                CHECK_FAIL,
                expected,
                actual,
                "MemTotal is %.1f GiB (" PROC_MEMINFO
                "), below memory-min %s: this node cannot hold its share "
                "of a model sized for the others (a board with less memory than the rest of the cluster?), "
                "or the iGPU's carve-out took it (see gpu.vram)",
                gib(total),
                min_text);
}

int check_node(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out) {
        int r;

        r = check_node_memory(c, s, out);
        if (r < 0)
                return r;
        return check_node_hostname(c, s, out);
}
