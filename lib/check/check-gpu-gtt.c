/* SPDX-License-Identifier: MIT */
/* gpu.gtt (called kernel.gtt before 0.2): the GTT that ROCm really gets, the smaller of amdgpu's GTT
 * (mem_info_gtt_total) and TTM's page limit (/sys/module/ttm/parameters/pages_limit), which KFD takes
 * as the most ROCm may allocate (amdgpu_amdkfd_gpuvm.c), matches the profile's amdgpu.gttsize and
 * ttm.pages_limit. */
#include <inttypes.h>
#include <stdio.h>

#include "basic/strv.h"
#include "boot/cmdline.h"
#include "check/check-gpu.h"

typedef struct GttSetting {
        bool has_mib, has_pages;
        uint64_t mib;                     /* amdgpu.gttsize */
        uint64_t pages;                   /* ttm.pages_limit */
        const char *bad_name, *bad_value; /* a parameter whose value is not a size, if any */
} GttSetting;

/* Reads one of the two parameters into s; a bare parameter gives no size and is ignored. */
static void gtt_setting_add(GttSetting *s, const char *name, const char *value) {
        bool is_mib = kernel_param_name_equal(name, GTT_PARAM);

        if (!value || (!is_mib && !kernel_param_name_equal(name, PAGES_PARAM)))
                return;
        /* Sizes beyond these overflow a byte count. */
        if (is_mib) {
                s->has_mib = gtt_size_parse(value, UINT64_MAX >> 20, &s->mib) >= 0;
                if (!s->has_mib)
                        s->bad_name = name, s->bad_value = value;
        } else {
                s->has_pages = gtt_size_parse(value, UINT64_MAX / TTM_PAGE_SIZE, &s->pages) >= 0;
                if (!s->has_pages)
                        s->bad_name = name, s->bad_value = value;
        }
}

static uint64_t gtt_setting_bytes(const GttSetting *s) {
        return s->has_mib ? s->mib << 20 : s->pages * TTM_PAGE_SIZE;
}

static bool gtt_setting_consistent(const GttSetting *s) {
        return !s->has_mib || !s->has_pages || gtt_pages_agree(s->mib, s->pages);
}

static int describe_setting(const GttSetting *s, char **ret) {
        int r;

        if (s->has_mib && s->has_pages)
                r = asprintf(
                        ret,
                        GTT_PARAM "=%" PRIu64 " MiB and " PAGES_PARAM "=%" PRIu64 " pages",
                        s->mib,
                        s->pages);
        else if (s->has_mib)
                r = asprintf(ret, GTT_PARAM "=%" PRIu64 " MiB", s->mib);
        else
                r = asprintf(ret, PAGES_PARAM "=%" PRIu64 " pages", s->pages);
        return r < 0 ? -ENOMEM : 0;
}

/* amdgpu takes amdgpu.gttsize (or ttm.pages_limit) as given, never capped by the memory there is:
 * a GTT larger than MemTotal promises the GPU memory the node does not have. What fits is the
 * whole GiB below MemTotal, less one for the system (the guide's 124 GiB on a board with 125.3). */
static int check_gpu_gtt_fits(
        CheckList *out, const char *expected, const char *actual, const char *card, uint64_t gtt, uint64_t total) {
        uint64_t fit_gib = (uint64_t) bytes_gib(total), fit_mib;

        fit_gib = fit_gib > 1 ? fit_gib - 1 : 0;
        fit_mib = fit_gib * 1024;
        return check_list_add(
                out,
                "gpu.gtt",
                CHECK_FAIL,
                expected,
                actual,
                "amdgpu GTT is %.1f GiB on %s, more than the node has: MemTotal is %.1f GiB (/proc/meminfo), "
                "so the GPU can map at most ~%" PRIu64
                " GiB here (a smaller board than the others, or the iGPU's carve-out: see gpu.vram and "
                "node.memory); past that a model fails to load or the node swaps. Size kernel.cmdline for "
                "the smallest node (" GTT_PARAM "=%" PRIu64 " " PAGES_PARAM "=%" PRIu64
                " fits this one), or swap the board",
                bytes_gib(gtt),
                card,
                bytes_gib(total),
                fit_gib,
                fit_mib,
                fit_mib * TTM_PAGES_PER_MIB);
}

