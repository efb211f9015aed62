/* SPDX-License-Identifier: MIT */
/* The [Match] section of a .network file against one netdev, by systemd.network(5)'s rules. */
#include <fnmatch.h>
#include <stdio.h>
#include <strings.h>

#include "basic/macro.h"
#include "basic/strv.h"
#include "net/networkd-match.h"

char *networkd_file_name(const char *link) {
        char *s;

        if (asprintf(&s, NETWORKD_FILE_PREFIX "%s.network", link) < 0)
                return NULL;
        return s;
}

bool networkd_file_name_is_halod(const char *name) {
        return name && strncmp(name, NETWORKD_FILE_PREFIX, strlen(NETWORKD_FILE_PREFIX)) == 0;
}

typedef enum MatchKey {
        MATCH_NAME,
        MATCH_MAC,
        MATCH_PERMANENT_MAC,
        MATCH_DRIVER,
        MATCH_TYPE,
        MATCH_OTHER, /* a key halod cannot judge */
        _MATCH_KEY_MAX,
} MatchKey;

/* One key's value as networkd keeps it: the last non-empty assignments, joined. The keys halod cannot
 * judge share MATCH_OTHER's slot, so they are kept by name: an empty Host= resets Host=, not Path=. */
typedef struct MatchState {
        char *values[_MATCH_KEY_MAX];
        char **other; /* the names of the keys set that halod cannot judge */
} MatchState;

static MatchKey match_key_from_string(const char *k) {
        if (streq(k, "Name") || streq(k, "OriginalName"))
                return MATCH_NAME;
        if (streq(k, "MACAddress"))
                return MATCH_MAC;
        if (streq(k, "PermanentMACAddress"))
                return MATCH_PERMANENT_MAC;
        if (streq(k, "Driver"))
                return MATCH_DRIVER;
        if (streq(k, "Type"))
                return MATCH_TYPE;
        return MATCH_OTHER;
}

static char *strip(char *s) {
        char *e;

        s += strspn(s, " \t\r");
        e = s + strlen(s);
        while (e > s && strchr(" \t\r", e[-1]))
                *--e = '\0';
        return s;
}

static int assign(MatchState *st, const char *key, const char *value) {
        MatchKey k = match_key_from_string(key);
        char *joined;

        if (k == MATCH_OTHER) {
                if (isempty(value)) {
                        strv_remove(st->other, key);
                        return 0;
                }
                return strv_contains(st->other, key) ? 0 : strv_extend(&st->other, key);
        }

        if (isempty(value)) {
                st->values[k] = mfree(st->values[k]);
                return 0;
        }
        if (asprintf(&joined, "%s%s%s", strempty(st->values[k]), st->values[k] ? " " : "", value) < 0)
                return -ENOMEM;
        free(st->values[k]);
        st->values[k] = joined;
        return 0;
}

static bool entry_matches(MatchKey k, const char *pattern, const NetdevIdentity *id) {
        switch (k) {
        case MATCH_NAME:
                return !id->ifname || fnmatch(pattern, id->ifname, 0) == 0;
        case MATCH_DRIVER:
                return !id->driver || fnmatch(pattern, id->driver, 0) == 0;
        case MATCH_TYPE:
                return !id->type || fnmatch(pattern, id->type, 0) == 0;
        case MATCH_MAC:
                return !id->mac || strcasecmp(pattern, id->mac) == 0;
        case MATCH_PERMANENT_MAC:
                /* A device without a permanent address matches no PermanentMACAddress= (networkd). */
                return id->permanent_mac && strcasecmp(pattern, id->permanent_mac) == 0;
        default:
                return true;
        }
}

/* A whitespace-separated list, "!" before it inverting the result. */
static bool list_matches(MatchKey k, char *list, const NetdevIdentity *id) {
        bool invert = false, any = false;
        char *save = NULL;

        list = strip(list);
        if (list[0] == '!') {
                invert = true;
                list++;
        }
        for (char *w = strtok_r(list, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
                if (entry_matches(k, w, id)) {
                        any = true;
                        break;
                }
        return invert ? !any : any;
}

static void match_state_done(MatchState *st) {
        for (size_t i = 0; i < _MATCH_KEY_MAX; i++)
                st->values[i] = mfree(st->values[i]);
        st->other = strv_free(st->other);
}

int networkd_file_matches(const char *text, const NetdevIdentity *id, bool *ret) {
        _cleanup_(match_state_done) MatchState st = {};
        _cleanup_(freep) char *copy = NULL;
        bool in_match = false, any_key = false, matches = true;
        char *save = NULL;
        int r;

        copy = strdup(text ?: "");
        if (!copy)
                return -ENOMEM;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *l = strip(line), *eq;

                if (l[0] == '#' || l[0] == ';' || l[0] == '\0')
                        continue;
                if (l[0] == '[') {
                        in_match = streq(l, "[Match]");
                        continue;
                }
                eq = strchr(l, '=');
                if (!in_match || !eq)
                        continue;
                *eq = '\0';
                r = assign(&st, strip(l), strip(eq + 1));
                if (r < 0)
                        return r;
        }

        /* A key halod cannot judge is taken as matching: the file may well take the interface. */
        any_key = strv_length(st.other) > 0;
        for (MatchKey k = 0; k < _MATCH_KEY_MAX; k++) {
                if (!st.values[k])
                        continue;
                any_key = true;
                if (!list_matches(k, st.values[k], id))
                        matches = false;
        }
        *ret = any_key && matches;
        return 0;
}
