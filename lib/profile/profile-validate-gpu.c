/* SPDX-License-Identifier: MIT */
/* The YAML tree → Profile for the node's memory: the gpu: section (how much the firmware may carve
 * out for the iGPU) and memory-min: (how much every node must have). */
#include "profile/profile-internal.h"

#define SIZE_EXPECTED "a number of bytes above 0 with an optional K, M, G or T suffix"

/* A size above 0, with rdma.memlock's syntax (parse_size_bytes()); example completes the message. */
static bool get_size(ProfileErrors *e, const YNode *v, const char *key_path, const char *example, uint64_t *ret) {
        char buf[MESSAGE_TEXT_BUF], expected[128];
        const char *s;
        uint64_t u;

        (void) snprintf(expected, sizeof(expected), SIZE_EXPECTED ", like %s", example);
        if (!ynode_get_string(e, v, key_path, expected, &s))
                return false;
        if (parse_size_bytes(s, &u) < 0 || u == 0) {
                profile_error_at(
                        e, v, key_path, "'%s' is not a size (expected %s)", text_for_message(s, buf), expected);
                return false;
        }
        *ret = u;
        return true;
}

void profile_build_gpu(ProfileErrors *e, const YNode *n, ProfileGpu *gpu) {
        static const char *const keys[] = { "vram-max", NULL };
        const YNode *v;

        /* Like every optional section, gpu: with no value is no section; gpu: {} says "this node has
         * a GPU" (gpu.devices looks) without a limit. */
        if (ynode_is_null(n))
                return;
        if (!ynode_require_mapping(e, n, "gpu", "a mapping with vram-max:, like { vram-max: 512M }"))
                return;
        ynode_check_keys(e, n, "gpu", keys);
        gpu->present = true;

        v = ynode_map_get(n, "vram-max");
        if (v)
                (void) get_size(e, v, "gpu.vram-max", "512M", &gpu->vram_max);
}

void profile_build_memory_min(ProfileErrors *e, const YNode *n, Profile *p) {
        (void) get_size(e, n, "memory-min", "120G", &p->memory_min);
}