/* The profile's setting into ret: 0, or 1 when the profile asks nothing of the GTT or contradicts
 * itself (and the check says so). */
static int gtt_profile(char **kernel_cmdline, GttSetting *ret, CheckList *out) {
        int r;

        STRV_FOREACH(req, kernel_cmdline) {
                _cleanup_(freep) char *name = NULL, *value = NULL;

                if (kernel_param_parse_one(*req, &name, &value) < 0)
                        continue;
                gtt_setting_add(ret, name, value);
                if (ret->bad_name) {
                        r = check_list_add(
                                out,
                                "gpu.gtt",
                                CHECK_FAIL,
                                NULL,
                                *req,
                                "the profile's %s is not a size: fix kernel.cmdline in the profile",
                                *req);
                        return r < 0 ? r : 1;
                }
        }
        if (!ret->has_mib && !ret->has_pages)
                r = check_list_skip(out, "gpu.gtt", "the profile sets neither " GTT_PARAM " nor " PAGES_PARAM);
        else if (!ret->has_pages)
                r = check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_FAIL,
                        NULL,
                        NULL,
                        "the profile sets " GTT_PARAM "=%" PRIu64 " but no " PAGES_PARAM
                        ": amdgpu's GTT would be %.1f GiB, but TTM keeps its page limit at half of RAM (ttm_device.c) and KFD caps "
                        "what ROCm may allocate there (amdgpu_amdkfd_gpuvm.c): add " PAGES_PARAM "=%" PRIu64
                        " to kernel.cmdline",
                        ret->mib,
                        bytes_gib(ret->mib << 20),
                        ret->mib * TTM_PAGES_PER_MIB);
        else if (!gtt_setting_consistent(ret))
                r = check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_FAIL,
                        NULL,
                        NULL,
                        "the profile disagrees with itself: " PAGES_PARAM "=%" PRIu64 " but " GTT_PARAM
                        "=%" PRIu64 " MiB is %" PRIu64 " pages (MiB × 256): fix one of them",
                        ret->pages,
                        ret->mib,
                        ret->mib * TTM_PAGES_PER_MIB);
        else
                return 0;
        return r < 0 ? r : 1;
}

/* Whether the running kernel got the profile's values is kernel.cmdline's question; here: do the two
 * it got agree with each other. 0, or 1 when they do not (and the check says so). */
static int gtt_running(const SnapshotHost *h, const char *expected, CheckList *out) {
        GttSetting now = {};
        const KernelParam *p;
        int r;

        if (!h->cmdline_parsed)
                return 0;
        p = kernel_cmdline_find(h->cmdline_parsed, GTT_PARAM);
        if (p)
                gtt_setting_add(&now, p->name, p->value);
        p = kernel_cmdline_find(h->cmdline_parsed, PAGES_PARAM);
        if (p)
                gtt_setting_add(&now, p->name, p->value);
        if (now.bad_name)
                r = check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_FAIL,
                        expected,
                        h->cmdline,
                        "the running kernel's %s=%s is not a size: fix the boot configuration",
                        now.bad_name,
                        now.bad_value);
        else if (!gtt_setting_consistent(&now))
                r = check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_FAIL,
                        expected,
                        h->cmdline,
                        "the running kernel disagrees with itself: " PAGES_PARAM "=%" PRIu64
                        " but " GTT_PARAM "=%" PRIu64 " MiB is %" PRIu64 " pages (MiB × 256)",
                        now.pages,
                        now.mib,
                        now.mib * TTM_PAGES_PER_MIB);
        else
                return 0;
        return r < 0 ? r : 1;
}

/* What amdgpu shows of the cards, against bytes: the cards that match (right) and those that do not
 * (wrong), what ROCm gets of each, "card1=133143986176" (actual), and the largest. 0, or 1 when a card's
 * size cannot be read (and the check says so). */
typedef struct GttCards {
        char **right, **wrong, **actual;
        uint64_t largest;
        const char *largest_card;
} GttCards;

static void gtt_cards_done(GttCards *g) {
        strv_free(g->right);
        strv_free(g->wrong);
        strv_free(g->actual);
}

