/* SPDX-License-Identifier: MIT */
/* Finding the cards amdgpu drives and reading what it shows of each. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "basic/strv.h"
#include "snapshot/amdgpu.h"

static int cmp_card_names(const void *a, const void *b) {
        const char *x = *(char *const *) a, *y = *(char *const *) b;
        size_t lx = strlen(x), ly = strlen(y);

        return lx != ly ? (lx > ly) - (lx < ly) : strcmp(x, y);
}

int amdgpu_cards_filter(const Host *h, char **entries, char ***ret) {
        _cleanup_(strv_freep) char **cards = NULL;
        int r;

        STRV_FOREACH(e, entries) {
                _cleanup_(freep) char *link = NULL, *driver = NULL;
                const char *digits = startswith(*e, "card");

                /* card1-DP-1 and the like are connectors, not devices. */
                if (!digits || !*digits || strspn(digits, "0123456789") != strlen(digits))
                        continue;
                if (asprintf(&link, DRM_CLASS_DIR "/%s/device/driver", *e) < 0)
                        return -ENOMEM;
                r = host_readlink_basename(h, link, &driver);
                if (r == -ENOMEM)
                        return r;
                if (r < 0 || !streq(driver, "amdgpu"))
                        continue;
                r = strv_extend(&cards, *e);
                if (r < 0)
                        return r;
        }

        if (cards)
                qsort(cards, strv_length(cards), sizeof(char *), cmp_card_names);
        *ret = TAKE_PTR(cards);
        return 0;
}

int amdgpu_cards_find(const Host *h, char ***ret) {
        _cleanup_(strv_freep) char **entries = NULL;
        int r;

        r = host_list_directory(h, DRM_CLASS_DIR, &entries);
        if (r < 0 && r != -ENOENT && r != -ENOTDIR)
                return r;
        return amdgpu_cards_filter(h, entries, ret);
}

int drm_card_pci_address(const Host *h, const char *card, char **ret) {
        _cleanup_(freep) char *link = NULL;

        if (asprintf(&link, DRM_CLASS_DIR "/%s/device", card) < 0)
                return -ENOMEM;
        return host_readlink_basename(h, link, ret);
}

/* A byte count as amdgpu's mem_info_* attributes hold it, or a page count as param_get_ulong()
 * prints ttm's pages_limit: decimal, no sign. */
static int parse_count(const char *s, uint64_t *ret) {
        unsigned long long v;
        char *end;

        if (isempty(s) || !strchr("0123456789", s[0]))
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno > 0 || *end)
                return -ERANGE;
        *ret = v;
        return 0;
}

int amdgpu_card_read_bytes(
        const Host *h, const char *card, const char *attribute, char **ret_path, char **ret_text, uint64_t *ret) {
        _cleanup_(freep) char *path = NULL, *text = NULL;
        int r;

        if (asprintf(&path, DRM_CLASS_DIR "/%s/device/%s", card, attribute) < 0)
                return -ENOMEM;
        r = host_read_line(h, path, &text);
        if (r >= 0 && parse_count(text, ret) < 0)
                r = -EBADMSG;
        *ret_path = TAKE_PTR(path);
        *ret_text = TAKE_PTR(text);
        return r;
}

int ttm_read_pages_limit(const Host *h, const char **ret_path, char **ret_text, uint64_t *ret) {
        _cleanup_(freep) char *text = NULL;
        const char *path = TTM_PAGES_LIMIT_PATH;
        int r;

        r = host_read_line(h, path, &text);
        if (r == -ENOENT && host_path_exists(h, "/sys/module/amdttm")) {
                path = AMDTTM_PAGES_LIMIT_PATH;
                r = host_read_line(h, path, &text);
        }
        *ret_path = path;
        if (r >= 0 && parse_count(text, ret) < 0)
                r = -EBADMSG;
        *ret_text = TAKE_PTR(text);
        return r;
}
