/* SPDX-License-Identifier: MIT */
/* Typed reads of the YAML tree: a string, a number in a range, a boolean, a choice, a mapping with
 * known keys; each failure becomes one positioned error line. */
#include <inttypes.h>

#include "basic/strv.h"
#include "basic/suggest.h"
#include "profile/profile-internal.h"

bool ynode_is_null(const YNode *n) {
        return n->type == YNODE_SCALAR && !n->quoted &&
                (isempty(n->scalar) || streq(n->scalar, "~") || streq(n->scalar, "null") ||
                 streq(n->scalar, "Null") || streq(n->scalar, "NULL"));
}

static const YNode *ynode_map_get_key(const YNode *map, const char *key) {
        if (!map || map->type != YNODE_MAPPING)
                return NULL;
        for (size_t i = 0; i + 1 < map->n_children; i += 2) {
                const YNode *k = &map->children[i];

                if (k->type == YNODE_SCALAR && !k->skip && streq(k->scalar, key))
                        return k;
        }
        return NULL;
}

const YNode *ynode_map_get(const YNode *map, const char *key) {
        const YNode *k = ynode_map_get_key(map, key);

        /* Keys and values alternate: the value follows its key. */
        return k ? k + 1 : NULL;
}

size_t ynode_map_size(const YNode *map) {
        size_t n = 0;

        if (!map || map->type != YNODE_MAPPING)
                return 0;
        for (size_t i = 0; i + 1 < map->n_children; i += 2)
                if (map->children[i].type == YNODE_SCALAR && !map->children[i].skip)
                        n++;
        return n;
}

void profile_error_at(ProfileErrors *e, const YNode *n, const char *key_path, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        profile_errors_addv(e, n->line, n->column, key_path, format, ap);
        va_end(ap);
}

/* What the profile gave instead of what was expected (see DESCRIBE_BUF). */
static const char *ynode_describe(const YNode *n, char buf[static DESCRIBE_BUF]) {
        char t[MESSAGE_TEXT_BUF];

        switch (n->type) {
        case YNODE_MAPPING:
                return "a mapping";
        case YNODE_SEQUENCE:
                return "a list";
        case YNODE_SCALAR:
                if (ynode_is_null(n))
                        return "no value";
                if (n->quoted)
                        (void) snprintf(
                                buf, DESCRIBE_BUF, "the quoted string \"%s\"", text_for_message(n->scalar, t));
                else
                        (void) snprintf(buf, DESCRIBE_BUF, "'%s'", text_for_message(n->scalar, t));
                return buf;
        default:
                return "an invalid value";
        }
}

bool ynode_require_sequence(ProfileErrors *e, const YNode *n, const char *key_path, const char *expected) {
        char buf[DESCRIBE_BUF];

        if (n->type == YNODE_SEQUENCE)
                return true;
        if (n->type != YNODE_INVALID)
                profile_error_at(e, n, key_path, "got %s (expected %s)", ynode_describe(n, buf), expected);
        return false;
}

bool ynode_require_mapping(ProfileErrors *e, const YNode *n, const char *key_path, const char *expected) {
        char buf[DESCRIBE_BUF];

        if (n->type == YNODE_MAPPING)
                return true;
        if (n->type != YNODE_INVALID)
                profile_error_at(e, n, key_path, "got %s (expected %s)", ynode_describe(n, buf), expected);
        return false;
}

bool ynode_get_string(
        ProfileErrors *e, const YNode *n, const char *key_path, const char *expected, const char **ret) {
        char buf[DESCRIBE_BUF];

        if (n->type == YNODE_SCALAR && !ynode_is_null(n)) {
                *ret = n->scalar;
                return true;
        }
        if (n->type != YNODE_INVALID)
                profile_error_at(e, n, key_path, "got %s (expected %s)", ynode_describe(n, buf), expected);
        return false;
}

