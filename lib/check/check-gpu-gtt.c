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

/* The kernel reads both with kstrto*(..., 0, ...): decimal, 0x hex or 0 octal. */
static int parse_size(const char *s, uint64_t limit, uint64_t *ret) {
        return gtt_size_parse(s, limit, ret);
}

/* Reads one of the two parameters into s; a bare parameter gives no size and is ignored. */
static void gtt_setting_add(GttSetting *s, const char *name, const char *value) {
        bool is_mib = kernel_param_name_equal(name, GTT_PARAM);

        if (!value || (!is_mib && !kernel_param_name_equal(name, PAGES_PARAM)))
                return;
        /* Sizes beyond these overflow a byte count. */
        if (is_mib) {
                s->has_mib = parse_size(value, UINT64_MAX >> 20, &s->mib) >= 0;
                if (!s->has_mib)
                        s->bad_name = name, s->bad_value = value;
        } else {
                s->has_pages = parse_size(value, UINT64_MAX / TTM_PAGE_SIZE, &s->pages) >= 0;
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

int check_gpu_gtt(const NodeContext *c, CheckList *out) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *running = NULL;
        _cleanup_(strv_freep) char **cards = NULL, **wrong = NULL, **right = NULL, **actual = NULL;
        _cleanup_(freep) char *raw = NULL, *expected = NULL, *want = NULL, *list = NULL;
        GttSetting profile = {}, now = {};
        uint64_t bytes;
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
        r = host_read_line(c->host, "/proc/cmdline", &raw);
        if (r == -ENOMEM)
                return r;
        if (r >= 0 && kernel_cmdline_parse(raw, &running) >= 0) {
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

        r = amdgpu_cards_find(c->host, &cards);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return check_list_add(
                        out,
                        "gpu.gtt",
                        CHECK_FAIL,
                        expected,
                        NULL,
                        "cannot list " DRM_CLASS_DIR ": %s",
                        strerror(-r));
        if (!cards)
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

        STRV_FOREACH(card, cards) {
                _cleanup_(freep) char *path = NULL, *text = NULL;
                uint64_t have;

                r = amdgpu_card_read_bytes(c->host, *card, "mem_info_gtt_total", &path, &text, &have);
                if (r == -ENOMEM)
                        return r;
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
                        *card,
                        have);
                if (r < 0)
                        return r;
                r = strv_extendf(&actual, "%s=%" PRIu64, *card, have);
                if (r < 0)
                        return r;
        }

        _cleanup_(freep) char *actual_joined = strv_join(actual, " ");
        list = strv_join(wrong ?: right, ", ");
        if (!list || !actual_joined)
                return -ENOMEM;
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
