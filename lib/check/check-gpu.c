/* SPDX-License-Identifier: MIT */
/* The gpu. group, and gpu.vram: the iGPU's carve-out is at most gpu.vram-max. */
#include <inttypes.h>
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-gpu.h"
#include "check/check-ports.h"

/* Where the firmware setup hides the carve-out: AMD's reference BIOS and most boards call it "UMA
 * Frame Buffer Size" (AMD CBS → NBIO → GFX Configuration), some boards "iGPU Memory". */
#define BIOS_SETTING "\"UMA Frame Buffer Size\" (or \"iGPU Memory\")"

static double gib(uint64_t bytes) {
        return (double) bytes / (1024.0 * 1024.0 * 1024.0);
}

static const char *format_gib(uint64_t bytes, char buf[static BYTES_STRING_MAX]) {
        (void) snprintf(buf, BYTES_STRING_MAX, "%.1f GiB", gib(bytes));
        return buf;
}

int check_gpu_vram(const NodeContext *c, CheckList *out) {
        _cleanup_(strv_freep) char **cards = NULL, **over = NULL, **within = NULL, **actual = NULL;
        _cleanup_(freep) char *expected = NULL, *list = NULL, *actual_joined = NULL;
        uint64_t max = c->profile ? c->profile->gpu.vram_max : 0, worst = 0;
        char max_text[BYTES_STRING_MAX], have_text[BYTES_STRING_MAX];
        int r;

        if (!c->profile || !c->profile->gpu.present)
                return check_list_add(
                        out, "gpu.vram", CHECK_SKIP, NULL, NULL, "the profile has no gpu: section");
        if (max == 0)
                return check_list_add(
                        out, "gpu.vram", CHECK_SKIP, NULL, NULL, "the profile sets no gpu.vram-max");
        if (asprintf(&expected, "%" PRIu64, max) < 0)
                return -ENOMEM;
        format_bytes(max, max_text);

        r = amdgpu_cards_find(c->host, &cards);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return check_list_add(
                        out,
                        "gpu.vram",
                        CHECK_SKIP,
                        expected,
                        NULL,
                        "could not look at " DRM_CLASS_DIR ": %s",
                        strerror(-r));
        if (!cards)
                return check_list_add(
                        out,
                        "gpu.vram",
                        CHECK_SKIP,
                        expected,
                        NULL,
                        "no GPU driven by amdgpu in " DRM_CLASS_DIR ": the carve-out cannot be checked");

        STRV_FOREACH(card, cards) {
                _cleanup_(freep) char *path = NULL, *text = NULL;
                uint64_t have;

                r = amdgpu_card_read_bytes(c->host, *card, "mem_info_vram_total", &path, &text, &have);
                if (r == -ENOMEM)
                        return r;
                if (r < 0 && r != -EBADMSG)
                        return check_list_add(
                                out,
                                "gpu.vram",
                                CHECK_SKIP,
                                expected,
                                NULL,
                                "could not look at %s: %s",
                                path,
                                strerror(-r));
                if (r < 0)
                        return check_list_add(
                                out,
                                "gpu.vram",
                                CHECK_SKIP,
                                expected,
                                text,
                                "could not look: %s holds \"%s\", not a byte count",
                                path,
                                text);
                if (have > max && have - max > worst)
                        worst = have - max;
                r = strv_extendf(
                        have > max ? &over : &within,
                        "%s on %s (%s)",
                        have % (1024 * 1024) == 0 ? format_bytes(have, have_text)
                                                  : format_gib(have, have_text),
                        *card,
                        path);
                if (r < 0)
                        return r;
                r = strv_extendf(&actual, "%s=%" PRIu64, *card, have);
                if (r < 0)
                        return r;
        }

        list = strv_join(over ?: within, ", ");
        actual_joined = strv_join(actual, " ");
        if (!list || !actual_joined)
                return -ENOMEM;
        if (over)
                /* The carve-out is taken from system RAM before the kernel starts: MemTotal, and so the
                 * GTT that holds the model, lose all of it. */
                return check_list_add(
                        out,
                        "gpu.vram",
                        CHECK_FAIL,
                        expected,
                        actual_joined,
                        "the iGPU's VRAM carve-out is %s, above gpu.vram-max %s: set " BIOS_SETTING
                        " in the BIOS to %s; the %.1f GiB above it are memory that the GTT (and the model "
                        "in it) cannot use",
                        list,
                        max_text,
                        max_text,
                        gib(worst));
        return check_list_add(
                out,
                "gpu.vram",
                CHECK_PASS,
                expected,
                actual_joined,
                "the iGPU's VRAM carve-out is %s, within gpu.vram-max %s",
                list,
                max_text);
}

int check_gpu(const NodeContext *c, CheckList *out) {
        int r;

        r = check_gpu_vram(c, out);
        if (r < 0)
                return r;
        r = check_gpu_gtt(c, out);
        if (r < 0)
                return r;
        return check_gpu_devices(c, out);
}