/* A number or boolean must be a plain scalar: "9000" in quotes is a string in YAML. */
static bool require_plain(ProfileErrors *e, const YNode *n, const char *key_path, const char *expected) {
        char buf[DESCRIBE_BUF];

        if (n->type == YNODE_SCALAR && !n->quoted && !ynode_is_null(n))
                return true;
        if (n->type == YNODE_INVALID)
                return false;
        if (n->type == YNODE_SCALAR && n->quoted)
                profile_error_at(
                        e,
                        n,
                        key_path,
                        "got %s (expected %s, written without quotes)",
                        ynode_describe(n, buf),
                        expected);
        else
                profile_error_at(e, n, key_path, "got %s (expected %s)", ynode_describe(n, buf), expected);
        return false;
}

bool ynode_get_uint(
        ProfileErrors *e,
        const YNode *n,
        const char *key_path,
        uint64_t min,
        uint64_t max,
        const char *expected,
        uint64_t *ret) {
        char buf[MESSAGE_TEXT_BUF];
        uint64_t v;
        int r;

        if (!require_plain(e, n, key_path, expected))
                return false;
        r = parse_uint64(n->scalar, &v);
        if (r == -EINVAL) {
                profile_error_at(
                        e,
                        n,
                        key_path,
                        "'%s' is not a whole number (expected %s)",
                        text_for_message(n->scalar, buf),
                        expected);
                return false;
        }
        if (r < 0 || v < min || v > max) {
                profile_error_at(
                        e,
                        n,
                        key_path,
                        "%s is out of range (expected %s)",
                        text_for_message(n->scalar, buf),
                        expected);
                return false;
        }
        *ret = v;
        return true;
}

bool ynode_get_bool(ProfileErrors *e, const YNode *n, const char *key_path, bool *ret) {
        static const char *const truths[] = { "true", "True", "TRUE" };
        static const char *const falsehoods[] = { "false", "False", "FALSE" };
        char buf[MESSAGE_TEXT_BUF];

        if (!require_plain(e, n, key_path, "true or false"))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(truths); i++) {
                if (streq(n->scalar, truths[i])) {
                        *ret = true;
                        return true;
                }
                if (streq(n->scalar, falsehoods[i])) {
                        *ret = false;
                        return true;
                }
        }
        profile_error_at(
                e,
                n,
                key_path,
                "'%s' is not a boolean (expected true or false)",
                text_for_message(n->scalar, buf));
        return false;
}

int ynode_get_choice(
        ProfileErrors *e, const YNode *n, const char *key_path, const char *const *names, const char *expected) {
        char buf[MESSAGE_TEXT_BUF];
        const char *s, *guess;

        if (!ynode_get_string(e, n, key_path, expected, &s))
                return -1;
        for (size_t i = 0; names[i]; i++)
                if (streq(s, names[i]))
                        return (int) i;

        guess = suggest_closest(s, names);
        if (guess)
                profile_error_at(
                        e,
                        n,
                        key_path,
                        "'%s' is not a known value, did you mean '%s'? (expected %s)",
                        text_for_message(s, buf),
                        guess,
                        expected);
        else
                profile_error_at(
                        e,
                        n,
                        key_path,
                        "'%s' is not a known value (expected %s)",
                        text_for_message(s, buf),
                        expected);
        return -1;
}

void ynode_check_keys(ProfileErrors *e, const YNode *map, const char *key_path, const char *const *known) {
        _cleanup_(freep) char *list = NULL;

        if (map->type != YNODE_MAPPING)
                return;
        for (size_t i = 0; i + 1 < map->n_children; i += 2) {
                const YNode *k = &map->children[i];
                char path[KEY_PATH_MAX], buf[MESSAGE_TEXT_BUF];
                const char *guess;

                if (k->type != YNODE_SCALAR || k->skip || strv_contains((char **) known, k->scalar))
                        continue;
                /* A file of thousands of unknown keys: only the first hundred need a suggestion. */
                if (!profile_errors_would_keep(e, k->line, k->column))
                        continue;
                if (!list) {
                        list = strv_join((char **) known, ", ");
                        if (!list) {
                                e->oom = true;
                                return;
                        }
                }
                key_path_join(path, key_path, k->scalar);
                guess = suggest_closest(k->scalar, known);
                if (guess)
                        profile_error_at(
                                e,
                                k,
                                path,
                                "unknown key '%s', did you mean '%s'? (expected one of: %s)",
                                text_for_message(k->scalar, buf),
                                guess,
                                list);
                else
                        profile_error_at(
                                e,
                                k,
                                path,
                                "unknown key '%s' (expected one of: %s)",
                                text_for_message(k->scalar, buf),
                                list);
        }
}

