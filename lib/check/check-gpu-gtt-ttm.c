/* SPDX-License-Identifier: MIT */
/* gpu.gtt's view of TTM: its page limit as the kernel holds it and where that came from (the kernel
 * command line, TTM's default of half of RAM, or modprobe.d), and the words when it caps what ROCm
 * gets. The rule is the kernel's: ttm_tt_mgr_init() (drivers/gpu/drm/ttm/ttm_tt.c) keeps a given
 * ttm.pages_limit, else the half of RAM that ttm_global_init() (ttm_device.c) passes it;
 * amdgpu_ttm_init() (amdgpu_ttm.c) sizes the GTT from amdgpu.gttsize when it is set, else from that
 * limit; KFD refuses what would take ROCm past the limit (amdgpu_amdkfd_gpuvm.c,
 * amdgpu_amdkfd_reserve_mem_limit(): max_ttm_mem_limit = ttm_tt_pages_limit() << PAGE_SHIFT). */
#include <inttypes.h>
#include <stdio.h>

#include "check/check-gpu.h"

#define ORIGIN_MAX 256U

uint64_t gtt_ttm_bytes(const SnapshotHost *h) {
        return h->ttm_pages_limit > UINT64_MAX / TTM_PAGE_SIZE ? UINT64_MAX
                                                               : h->ttm_pages_limit * TTM_PAGE_SIZE;
}

/* Where the limit in force came from, for the words. */
static const char *ttm_origin(const SnapshotHost *h, char buf[static ORIGIN_MAX]) {
        const KernelParam *p = h->cmdline_parsed ? kernel_cmdline_find(h->cmdline_parsed, PAGES_PARAM) : NULL;
        bool half = h->meminfo_error >= 0 && h->mem_total_error >= 0 && h->mem_total > 0 &&
                h->ttm_pages_limit == h->mem_total / TTM_PAGE_SIZE / 2;
        uint64_t v;

        if (p && p->value && gtt_size_parse(p->value, UINT64_MAX, &v) >= 0 && v == h->ttm_pages_limit)
                (void) snprintf(buf, ORIGIN_MAX, "from %s=%s on the kernel command line", p->name, p->value);
        else if (p && p->value)
                (void) snprintf(
                        buf,
                        ORIGIN_MAX,
                        "not the %s=%s of the kernel command line: written at run time or by modprobe.d",
                        p->name,
                        p->value);
        else if (half)
                (void) snprintf(
                        buf,
                        ORIGIN_MAX,
                        "TTM's default, half of MemTotal (ttm_device.c): nothing sets " PAGES_PARAM);
        else
                (void) snprintf(
                        buf,
                        ORIGIN_MAX,
                        "no " PAGES_PARAM
                        " on the kernel command line: modprobe.d's `options ttm pages_limit=`, "
                        "or written at run time");
        return buf;
}

int check_gpu_gtt_ttm_unread(const SnapshotHost *h, const char *expected, CheckList *out) {
        int r;

        if (h->ttm_error >= 0)
                return 0;
        if (h->ttm_error == -EBADMSG)
                r = check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_FAIL,
                        expected,
                        h->ttm_text,
                        "%s holds \"%s\", not a page count: TTM's page limit caps what ROCm may allocate, and it "
                        "cannot be judged",
                        h->ttm_path,
                        h->ttm_text);
        else
                r = check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_FAIL,
                        expected,
                        NULL,
                        "cannot read %s: %s: TTM's page limit caps what ROCm may allocate (KFD, "
                        "amdgpu_amdkfd_gpuvm.c), whatever amdgpu's GTT is, and it cannot be judged",
                        h->ttm_path,
                        strerror(-h->ttm_error));
        return r < 0 ? r : 1;
}

int check_gpu_gtt_capped(
        const SnapshotHost *h,
        const char *expected,
        const char *actual,
        uint64_t bytes,
        const char *cards,
        CheckList *out) {
        char origin[ORIGIN_MAX];

        return check_list_add(
                out,
                "gpu.gtt",
                CHECK_FAIL,
                expected,
                actual,
                "ROCm gets %.1f GiB, not the %s of amdgpu's GTT: TTM's page limit is %" PRIu64
                " pages (%s, %s), and KFD caps what ROCm may allocate at it (amdgpu_amdkfd_gpuvm.c); the "
                "profile asks %.1f GiB: boot with " PAGES_PARAM "=%" PRIu64 " (see kernel.cmdline)",
                bytes_gib(gtt_ttm_bytes(h)),
                cards,
                h->ttm_pages_limit,
                h->ttm_path,
                ttm_origin(h, origin),
                bytes_gib(bytes),
                bytes / TTM_PAGE_SIZE);
}

int check_gpu_gtt_pass(
        const SnapshotHost *h, const char *expected, const char *actual, const char *cards, CheckList *out) {
        char origin[ORIGIN_MAX];

        return check_list_add(
                out,
                "gpu.gtt",
                CHECK_PASS,
                expected,
                actual,
                "ROCm gets %s: amdgpu's GTT (mem_info_gtt_total), within TTM's page limit of %" PRIu64
                " pages (%.1f GiB, %s, %s)",
                cards,
                h->ttm_pages_limit,
                bytes_gib(gtt_ttm_bytes(h)),
                h->ttm_path,
                ttm_origin(h, origin));
}
