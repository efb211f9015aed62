/* SPDX-License-Identifier: MIT */
/* The DRM cards amdgpu drives, found in sysfs below the host root, and the byte counts it shows of
 * each (mem_info_vram_total, mem_info_gtt_total: drivers/gpu/drm/amd/amdgpu/amdgpu_vram_mgr.c and
 * amdgpu_gtt_mgr.c); and TTM's page limit, which caps what KFD lets ROCm allocate. */
#pragma once

#include <stdint.h>

#include "basic/host.h"

#define DRM_CLASS_DIR "/sys/class/drm"
/* ttm's module parameter pages_limit (drivers/gpu/drm/ttm/ttm_tt.c, module_param_named(pages_limit,
 * ttm_pages_limit, ulong, 0644)): ttm_tt_mgr_init() sets it to half of RAM when the command line or
 * modprobe.d gives none, so the file shows the limit in force, in pages of PAGE_SIZE. */
#define TTM_PAGES_LIMIT_PATH "/sys/module/ttm/parameters/pages_limit"
/* AMD's out-of-tree amdgpu-dkms carries its own copy of TTM, named amdttm. */
#define AMDTTM_PAGES_LIMIT_PATH "/sys/module/amdttm/parameters/pages_limit"

/* The DRM cards ("card1") among entries (a listing of DRM_CLASS_DIR) that amdgpu drives, in number
 * order (NULL when none). Returns 0 or -ENOMEM. */
int amdgpu_cards_filter(const Host *h, char **entries, char ***ret);
/* The same, listing DRM_CLASS_DIR: 0, or the errno of listing it (absent: none, 0). */
int amdgpu_cards_find(const Host *h, char ***ret);
/* Reads one of amdgpu's byte counts of a card (mem_info_vram_total, mem_info_gtt_total) into ret, and
 * the attribute's path and text (NULL when unread) for messages. Returns 0, the errno of reading, or
 * -EBADMSG when it holds no decimal byte count. */
int amdgpu_card_read_bytes(
        const Host *h, const char *card, const char *attribute, char **ret_path, char **ret_text, uint64_t *ret);
/* The PCI address of a DRM card ("0000:c3:00.0"), from its device link. */
int drm_card_pci_address(const Host *h, const char *card, char **ret);
/* Reads TTM_PAGES_LIMIT_PATH (AMDTTM_PAGES_LIMIT_PATH where only amdttm is loaded) into ret (pages),
 * and the path and its text (NULL when unread) for messages. Returns 0, the errno of reading it
 * (-ENOENT: no ttm module loaded), or -EBADMSG when it holds no decimal count. */
int ttm_read_pages_limit(const Host *h, const char **ret_path, char **ret_text, uint64_t *ret);
