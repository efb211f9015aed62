/* SPDX-License-Identifier: MIT */
/* The next boot as systemd-boot picks it: the Type #1 entries of the ESP and XBOOTLDR in its order, and
 * the default from its EFI variables and loader.conf (systemd src/boot/boot.c). */
#include <ctype.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <strings.h>

#include "basic/strv.h"
#include "boot/bootcfg-internal.h"
#include "boot/bootcfg.h"

typedef struct SdBootEntry {
        BlsEntry *entry;
        char *id;       /* systemd-boot's id: the file name without the boot counter, lower case */
        int tries_left; /* the boot counter's "+LEFT"; -1 without one */
} SdBootEntry;

static void lowercase(char *s) {
        for (; *s; s++)
                *s = (char) tolower((unsigned char) *s);
}

/* boot_entry_parse_tries(): "name+LEFT[-DONE].conf" counts boots; the id drops the counter. */
static int sd_boot_entry_init(BlsEntry *e, SdBootEntry *ret) {
        const char *plus = strrchr(e->id, '+');
        size_t prefix = strlen(e->id);
        int tries_left = -1;

        if (plus) {
                char *end;
                unsigned long left = strtoul(plus + 1, &end, 10);

                if (end != plus + 1 && *end == '-' && end[1] >= '0' && end[1] <= '9')
                        (void) strtoul(end + 1, &end, 10);
                if (end != plus + 1 && *end == '\0' && left <= INT32_MAX) {
                        tries_left = (int) left;
                        prefix = plus - e->id;
                }
        }
        *ret = (SdBootEntry){ .entry = e, .tries_left = tries_left };
        if (asprintf(&ret->id, "%.*s.conf", (int) prefix, e->id) < 0)
                return -ENOMEM;
        lowercase(ret->id);
        return 0;
}

/* boot_entry_compare(): spent entries last; with a sort-key on both, by sort-key, machine-id and the
 * newest version; then by id, the newest first. */
static int sd_boot_compare(const void *x, const void *y) {
        const SdBootEntry *a = x, *b = y;
        int r;

        r = (a->tries_left == 0) - (b->tries_left == 0);
        if (r != 0)
                return r;
        r = !a->entry->sort_key - !b->entry->sort_key;
        if (r != 0)
                return r;
        if (a->entry->sort_key && b->entry->sort_key) {
                r = strcmp(a->entry->sort_key, b->entry->sort_key);
                if (r == 0)
                        r = strcmp(strempty(a->entry->machine_id), strempty(b->entry->machine_id));
                if (r == 0)
                        r = -bls_version_compare(a->entry->version, b->entry->version);
                if (r != 0)
                        return r;
        }
        r = -bls_version_compare(a->id, b->id);
        if (r != 0 || a->tries_left < 0 || b->tries_left < 0)
                return r;
        /* The same entry twice, both counting: more tries left first. */
        return (b->tries_left > a->tries_left) - (b->tries_left < a->tries_left);
}

