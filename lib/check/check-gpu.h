/* SPDX-License-Identifier: MIT */
/* The gpu. checks: gpu.vram, gpu.gtt, gpu.devices; and the amdgpu cards they look at. */
#pragma once

#include "basic/gtt-size.h" /* TTM_PAGES_PER_MIB, TTM_PAGE_SIZE: the rule the profile shares */
#include "check/checks.h"
#include "snapshot/amdgpu.h"

/* The group (s: NULL for its own snapshot). */
int check_gpu(const NodeContext *c, Snapshot *s, CheckList *out);

/* The parts, for tests. */
int check_gpu_vram(const NodeContext *c, Snapshot *s, CheckList *out);
int check_gpu_gtt(const NodeContext *c, Snapshot *s, CheckList *out);
int check_gpu_devices(const NodeContext *c, Snapshot *s, CheckList *out);
