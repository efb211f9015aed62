/* SPDX-License-Identifier: MIT */
/* The gpu. group, the amdgpu cards it looks at, and gpu.vram: the iGPU's carve-out is at most
 * gpu.vram-max. */
#include <inttypes.h>
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-gpu.h"
#include "check/check-ports.h"

/* Where the firmware setup hides the carve-out: AMD's reference BIOS and most boards call it "UMA
 * Frame Buffer Size" (AMD CBS → NBIO → GFX Configuration), some boards "iGPU Memory". */
#define BIOS_SETTING "\"UMA Frame Buffer Size\" (or \"iGPU Memory\")"

static const char *format_gib(uint64_t bytes, char buf[static BYTES_STRING_MAX]) {
        (void) snprintf(buf, BYTES_STRING_MAX, "%.1f GiB", bytes_gib(bytes));
        return buf;
}

/* The carve-out of each card against max: those above it (over) and within it, "card1=536870912"
 * for each (actual), and how far the worst is above. 0, or 1 when a card's size cannot be read (and
 * the check says so). */
typedef struct VramCards {
        char **over, **within, **actual;
        uint64_t worst;
} VramCards;

static void vram_cards_done(VramCards *v) {
        strv_free(v->over);
        strv_free(v->within);
        strv_free(v->actual);
}

static int vram_cards(const SnapshotHost *h, uint64_t max, const char *expected, VramCards *v, CheckList *out) {
        char have_text[BYTES_STRING_MAX];
        int r;

        for (size_t i = 0; i < h->n_gpus; i++) {
                const SnapshotBytes *b = &h->gpus[i].vram;
                uint64_t have = b->bytes;

                if (b->error < 0) {
                        r = b->error != -EBADMSG
                                ? check_list_add(
                                          out,
                                          "gpu.vram",
                                          CHECK_SKIP,
                                          expected,
                                          NULL,
                                          "could not look at %s: %s",
                                          b->path,
                                          strerror(-b->error))
                                : check_list_add(
                                          out,
                                          "gpu.vram",
                                          CHECK_SKIP,
                                          expected,
                                          b->text,
                                          "could not look: %s holds \"%s\", not a byte count",
                                          b->path,
                                          b->text);
                        return r < 0 ? r : 1;
                }
                if (have > max && have - max > v->worst)
                        v->worst = have - max;
                r = strv_extendf(
                        have > max ? &v->over : &v->within,
                        "%s on %s (%s)",
                        have % (1024 * 1024) == 0 ? format_bytes(have, have_text)
                                                  : format_gib(have, have_text),
                        h->gpus[i].card,
                        b->path);
                if (r >= 0)
                        r = strv_extendf(&v->actual, "%s=%" PRIu64, h->gpus[i].card, have);
                if (r < 0)
                        return r;
        }
        return 0;
}

int check_gpu_vram(const NodeContext *c, const Snapshot *s, CheckList *out) {
        _cleanup_(vram_cards_done) VramCards v = {};
        _cleanup_(freep) char *expected = NULL, *list = NULL, *actual = NULL;
        uint64_t max = c->profile ? c->profile->gpu.vram_max : 0;
        char max_text[BYTES_STRING_MAX];
        int r;

        if (!c->profile || !c->profile->gpu.present)
                return check_list_skip(out, "gpu.vram", "the profile has no gpu: section");
        if (max == 0)
                return check_list_skip(out, "gpu.vram", "the profile sets no gpu.vram-max");
        if (asprintf(&expected, "%" PRIu64, max) < 0)
                return -ENOMEM;
        format_bytes(max, max_text);

        if (!snapshot_has(s, SNAPSHOT_GPUS))
                return 0; /* not selected: its caller did not read it */
        if (s->host.gpus_error < 0)
                return check_list_add(
                        out,
                        "gpu.vram",
                        CHECK_SKIP,
                        expected,
                        NULL,
                        "could not look at " DRM_CLASS_DIR ": %s",
                        strerror(-s->host.gpus_error));
        if (s->host.n_gpus == 0)
                return check_list_add(
                        out,
                        "gpu.vram",
                        CHECK_SKIP,
                        expected,
                        NULL,
                        "no GPU driven by amdgpu in " DRM_CLASS_DIR ": the carve-out cannot be checked");
        r = vram_cards(&s->host, max, expected, &v, out);
        if (r != 0)
                return r < 0 ? r : 0;

        list = strv_join(v.over ?: v.within, ", ");
        actual = strv_join(v.actual, " ");
        if (!list || !actual)
                return -ENOMEM;
        if (v.over)
                /* The carve-out is taken from system RAM before the kernel starts: MemTotal, and so the
                 * GTT that holds the model, lose all of it. */
                return check_list_add(
                        out,
                        "gpu.vram",
                        CHECK_FAIL,
                        expected,
                        actual,
                        "the iGPU's VRAM carve-out is %s, above gpu.vram-max %s: set " BIOS_SETTING
                        " in the BIOS to %s; the %.1f GiB above it are memory that the GTT (and the model "
                        "in it) cannot use",
                        list,
                        max_text,
                        max_text,
                        bytes_gib(v.worst));
        return check_list_add(
                out,
                "gpu.vram",
                CHECK_PASS,
                expected,
                actual,
                "the iGPU's VRAM carve-out is %s, within gpu.vram-max %s",
                list,
                max_text);
}

int check_gpu(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out) {
        int r;

        r = check_gpu_vram(c, s, out);
        if (r < 0)
                return r;
        r = check_gpu_gtt(c, s, out);
        if (r < 0)
                return r;
        return check_gpu_devices(c, s, out);
}
