/* SPDX-License-Identifier: MIT */
/* Reads the menu of a generated grub.cfg: entries, submenus, each entry's linux line, the default. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/bootcfg.h"
#include "boot/grub-cfg.h"

/* Deeper nesting than grub-mkconfig ever writes (a submenu of entries in 10_linux) is not a menu. */
#define GRUB_CFG_DEPTH_MAX 32U
/* Bounds against a hostile file: grub-mkconfig writes a few dozen words a line, a few hundred
 * variables and entries. What lies beyond is not read. */
#define GRUB_CFG_WORDS_MAX 4096U
#define GRUB_CFG_ENV_MAX 1024U
#define GRUB_CFG_ENTRIES_MAX 4096U

static void grub_menu_entry_done(GrubMenuEntry *e) {
        free(e->title);
        free(e->id);
        free(e->kernel);
        free(e->linux_args);
        for (size_t i = 0; i < e->n_children; i++)
                grub_menu_entry_done(&e->children[i]);
        free(e->children);
}

void grub_cfg_done(GrubCfg *c) {
        for (size_t i = 0; i < c->n_entries; i++)
                grub_menu_entry_done(&c->entries[i]);
        c->entries = mfree(c->entries);
        c->n_entries = 0;
        c->default_entry = mfree(c->default_entry);
        c->env = strv_free(c->env);
        c->blscfg = false;
}

/* Appends w (taken) to the NULL-terminated array *words of *n words, growing it by doubling. */
static int words_push(char ***words, size_t *n, size_t *allocated, char *w) {
        if (!w)
                return -ENOMEM;
        if (*n + 2 > *allocated) {
                size_t a = *allocated ? *allocated * 2 : 16;
                char **b = reallocarray(*words, a, sizeof(char *));

                if (!b) {
                        free(w);
                        return -ENOMEM;
                }
                *words = b;
                *allocated = a;
        }
        (*words)[(*n)++] = w;
        (*words)[*n] = NULL;
        return 0;
}

/* Splits one line into words as grub's script reader does: '' keeps everything, "" allows \" \\ \$,
 * a backslash escapes one character, # starts a comment, and an unquoted ';' ends a command (it
 * comes back as a word of its own). Variables stay as written, for grub_expand_variables(). At most
 * GRUB_CFG_WORDS_MAX words: no line grub-mkconfig writes comes near. */
static int split_words(const char *line, size_t length, char ***ret) {
        _cleanup_(strv_freep) char **words = NULL;
        const char *p = line, *end_of_line = line + length;
        size_t n_words = 0, allocated = 0;
        int r;

        while (n_words < GRUB_CFG_WORDS_MAX) {
                _cleanup_(freep) char *w = NULL;
                size_t n = 0;
                bool any = false;

                p += strspn(p, " \t\r");
                if (*p == '\0' || *p == '#')
                        break;
                if (*p == ';') {
                        r = words_push(&words, &n_words, &allocated, strdup(";"));
                        if (r < 0)
                                return r;
                        p++;
                        continue;
                }
                w = malloc(end_of_line - p + 1);
                if (!w)
                        return -ENOMEM;
                while (*p && !strchr(" \t\r;", *p)) {
                        any = true;
                        if (*p == '\'') {
                                const char *end = strchr(p + 1, '\'');

                                if (!end)
                                        end = end_of_line;
                                memcpy(w + n, p + 1, end - p - 1);
                                n += end - p - 1;
                                p = *end ? end + 1 : end;
                        } else if (*p == '"') {
                                for (p++; *p && *p != '"'; p++) {
                                        if (*p == '\\' && p[1] && strchr("\"\\$", p[1]))
                                                p++;
                                        w[n++] = *p;
                                }
                                if (*p == '"')
                                        p++;
                        } else if (*p == '\\' && p[1]) {
                                w[n++] = p[1];
                                p += 2;
                        } else
                                w[n++] = *p++;
                }
                w[n] = '\0';
                if (any) {
                        r = words_push(&words, &n_words, &allocated, TAKE_PTR(w));
                        if (r < 0)
                                return r;
                }
        }
        *ret = TAKE_PTR(words);
        return 0;
}

/* The arguments after the kernel, one string as the kernel gets them: a word with blanks in it is
 * quoted again (grub's linux command does the same). */