bool ynode_key_misspelt(const YNode *map, const char *key, const char *const *known) {
        if (!map || map->type != YNODE_MAPPING)
                return false;
        for (size_t i = 0; i + 1 < map->n_children; i += 2) {
                const YNode *k = &map->children[i];

                if (k->type == YNODE_SCALAR && !k->skip && !strv_contains((char **) known, k->scalar) &&
                    streq_ptr(suggest_closest(k->scalar, known), key))
                        return true;
        }
        return false;
}

void link_match_done(LinkMatch *m) {
        m->driver = mfree(m->driver);
        m->pci = mfree(m->pci);
        m->mac = mfree(m->mac);
        m->name = mfree(m->name);
}

int profile_build_match(ProfileErrors *e, const YNode *n, const char *key_path, LinkMatch *m) {
        static const char *const keys[] = { "driver", "pci", "mac", "name", NULL };
        char path[KEY_PATH_MAX], buf[MESSAGE_TEXT_BUF];
        const YNode *v;
        const char *s;

        if (!ynode_require_mapping(e, n, key_path, "a mapping with driver:, pci:, mac: or name:"))
                return 0;
        ynode_check_keys(e, n, key_path, keys);
        /* Keys that are all unknown were reported above, with a suggestion. */
        if (ynode_map_size(n) == 0) {
                profile_error_at(
                        e,
                        n,
                        key_path,
                        "nothing to match on (expected at least one of driver:, pci:, mac:, name:)");
                return 0;
        }

#define MATCH_PATH(key) key_path_join(path, key_path, key)

        v = ynode_map_get(n, "driver");
        if (v &&
            ynode_get_string(e, v, MATCH_PATH("driver"), "a kernel driver name like ice or mlx5_core", &s)) {
                if (!driver_name_is_valid(s))
                        profile_error_at(
                                e,
                                v,
                                path,
                                "'%s' is not a driver name (expected a kernel driver name like ice or mlx5_core: letters, digits, '.', '_', '-')",
                                text_for_message(s, buf));
                else if (!(m->driver = strdup(s)))
                        return -ENOMEM;
        }

        v = ynode_map_get(n, "pci");
        if (v && ynode_get_string(e, v, MATCH_PATH("pci"), "a PCI address like 0000:c2:00.0", &s)) {
                char pci[16];

                if (pci_address_normalize(s, pci) < 0)
                        profile_error_at(
                                e,
                                v,
                                path,
                                "'%s' is not a PCI address (expected DDDD:BB:DD.F or BB:DD.F in hex, device up to 1f, function up to 7, like 0000:c2:00.0)",
                                text_for_message(s, buf));
                else if (!(m->pci = strdup(pci)))
                        return -ENOMEM;
        }

        v = ynode_map_get(n, "mac");
        if (v && ynode_get_string(e, v, MATCH_PATH("mac"), "a MAC address like 6c:fe:54:12:34:56", &s)) {
                char mac[18];

                if (mac_address_normalize(s, mac) < 0)
                        profile_error_at(
                                e,
                                v,
                                path,
                                "'%s' is not a MAC address (expected six hex pairs like 6c:fe:54:12:34:56)",
                                text_for_message(s, buf));
                else if (!(m->mac = strdup(mac)))
                        return -ENOMEM;
        }

        v = ynode_map_get(n, "name");
        if (v && ynode_get_string(e, v, MATCH_PATH("name"), "an interface name or glob like enp194s0*", &s)) {
                if (!ifname_glob_is_valid(s))
                        profile_error_at(
                                e,
                                v,
                                path,
                                "'%s' is not an interface name or glob (expected 1 to 15 characters without '/', ':' or spaces, like enp194s0*)",
                                text_for_message(s, buf));
                else if (!(m->name = strdup(s)))
                        return -ENOMEM;
        }
#undef MATCH_PATH
        return 0;
}