/* loader.conf's last "default" (config_defaults_load_from_file()); NULL without one. */
int loader_conf_default(const char *text, char **ret) {
        _cleanup_(freep) char *value = NULL;

        for (const char *p = text; *p;) {
                const char *line = p, *end = p + strcspn(p, "\n");

                p = *end ? end + 1 : end;
                line += strspn(line, " \t");
                if (!startswith(line, "default") || !strchr(" \t", line[7]) || line + 7 >= end)
                        continue;
                line += 7 + strspn(line + 7, " \t");
                while (end > line && strchr(" \t\r", end[-1]))
                        end--;
                free(value);
                value = strndup(line, end - line);
                if (!value)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(value);
        return 0;
}

static SdBootEntry *find_pattern(SdBootEntry *l, size_t n, const char *pattern) {
        _cleanup_(freep) char *p = pattern ? strdup(pattern) : NULL;

        if (!p)
                return NULL;
        lowercase(p);
        for (size_t i = 0; i < n; i++)
                if (fnmatch(p, l[i].id, 0) == 0)
                        return &l[i];
        return NULL;
}

/* config_select_default_entry(): the one-shot EFI variable (systemctl reboot --boot-loader-entry), the
 * default one (bootctl set-default) or the last booted with "default @saved", loader.conf's default,
 * else the first entry. */
static int pick(const Host *h, const char *esp, SdBootEntry *l, size_t n, SdBootEntry **ret, char **ret_why) {
        _cleanup_(freep) char *conf_path = NULL, *conf = NULL, *pattern = NULL, *oneshot = NULL,
                              *efidefault = NULL;
        SdBootEntry *e;
        int r;

        if (asprintf(&conf_path, "%s/loader/loader.conf", esp) < 0)
                return -ENOMEM;
        r = host_read_file(h, conf_path, HOST_FILE_MAX, &conf, NULL);
        if (r >= 0)
                r = loader_conf_default(conf, &pattern);
        if (r == -ENOMEM)
                return r;
        r = efivar_read_loader_string(h, "LoaderEntryOneShot", &oneshot);
        if (r == -ENOMEM)
                return r;
        r = efivar_read_loader_string(
                h,
                pattern && strcasecmp(pattern, "@saved") == 0 ? "LoaderEntryLastBooted" : "LoaderEntryDefault",
                &efidefault);
        if (r == -ENOMEM)
                return r;

        if ((e = find_pattern(l, n, oneshot)))
                r = asprintf(ret_why, "picked by LoaderEntryOneShot=%s (this boot only)", oneshot);
        else if ((e = find_pattern(l, n, efidefault)))
                r = asprintf(ret_why, "picked by the EFI variable %s", efidefault);
        else if (pattern && !strcasecmp(pattern, "@saved") == 0 && (e = find_pattern(l, n, pattern)))
                r = asprintf(ret_why, "picked by default %s in %s", pattern, conf_path);
        else {
                e = &l[0];
                r = pattern ? asprintf(
                                      ret_why,
                                      "the first in systemd-boot's order; default %s in %s names no entry",
                                      pattern,
                                      conf_path)
                            : asprintf(ret_why, "the first in systemd-boot's order");
        }
        if (r < 0)
                return -ENOMEM;
        *ret = e;
        return 0;
}

int boot_config_from_sd_boot(const Host *h, const BootLoaderFound *f, BootConfig *c, char **ret_failed_path) {
        _cleanup_(bls_entries_done) BlsEntries entries = {};
        _cleanup_(freep) SdBootEntry *l = NULL;
        SdBootEntry *e;
        int r;

        STRV_FOREACH(d, f->entries_dirs) {
                r = bls_entries_load(h, *d, &entries, ret_failed_path);
                if (r < 0)
                        return r;
        }
        if (entries.n == 0)
                return -ENOENT;
        l = calloc(entries.n, sizeof(SdBootEntry));
        if (!l)
                return -ENOMEM;
        for (size_t i = 0; i < entries.n; i++) {
                r = sd_boot_entry_init(&entries.entries[i], &l[i]);
                if (r < 0)
                        goto finish;
        }
        qsort(l, entries.n, sizeof(SdBootEntry), sd_boot_compare);
        r = pick(h, f->esp, l, entries.n, &e, &c->selected_by);
        if (r < 0)
                goto finish;

        c->source = BOOT_CONFIG_BLS;
        c->path = strdup(e->entry->path);
        c->entry_id = strdup(e->id);
        c->cmdline = strdup(strempty(e->entry->options));
        c->version = e->entry->version ? strdup(e->entry->version) : NULL;
        if (!c->path || !c->entry_id || !c->cmdline || (e->entry->version && !c->version))
                r = -ENOMEM;
finish:
        for (size_t i = 0; i < entries.n; i++)
                free(l[i].id);
        return r < 0 ? r : 0;
}