static int join_args(char **words, size_t n, char **ret) {
        _cleanup_(strv_freep) char **out = NULL;
        int r;

        for (size_t i = 0; i < n; i++) {
                const char *w = words[i], *eq = strchr(w, '=');

                if (!strpbrk(w, " \t"))
                        r = strv_extend(&out, w);
                else if (eq)
                        r = strv_extendf(&out, "%.*s\"%s\"", (int) (eq - w + 1), w, eq + 1);
                else
                        r = strv_extendf(&out, "\"%s\"", w);
                if (r < 0)
                        return r;
        }
        *ret = out ? strv_join(out, " ") : strdup("");
        return *ret ? 0 : -ENOMEM;
}

/* A `set name=value`; one without a name is not an assignment, and new names past the bound are not
 * kept. */
static int env_set(char ***env, const char *assignment) {
        const char *eq = strchr(assignment, '=');
        _cleanup_(freep) char *name = NULL;

        if (!eq || eq == assignment)
                return 0;
        if (strv_length(*env) >= GRUB_CFG_ENV_MAX) {
                name = strndup(assignment, eq - assignment);
                if (!name)
                        return -ENOMEM;
                if (!env_get(*env, name))
                        return 0;
        }
        return strv_env_replace_consume(env, strdup(assignment));
}

typedef struct Parser {
        GrubCfg *cfg;
        GrubMenuEntry *stack[GRUB_CFG_DEPTH_MAX]; /* open blocks; NULL for a function, an if's braces */
        size_t depth;
        size_t skipped; /* blocks opened beyond GRUB_CFG_DEPTH_MAX */
} Parser;

static GrubMenuEntry *innermost_entry(Parser *p) {
        for (size_t i = p->depth; i > 0; i--)
                if (p->stack[i - 1])
                        return p->stack[i - 1];
        return NULL;
}

static int open_entry(Parser *p, char **cmd, size_t n) {
        GrubMenuEntry *parent = innermost_entry(p), *list, *e;
        size_t *count;

        list = parent ? parent->children : p->cfg->entries;
        count = parent ? &parent->n_children : &p->cfg->n_entries;
        /* A menu entry inside an entry's commands is not in the menu; nor is one past the bound. */
        if ((parent && !parent->submenu) || *count >= GRUB_CFG_ENTRIES_MAX) {
                p->skipped++;
                return 0;
        }
        list = reallocarray(list, *count + 1, sizeof(GrubMenuEntry));
        if (!list)
                return -ENOMEM;
        if (parent)
                parent->children = list;
        else
                p->cfg->entries = list;
        e = &list[(*count)++];
        *e = (GrubMenuEntry){ .submenu = streq(cmd[0], "submenu") };
        e->title = strdup(n > 2 ? cmd[1] : "");
        if (!e->title)
                return -ENOMEM;
        /* "$menuentry_id_option 'gnulinux-...'" (--id once the variable is expanded). */
        for (size_t i = 2; i + 2 < n; i++)
                if (streq(cmd[i], "$menuentry_id_option") || streq(cmd[i], "--id")) {
                        e->id = strdup(cmd[i + 1]);
                        if (!e->id)
                                return -ENOMEM;
                        break;
                }
        p->stack[p->depth++] = e;
        return 0;
}

static int parse_command(Parser *p, char **cmd, size_t n) {
        GrubMenuEntry *entry = innermost_entry(p);

        if (n == 1 && streq(cmd[0], "}")) {
                if (p->skipped > 0)
                        p->skipped--;
                else if (p->depth > 0)
                        p->depth--;
                return 0;
        }
        if (streq(cmd[n - 1], "{")) {
                if (p->skipped > 0 || p->depth >= GRUB_CFG_DEPTH_MAX) {
                        p->skipped++;
                        return 0;
                }
                if ((streq(cmd[0], "menuentry") || streq(cmd[0], "submenu")) && n >= 3)
                        return open_entry(p, cmd, n);
                p->stack[p->depth++] = NULL;
                return 0;
        }
        if (p->skipped > 0)
                return 0;
        if (entry && !entry->submenu) {
                if ((streq(cmd[0], "linux") || streq(cmd[0], "linuxefi") || streq(cmd[0], "linux16")) &&
                    n >= 2 && !entry->kernel) {
                        entry->kernel = strdup(cmd[1]);
                        if (!entry->kernel)
                                return -ENOMEM;
                        return join_args(cmd + 2, n - 2, &entry->linux_args);
                }
                return 0;
        }
        if (streq(cmd[0], "blscfg"))
                p->cfg->blscfg = true;
        if (streq(cmd[0], "set") && n >= 2) {
                const char *v = startswith(cmd[1], "default=");

                /* 00_header: `set default="${next_entry}"` for grub-reboot, else GRUB_DEFAULT. */
                if (v && !streq(v, "${next_entry}")) {
                        free(p->cfg->default_entry);
                        p->cfg->default_entry = strdup(v);
                        return p->cfg->default_entry ? 0 : -ENOMEM;
                }
                if (!v)
                        return env_set(&p->cfg->env, cmd[1]);
        }
        return 0;
}

