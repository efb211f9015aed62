/* SPDX-License-Identifier: MIT */
/* node.memory: MemTotal is at least the profile's memory-min, so that no node holds less of the model
 * than the others (the guide's "two of nothing": a 64 GB board in a 128 GB cluster). */
#include <inttypes.h>
#include <stdio.h>

#include "check/check-node.h"
#include "check/check-ports.h"

#define MEMINFO "/proc/meminfo"

int meminfo_total(const char *text, uint64_t *ret) {
        for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                unsigned long long kib;
                const char *p;
                char *end;

                p = startswith(line, "MemTotal:");
                if (!p)
                        continue;
                p += strspn(p, " \t");
                if (*p < '0' || *p > '9')
                        return -EBADMSG;
                errno = 0;
                kib = strtoull(p, &end, 10);
                if (errno > 0 || kib > UINT64_MAX / 1024 || !startswith(end, " kB"))
                        return -EBADMSG;
                end += strlen(" kB");
                if (*end && *end != '\n')
                        return -EBADMSG;
                *ret = (uint64_t) kib * 1024;
                return 0;
        }
        return -ENOENT;
}

static double gib(uint64_t bytes) {
        return (double) bytes / (1024.0 * 1024.0 * 1024.0);
}

int check_node_memory(const NodeContext *c, CheckList *out) {
        _cleanup_(freep) char *text = NULL, *expected = NULL, *actual = NULL;
        uint64_t min = c->profile ? c->profile->memory_min : 0, total;
        char min_text[BYTES_STRING_MAX];
        int r;

        if (min == 0)
                return check_list_add(
                        out, "node.memory", CHECK_SKIP, NULL, NULL, "the profile sets no memory-min");
        if (asprintf(&expected, "%" PRIu64, min) < 0)
                return -ENOMEM;
        format_bytes(min, min_text);

        r = host_read_file(c->host, MEMINFO, HOST_FILE_MAX, &text, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return check_list_add(
                        out,
                        "node.memory",
                        CHECK_SKIP,
                        expected,
                        NULL,
                        "could not look at " MEMINFO ": %s",
                        strerror(-r));
        r = meminfo_total(text, &total);
        if (r < 0)
                return check_list_add(
                        out,
                        "node.memory",
                        CHECK_SKIP,
                        expected,
                        NULL,
                        "could not look: " MEMINFO " has %s",
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
                        "MemTotal is %.1f GiB (" MEMINFO "), at least memory-min %s",
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
                "MemTotal is %.1f GiB (" MEMINFO
                "), below memory-min %s: this node cannot hold its share "
                "of a model sized for the others (a board with less memory than the rest of the cluster?), "
                "or the iGPU's carve-out took it (see gpu.vram)",
                gib(total),
                min_text);
}

int check_node(const NodeContext *c, CheckList *out) {
        return check_node_memory(c, out);
}
