/* SPDX-License-Identifier: MIT */
/* The amdgpu cards the gpu. checks look at (amdgpu-cards.c). */
#pragma once

#include <stdint.h>

#include "basic/host.h"

#define DRM_CLASS_DIR "/sys/class/drm"

/* The DRM cards ("card1") that the amdgpu driver drives, in number order (NULL when none). Returns
 * 0, or the errno of listing DRM_CLASS_DIR (-ENOENT when it is absent: no GPU driver at all). */
int amdgpu_cards_find(const Host *h, char ***ret);
/* Reads one of amdgpu's byte counts of a card (mem_info_vram_total, mem_info_gtt_total) into ret, and
 * the attribute's path and text (NULL when unread) for messages. Returns 0, the errno of reading, or
 * -EBADMSG when it holds no decimal byte count. */
int amdgpu_card_read_bytes(
        const Host *h, const char *card, const char *attribute, char **ret_path, char **ret_text, uint64_t *ret);
/* The PCI address of a DRM card ("0000:c3:00.0"), from its device link. */
int drm_card_pci_address(const Host *h, const char *card, char **ret);
