/* SPDX-License-Identifier: MIT */
/* The menu of a generated grub.cfg: what GRUB itself reads at boot, as grub-mkconfig writes it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"

/* Where grub-mkconfig writes it: Debian and Ubuntu (update-grub), then Fedora, RHEL and openSUSE
 * (grub2-mkconfig). */
#define GRUB_CFG_DEBIAN "/boot/grub/grub.cfg"
#define GRUB_CFG_FEDORA "/boot/grub2/grub.cfg"

typedef struct GrubMenuEntry GrubMenuEntry;

struct GrubMenuEntry {
        char *title;      /* menuentry 'Debian GNU/Linux' */
        char *id;         /* $menuentry_id_option 'gnulinux-simple-...'; NULL when none */
        bool submenu;     /* a submenu, whose entries are children */
        char *kernel;     /* the "linux" (linuxefi, linux16) line's kernel: "/boot/vmlinuz-6.1.0-28-amd64" */
        char *linux_args; /* and its arguments, as written: "root=UUID=... ro  quiet"; NULL: no linux line */
        GrubMenuEntry *children;
        size_t n_children;
};

typedef struct GrubCfg {
        GrubMenuEntry *entries; /* the top level, in menu order */
        size_t n_entries;
        char *default_entry; /* 00_header's `set default="..."` (GRUB_DEFAULT): "0", "${saved_entry}" */
        char **env;          /* "name=value" of the script's own `set` commands outside menu entries */
        bool blscfg;         /* the menu comes from BLS entries (Fedora's "blscfg" command) */
} GrubCfg;

void grub_cfg_done(GrubCfg *c);

/* Parses a grub.cfg: its menuentry and submenu blocks (with the quoting of grub's script language,
 * which grub-mkconfig's grub_quote writes: 'It'\''s'), each entry's linux line, 00_header's default
 * and the plain `set name=value` commands. Command substitution and conditions are not evaluated.
 * Returns 0, or -ENOMEM. */
int grub_cfg_parse(const char *text, GrubCfg *ret);

/* The entry GRUB boots for a default spec, as grub-core/normal/menu.c reads it: "2", "1>2", an id or a
 * title, or a path of them separated by '>' ("gnulinux-advanced-X>gnulinux-6.1.0-28-amd64-advanced-X").
 * A level that names no entry (out of range, a removed kernel's id) falls back to the first entry of
 * that menu; a submenu stands for its default, else its first entry; a plain entry boots whatever
 * follows it ("2>1" with 2 not a submenu is 2). *ret_named (may be NULL): whether every level was
 * named. NULL only when a menu on the way is empty. */
const GrubMenuEntry *grub_cfg_find(const GrubCfg *c, const char *spec, bool *ret_named);
/* The first entry of the menu (what GRUB boots when the default names none), or NULL. */
const GrubMenuEntry *grub_cfg_first(const GrubCfg *c);