static int gtt_cards(const SnapshotHost *h, uint64_t bytes, const char *expected, GttCards *g, CheckList *out) {
        int r;

        for (size_t i = 0; i < h->n_gpus; i++) {
                const SnapshotGpu *gpu = &h->gpus[i];
                uint64_t have = gpu->gtt.bytes, gets = have < gtt_ttm_bytes(h) ? have : gtt_ttm_bytes(h);

                if (gpu->gtt.error < 0) {
                        r = gpu->gtt.error != -EBADMSG ? check_list_add(
                                                                 out,
                                                                 "gpu.gtt",
                                                                 CHECK_FAIL,
                                                                 expected,
                                                                 NULL,
                                                                 "cannot read %s: %s",
                                                                 gpu->gtt.path,
                                                                 strerror(-gpu->gtt.error))
                                                       : check_list_add(
                                                                 out,
                                                                 "gpu.gtt",
                                                                 CHECK_FAIL,
                                                                 expected,
                                                                 gpu->gtt.text,
                                                                 "%s holds \"%s\", not a byte count",
                                                                 gpu->gtt.path,
                                                                 gpu->gtt.text);
                        return r < 0 ? r : 1;
                }
                r = strv_extendf(
                        have == bytes ? &g->right : &g->wrong,
                        "%.1f GiB on %s (%" PRIu64 " bytes)",
                        bytes_gib(have),
                        gpu->card,
                        have);
                /* What ROCm gets: KFD refuses allocations past TTM's page limit. */
                if (r >= 0)
                        r = strv_extendf(&g->actual, "%s=%" PRIu64, gpu->card, gets);
                if (r < 0)
                        return r;
                if (have > g->largest) {
                        g->largest = have;
                        g->largest_card = gpu->card;
                }
        }
        return 0;
}

int check_gpu_gtt(const NodeContext *c, const Snapshot *s, CheckList *out) {
        _cleanup_(gtt_cards_done) GttCards g = {};
        _cleanup_(freep) char *expected = NULL, *want = NULL, *list = NULL, *actual = NULL;
        GttSetting profile = {};
        uint64_t bytes, total;
        int r;

        r = gtt_profile(c->profile ? c->profile->kernel_cmdline : NULL, &profile, out);
        if (r != 0)
                return r < 0 ? r : 0;
        bytes = gtt_setting_bytes(&profile);
        if (asprintf(&expected, "%" PRIu64, bytes) < 0)
                return -ENOMEM;
        r = describe_setting(&profile, &want);
        if (r < 0)
                return r;

        if (!snapshot_has(s, SNAPSHOT_CMDLINE | SNAPSHOT_GPUS | SNAPSHOT_MEMINFO))
                return 0; /* not selected: its caller did not read it */
        r = gtt_running(&s->host, expected, out);
        if (r != 0)
                return r < 0 ? r : 0;
        if (s->host.gpus_error < 0)
                return check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_FAIL,
                        expected,
                        NULL,
                        "cannot list " DRM_CLASS_DIR ": %s",
                        strerror(-s->host.gpus_error));
        if (s->host.n_gpus == 0)
                return check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_SKIP,
                        expected,
                        NULL,
                        "no GPU driven by amdgpu in " DRM_CLASS_DIR
                        ": the effective GTT size (%s) cannot be checked",
                        want);
        r = gtt_cards(&s->host, bytes, expected, &g, out);
        if (r == 0)
                r = check_gpu_gtt_ttm_unread(&s->host, expected, out);
        if (r != 0)
                return r < 0 ? r : 0;

        actual = strv_join(g.actual, " ");
        list = strv_join(g.wrong ?: g.right, ", ");
        if (!list || !actual)
                return -ENOMEM;
        /* MemTotal that cannot be read leaves the comparison out. */
        total = s->host.meminfo_error >= 0 && s->host.mem_total_error >= 0 ? s->host.mem_total : 0;
        if (total > 0 && g.largest > total)
                return check_gpu_gtt_fits(out, expected, actual, g.largest_card, g.largest, total);
        if (g.wrong)
                return check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_FAIL,
                        expected,
                        actual,
                        "amdgpu GTT is %s, the profile asks %.1f GiB (%" PRIu64
                        " bytes, %s): boot with the profile's parameters (see kernel.cmdline)",
                        list,
                        bytes_gib(bytes),
                        bytes,
                        want);
        if (gtt_ttm_bytes(&s->host) < bytes)
                return check_gpu_gtt_capped(&s->host, expected, actual, bytes, list, out);
        return check_gpu_gtt_pass(&s->host, expected, actual, list, out);
}
