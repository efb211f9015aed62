/* SPDX-License-Identifier: MIT */
/* gpu.gtt (called kernel.gtt before 0.2): amdgpu.gttsize and ttm.pages_limit agree, and amdgpu's
 * effective GTT size matches them. */
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

static double gib(uint64_t bytes) {
        return (double) bytes / (1024.0 * 1024.0 * 1024.0);
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
        uint64_t fit_gib = (uint64_t) gib(total), fit_mib;

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
                gib(gtt),
                card,
                gib(total),
                fit_gib,
                fit_mib,
                fit_mib * TTM_PAGES_PER_MIB);
}

int check_gpu_gtt(const NodeContext *c, Snapshot *s, CheckList *out) {
        _cleanup_(strv_freep) char **wrong = NULL, **right = NULL, **actual = NULL;
        _cleanup_(freep) char *expected = NULL, *want = NULL, *list = NULL;
        const KernelCmdline *running;
        GttSetting profile = {}, now = {};
        const char *raw;
        uint64_t bytes, total, largest = 0;
        const char *largest_card = NULL;
        int r;

        STRV_FOREACH(req, c->profile ? c->profile->kernel_cmdline : NULL) {
                _cleanup_(freep) char *name = NULL, *value = NULL;

                if (kernel_param_parse_one(*req, &name, &value) < 0)
                        continue;
                gtt_setting_add(&profile, name, value);
                if (profile.bad_name)
                        return check_list_add(
                                out,
                                "gpu.gtt",
                                CHECK_FAIL,
                                NULL,
                                *req,
                                "the profile's %s is not a size: fix kernel.cmdline in the profile",
                                *req);
        }
        if (!profile.has_mib && !profile.has_pages)
                return check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "the profile sets neither " GTT_PARAM " nor " PAGES_PARAM);
        if (!gtt_setting_consistent(&profile))
                return check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_FAIL,
                        NULL,
                        NULL,
                        "the profile disagrees with itself: " PAGES_PARAM "=%" PRIu64 " but " GTT_PARAM
                        "=%" PRIu64 " MiB is %" PRIu64 " pages (MiB × 256): fix one of them",
                        profile.pages,
                        profile.mib,
                        profile.mib * TTM_PAGES_PER_MIB);

        bytes = gtt_setting_bytes(&profile);
        if (asprintf(&expected, "%" PRIu64, bytes) < 0)
                return -ENOMEM;
        r = describe_setting(&profile, &want);
        if (r < 0)
                return r;

        /* Whether the running kernel got the profile's values is kernel.cmdline's question; here:
         * do the two it got agree with each other. */
        r = snapshot_read(s, SNAPSHOT_CMDLINE | SNAPSHOT_GPUS | SNAPSHOT_MEMINFO);
        if (r < 0)
                return r;
        running = s->host.cmdline_parsed;
        raw = s->host.cmdline;
        if (running) {
                const KernelParam *p;

                p = kernel_cmdline_find(running, GTT_PARAM);
                if (p)
                        gtt_setting_add(&now, p->name, p->value);
                p = kernel_cmdline_find(running, PAGES_PARAM);
                if (p)
                        gtt_setting_add(&now, p->name, p->value);
                if (now.bad_name)
                        return check_list_add(
                                out,
                                "gpu.gtt",
                                CHECK_FAIL,
                                expected,
                                raw,
                                "the running kernel's %s=%s is not a size: fix the boot configuration",
                                now.bad_name,
                                now.bad_value);
                if (!gtt_setting_consistent(&now))
                        return check_list_add(
                                out,
                                "gpu.gtt",
                                CHECK_FAIL,
                                expected,
                                raw,
                                "the running kernel disagrees with itself: " PAGES_PARAM "=%" PRIu64
                                " but " GTT_PARAM "=%" PRIu64 " MiB is %" PRIu64 " pages (MiB × 256)",
                                now.pages,
                                now.mib,
                                now.mib * TTM_PAGES_PER_MIB);
        }

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
                        ": the effective GTT size (%s) cannot be "
                        "checked",
                        want);

        for (size_t i = 0; i < s->host.n_gpus; i++) {
                const char *card = s->host.gpus[i].card, *path = s->host.gpus[i].gtt.path,
                           *text = s->host.gpus[i].gtt.text;
                uint64_t have = s->host.gpus[i].gtt.bytes;

                r = s->host.gpus[i].gtt.error;
                if (r < 0 && r != -EBADMSG)
                        return check_list_add(
                                out,
                                "gpu.gtt",
                                CHECK_FAIL,
                                expected,
                                NULL,
                                "cannot read %s: %s",
                                path,
                                strerror(-r));
                if (r < 0)
                        return check_list_add(
                                out,
                                "gpu.gtt",
                                CHECK_FAIL,
                                expected,
                                text,
                                "%s holds \"%s\", not a byte count",
                                path,
                                text);

                r = strv_extendf(
                        have == bytes ? &right : &wrong,
                        "%.1f GiB on %s (%" PRIu64 " bytes)",
                        gib(have),
                        card,
                        have);
                if (r < 0)
                        return r;
                r = strv_extendf(&actual, "%s=%" PRIu64, card, have);
                if (r < 0)
                        return r;
                if (have > largest) {
                        largest = have;
                        largest_card = card;
                }
        }

        _cleanup_(freep) char *actual_joined = strv_join(actual, " ");
        list = strv_join(wrong ?: right, ", ");
        if (!list || !actual_joined)
                return -ENOMEM;
        /* MemTotal that cannot be read leaves the comparison out. */
        total = s->host.meminfo_error >= 0 && s->host.mem_total_error >= 0 ? s->host.mem_total : 0;
        if (total > 0 && largest > total)
                return check_gpu_gtt_fits(out, expected, actual_joined, largest_card, largest, total);
        if (wrong)
                return check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_FAIL,
                        expected,
                        actual_joined,
                        "amdgpu GTT is %s, the profile asks %.1f GiB (%" PRIu64
                        " bytes, %s): boot with the profile's parameters (see kernel.cmdline)",
                        list,
                        gib(bytes),
                        bytes,
                        want);
        return check_list_add(
                out, "gpu.gtt", CHECK_PASS, expected, actual_joined, "amdgpu GTT is %s, matching %s", list, want);
}
