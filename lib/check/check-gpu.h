/* SPDX-License-Identifier: MIT */
/* The gpu. checks: gpu.vram, gpu.gtt, gpu.devices; and the amdgpu cards they look at. */
#pragma once

#include "basic/gtt-size.h" /* TTM_PAGES_PER_MIB, TTM_PAGE_SIZE: the rule the profile shares */
#include "check/checks.h"
#include "snapshot/amdgpu.h"

/* A byte count in GiB, for the words. */
static inline double bytes_gib(uint64_t bytes) {
        return (double) bytes / (1024.0 * 1024.0 * 1024.0);
}

/* The group (s: NULL for its own snapshot). */
int check_gpu(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);

/* The parts, for tests. */
int check_gpu_vram(const NodeContext *c, const Snapshot *s, CheckList *out);
int check_gpu_gtt(const NodeContext *c, const Snapshot *s, CheckList *out);
int check_gpu_devices(const NodeContext *c, const Snapshot *s, CheckList *out);

/* gpu.gtt's view of TTM's page limit (check-gpu-gtt-ttm.c): the limit in bytes; a failure when it could
 * not be read (1, or 0 when it was); the failure when it caps the GTT below the profile's bytes, and
 * the pass; cards: amdgpu's GTT of each card, "124.0 GiB on card1 (133143986176 bytes)". */
uint64_t gtt_ttm_bytes(const SnapshotHost *h) _pure_;
int check_gpu_gtt_ttm_unread(const SnapshotHost *h, const char *expected, CheckList *out);
int check_gpu_gtt_capped(
        const SnapshotHost *h,
        const char *expected,
        const char *actual,
        uint64_t bytes,
        const char *cards,
        CheckList *out);
int check_gpu_gtt_pass(
        const SnapshotHost *h, const char *expected, const char *actual, const char *cards, CheckList *out);