int grub_cfg_parse(const char *text, GrubCfg *ret) {
        _cleanup_(grub_cfg_done) GrubCfg cfg = {};
        Parser p = { .cfg = &cfg };
        int r;

        for (const char *line = text; line && *line;) {
                const char *nl = strchr(line, '\n');
                _cleanup_(freep) char *l = nl ? strndup(line, nl - line) : strdup(line);
                _cleanup_(strv_freep) char **words = NULL;
                size_t start = 0, n;

                if (!l)
                        return -ENOMEM;
                line = nl ? nl + 1 : NULL;
                r = split_words(l, strlen(l), &words);
                if (r < 0)
                        return r;
                n = strv_length(words);
                for (size_t i = 0; i <= n; i++) {
                        if (i < n && !streq(words[i], ";"))
                                continue;
                        if (i > start) {
                                r = parse_command(&p, words + start, i - start);
                                if (r < 0)
                                        return r;
                        }
                        start = i + 1;
                }
        }
        *ret = cfg;
        cfg = (GrubCfg){};
        return 0;
}

static const GrubMenuEntry *descend(const GrubMenuEntry *e) {
        while (e && e->submenu)
                e = e->n_children > 0 ? &e->children[0] : NULL;
        return e;
}

const GrubMenuEntry *grub_cfg_first(const GrubCfg *c) {
        return c->n_entries > 0 ? descend(&c->entries[0]) : NULL;
}

/* The position one level of a default names in list, as GRUB's get_entry_number() reads it: a key
 * that starts with a number is that number (grub_strtoul, base 0, stops at the first other character:
 * "2>1" is 2), else the entry whose title or id is the key. -1 when it names none. */
static long find_one(const GrubMenuEntry *list, size_t n, const char *key) {
        const char *k = key + strspn(key, " \t");
        unsigned long i;
        char *end;

        if (*k >= '0' && *k <= '9') {
                errno = 0;
                i = strtoul(k, &end, 0);
                return errno == 0 && i < n ? (long) i : -1;
        }
        for (size_t j = 0; j < n; j++)
                if (streq(list[j].title, key) || streq_ptr(list[j].id, key))
                        return (long) j;
        return -1;
}

const GrubMenuEntry *grub_cfg_find(const GrubCfg *c, const char *spec, bool *ret_named) {
        const GrubMenuEntry *list = c->entries, *e;
        size_t n = c->n_entries;
        const char *p = strempty(spec);
        bool named = true;

        for (;;) {
                _cleanup_(freep) char *key = malloc(strlen(p) + 1);
                size_t k = 0;
                long i;

                if (!key || n == 0)
                        return NULL;
                /* '>' separates the levels; ">>" is a '>' of a title (menuentry_eq()). */
                for (; *p; p++) {
                        if (*p == '>' && p[1] == '>') {
                                key[k++] = '>';
                                p++;
                        } else if (*p == '>')
                                break;
                        else
                                key[k++] = *p;
                }
                key[k] = '\0';
                /* run_menu(): a default that names no entry of this menu is its first entry. */
                i = find_one(list, n, key);
                if (i < 0) {
                        named = false;
                        i = 0;
                }
                e = &list[i];
                /* A plain entry boots, whatever follows; a submenu gets the rest as its default
                 * (grub_menu_execute_entry()), and with none its first entry boots. */
                if (!e->submenu) {
                        if (ret_named)
                                *ret_named = named;
                        return e;
                }
                if (*p == '>')
                        p++;
                list = e->children;
                n = e->n_children;
        }
}
