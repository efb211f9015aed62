/* SPDX-License-Identifier: MIT */
/* The gpu. checks: gpu.vram, gpu.gtt, gpu.devices; the amdgpu cards they look at are amdgpu-cards.h. */
#pragma once

#include "basic/gtt-size.h" /* TTM_PAGES_PER_MIB, TTM_PAGE_SIZE: the rule the profile shares */
#include "check/amdgpu-cards.h"
#include "check/checks.h"

int check_gpu(const NodeContext *c, CheckList *out);

/* The parts, for tests. */
int check_gpu_vram(const NodeContext *c, CheckList *out);
int check_gpu_gtt(const NodeContext *c, CheckList *out);
int check_gpu_devices(const NodeContext *c, CheckList *out);
