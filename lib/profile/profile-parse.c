/* SPDX-License-Identifier: MIT */
/* libyaml's event parser → a YNode tree with positions, enforcing the caps and halod's YAML subset:
 * one document, no anchors or aliases, no tags beyond the core ones, no repeated keys. */
#include <stdio.h>
#include <yaml.h>

#include "profile/profile-internal.h"

typedef struct Builder {
        const char *data;
        size_t size;
        ProfileErrors *errors;
        YNode stack[PROFILE_DEPTH_MAX]; /* collections under construction */
        size_t allocated[PROFILE_DEPTH_MAX];
        unsigned depth;
        YNode root;
        unsigned documents;
} Builder;

static void yaml_parser_deletep(yaml_parser_t *p) {
        yaml_parser_delete(p);
}

static void yaml_event_deletep(yaml_event_t *e) {
        yaml_event_delete(e);
}

void ynode_done(YNode *n) {
        if (!n)
                return;
        for (size_t i = 0; i < n->n_children; i++)
                ynode_done(&n->children[i]);
        n->children = mfree(n->children);
        n->n_children = 0;
        n->scalar = mfree(n->scalar);
}

/* The first invalid UTF-8 byte (overlong forms, surrogates and values above U+10FFFF included), or
 * size when there is none. */
static size_t utf8_first_invalid(const unsigned char *s, size_t size) {
        size_t i = 0;

        while (i < size) {
                unsigned char c = s[i];
                size_t n;
                uint32_t cp;

                if (c < 0x80) {
                        i++;
                        continue;
                }
                if (c >= 0xc2 && c <= 0xdf) {
                        n = 2;
                        cp = c & 0x1f;
                } else if (c >= 0xe0 && c <= 0xef) {
                        n = 3;
                        cp = c & 0x0f;
                } else if (c >= 0xf0 && c <= 0xf4) {
                        n = 4;
                        cp = c & 0x07;
                } else
                        return i;
                if (size - i < n)
                        return i;
                for (size_t k = 1; k < n; k++) {
                        if ((s[i + k] & 0xc0) != 0x80)
                                return i;
                        cp = (cp << 6) | (s[i + k] & 0x3f);
                }
                if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
                    (cp >= 0xd800 && cp <= 0xdfff))
                        return i;
                i += n;
        }
        return size;
}

/* 1-based line and column (in characters) of a byte offset. */
static void position_of_offset(
        const char *data, size_t size, size_t offset, unsigned *ret_line, unsigned *ret_column) {
        unsigned line = 1, column = 1;

        for (size_t i = 0; i < offset && i < size; i++) {
                if (data[i] == '\n' || (data[i] == '\r' && (i + 1 >= size || data[i + 1] != '\n'))) {
                        line++;
                        column = 1;
                } else if (((unsigned char) data[i] & 0xc0) != 0x80)
                        column++;
        }
        *ret_line = line;
        *ret_column = column;
}

/* The byte at a libyaml mark (0-based line and column in characters), or -1 past the end. */
static int byte_at_mark(const char *data, size_t size, const yaml_mark_t *m) {
        size_t i = 0;

        for (size_t line = 0; i < size && line < m->line; i++)
                if (data[i] == '\n' || (data[i] == '\r' && (i + 1 >= size || data[i + 1] != '\n')))
                        line++;
        for (size_t column = 0; i < size && column < m->column; column++)
                /* Skip one character: its lead byte and its continuation bytes. */
                for (i++; i < size && ((unsigned char) data[i] & 0xc0) == 0x80; i++)
                        ;
        return i < size ? (unsigned char) data[i] : -1;
}

/* The key path of the position where the next node goes. */
static void builder_path(const Builder *b, char path[static KEY_PATH_MAX]) {
        path[0] = '\0';
        for (unsigned i = 0; i < b->depth; i++) {
                const YNode *f = &b->stack[i];

                if (f->type == YNODE_SEQUENCE)
                        key_path_append_index(path, f->n_children);
                else if (f->n_children % 2 == 1) {
                        const YNode *key = &f->children[f->n_children - 1];
                        key_path_append(path, key->type == YNODE_SCALAR ? key->scalar : "?");
                }
        }
}

_printf_(4, 5) static void builder_error(
        Builder *b, const yaml_mark_t *m, const char *key_path, const char *format, ...) {
        char path[KEY_PATH_MAX];
        va_list ap;

        if (!key_path) {
                builder_path(b, path);
                key_path = path;
        }
        va_start(ap, format);
        profile_errors_addv(b->errors, (unsigned) m->line + 1, (unsigned) m->column + 1, key_path, format, ap);
        va_end(ap);
}

static int builder_add(Builder *b, YNode *n) {
        YNode *parent;

        if (b->depth == 0) {
                ynode_done(&b->root);
                b->root = *n;
                *n = (YNode){};
                return 0;
        }

        parent = &b->stack[b->depth - 1];
        if (parent->n_children >= b->allocated[b->depth - 1]) {
                size_t want = b->allocated[b->depth - 1] ? b->allocated[b->depth - 1] * 2 : 4;
                YNode *c = reallocarray(parent->children, want, sizeof(YNode));

                if (!c)
                        return -ENOMEM;
                parent->children = c;
                b->allocated[b->depth - 1] = want;
        }
        parent->children[parent->n_children++] = *n;
        *n = (YNode){};
        return 0;
}

static int key_index_compare(const void *a, const void *b, void *userdata) {
        const YNode *children = userdata;
        size_t x = *(const size_t *) a, y = *(const size_t *) b;
        int r = strcmp(children[x].scalar, children[y].scalar);

        return r != 0 ? r : (x > y) - (x < y);
}

/* Marks every repeated key after its first occurrence and reports it. */
static int mapping_check_repeated_keys(Builder *b, YNode *map) {
        _cleanup_(freep) size_t *index = NULL;
        size_t n = 0;

        index = calloc(map->n_children / 2 + 1, sizeof(size_t));
        if (!index)
                return -ENOMEM;
        for (size_t i = 0; i + 1 < map->n_children; i += 2)
                if (map->children[i].type == YNODE_SCALAR)
                        index[n++] = i;
        qsort_r(index, n, sizeof(size_t), key_index_compare, map->children);

        /* Equal keys sort together, each run led by its first occurrence. */
        for (size_t i = 1, run = 0; i < n; i++) {
                const YNode *first = &map->children[index[run]];
                YNode *key = &map->children[index[i]];
                char path[KEY_PATH_MAX], buf[MESSAGE_TEXT_BUF];

                if (!streq(first->scalar, key->scalar)) {
                        run = i;
                        continue;
                }
                builder_path(b, path);
                key_path_append(path, key->scalar);
                profile_errors_add(
                        b->errors,
                        key->line,
                        key->column,
                        path,
                        "duplicate key '%s', first given at line %u (expected each key once; remove or rename one)",
                        text_for_message(key->scalar, buf),
                        first->line);
                key->skip = true;
        }
        return 0;
}

static bool node_tag_is_allowed(const char *tag, YNodeType type) {
        static const char prefix[] = "tag:yaml.org,2002:";
        const char *t;

        if (!tag)
                return true;
        t = startswith(tag, prefix);
        if (!t)
                return false;
        switch (type) {
        case YNODE_SCALAR:
                return streq(t, "str") || streq(t, "int") || streq(t, "float") || streq(t, "bool") ||
                        streq(t, "null");
        case YNODE_MAPPING:
                return streq(t, "map");
        case YNODE_SEQUENCE:
                return streq(t, "seq");
        default:
                return false;
        }
}

/* Anchors and tags: reports them; the node itself is kept. */
static void check_anchor_and_tag(
        Builder *b, const yaml_event_t *ev, const char *anchor, const char *tag, YNodeType type) {
        char buf[MESSAGE_TEXT_BUF];

        if (anchor)
                builder_error(
                        b,
                        &ev->start_mark,
                        NULL,
                        "anchor '&%s' is not supported (expected every value written out, without anchors or aliases)",
                        text_for_message(anchor, buf));
        if (!node_tag_is_allowed(tag, type)) {
                const char *core = startswith(tag, "tag:yaml.org,2002:");
                char shown[MESSAGE_TEXT_BUF + 2];

                /* Show tags as written: "!!map", not "tag:yaml.org,2002:map". */
                (void) snprintf(
                        shown, sizeof(shown), "%s%s", core ? "!!" : "", text_for_message(core ?: tag, buf));
                builder_error(
                        b,
                        &ev->start_mark,
                        NULL,
                        "tag '%s' is not supported (expected no tag, or a core tag that fits the value: !!str, !!int, !!float, !!bool, !!null, !!map, !!seq)",
                        shown);
        }
}

static int builder_scalar(Builder *b, const yaml_event_t *ev) {
        const char *tag = (const char *) ev->data.scalar.tag;
        size_t length = ev->data.scalar.length;
        YNode n = {
                .type = YNODE_SCALAR,
                .line = (unsigned) ev->start_mark.line + 1,
                .column = (unsigned) ev->start_mark.column + 1,
        };

        check_anchor_and_tag(b, ev, (const char *) ev->data.scalar.anchor, tag, YNODE_SCALAR);

        if (length > PROFILE_SCALAR_MAX) {
                builder_error(
                        b,
                        &ev->start_mark,
                        NULL,
                        "value of %zu bytes is longer than the cap of %u bytes (expected at most %u bytes)",
                        length,
                        PROFILE_SCALAR_MAX,
                        PROFILE_SCALAR_MAX);
                n.type = YNODE_INVALID;
        } else if (memchr(ev->data.scalar.value, '\0', length)) {
                builder_error(
                        b, &ev->start_mark, NULL, "value contains a NUL character (expected text without \\0)");
                n.type = YNODE_INVALID;
        } else {
                n.scalar = strndup((const char *) ev->data.scalar.value, length);
                if (!n.scalar)
                        return -ENOMEM;
                if (tag && startswith(tag, "tag:yaml.org,2002:"))
                        n.quoted = streq(tag, "tag:yaml.org,2002:str");
                else
                        n.quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
        }
        return builder_add(b, &n);
}

static int builder_start(Builder *b, const yaml_event_t *ev, YNodeType type) {
        const char *anchor, *tag;

        if (type == YNODE_MAPPING) {
                anchor = (const char *) ev->data.mapping_start.anchor;
                tag = (const char *) ev->data.mapping_start.tag;
        } else {
                anchor = (const char *) ev->data.sequence_start.anchor;
                tag = (const char *) ev->data.sequence_start.tag;
        }
        check_anchor_and_tag(b, ev, anchor, tag, type);

        if (b->depth >= PROFILE_DEPTH_MAX) {
                builder_error(
                        b,
                        &ev->start_mark,
                        NULL,
                        "nesting is deeper than the cap of %u levels (expected at most %u nested mappings and sequences)",
                        PROFILE_DEPTH_MAX,
                        PROFILE_DEPTH_MAX);
                b->errors->fatal = true;
                return 0;
        }

        b->stack[b->depth] = (YNode){
                .type = type,
                .line = (unsigned) ev->start_mark.line + 1,
                .column = (unsigned) ev->start_mark.column + 1,
        };
        b->allocated[b->depth] = 0;
        b->depth++;
        return 0;
}

static int builder_end(Builder *b) {
        YNode n;
        int r;

        if (b->depth == 0)
                return 0;
        b->depth--;
        n = b->stack[b->depth];
        b->stack[b->depth] = (YNode){};
        if (n.type == YNODE_MAPPING) {
                r = mapping_check_repeated_keys(b, &n);
                if (r < 0) {
                        ynode_done(&n);
                        return r;
                }
        }
        r = builder_add(b, &n);
        if (r < 0)
                ynode_done(&n);
        return r;
}

/* Keys must be scalars: "? [a, b]: c" is valid YAML but no key of the profile. */
static void builder_check_key(Builder *b, const yaml_event_t *ev) {
        const YNode *f;

        if (b->depth == 0)
                return;
        f = &b->stack[b->depth - 1];
        if (f->type == YNODE_MAPPING && f->n_children % 2 == 0 &&
            (ev->type == YAML_MAPPING_START_EVENT || ev->type == YAML_SEQUENCE_START_EVENT))
                builder_error(
                        b,
                        &ev->start_mark,
                        NULL,
                        "a mapping or sequence is used as a key (expected a plain name before the ':')");
}

static void builder_yaml_error(Builder *b, const yaml_parser_t *p) {
        const char *problem = p->problem ?: "unknown problem";
        char path[KEY_PATH_MAX], context[128] = "";
        unsigned line, column;

        builder_path(b, path);
        if (p->error == YAML_READER_ERROR) {
                position_of_offset(b->data, b->size, p->problem_offset, &line, &column);
                profile_errors_add(
                        b->errors,
                        line,
                        column,
                        path,
                        "cannot read the YAML: %s (expected printable UTF-8 text)",
                        problem);
                return;
        }
        if (p->error == YAML_MEMORY_ERROR) {
                b->errors->oom = true;
                return;
        }

        if (p->context)
                (void) snprintf(
                        context,
                        sizeof(context),
                        " %s at line %zu, column %zu",
                        p->context,
                        p->context_mark.line + 1,
                        p->context_mark.column + 1);
        if (byte_at_mark(b->data, b->size, &p->problem_mark) == '\t')
                builder_error(
                        b,
                        &p->problem_mark,
                        path,
                        "invalid YAML: a tab character where YAML allows only spaces (expected spaces for indentation, not tabs)");
        else
                builder_error(
                        b,
                        &p->problem_mark,
                        path,
                        "invalid YAML: %s%s (expected well-formed YAML: 'key: value' lines indented with spaces, closed quotes and brackets)",
                        problem,
                        context);
}

int yaml_parse_tree(const char *data, size_t size, ProfileErrors *e, YNode *ret_root) {
        _cleanup_(yaml_parser_deletep) yaml_parser_t parser = {};
        Builder b = { .data = data, .size = size, .errors = e, .root.type = YNODE_INVALID };
        size_t bad;
        int r = 0;

        bad = utf8_first_invalid((const unsigned char *) data, size);
        if (bad < size) {
                unsigned line, column;

                position_of_offset(data, size, bad, &line, &column);
                profile_errors_add(
                        e,
                        line,
                        column,
                        NULL,
                        "invalid UTF-8 byte 0x%02x (expected a UTF-8 text file; convert it with iconv)",
                        (unsigned char) data[bad]);
                e->fatal = true;
                *ret_root = b.root;
                return 0;
        }

        if (!yaml_parser_initialize(&parser))
                return -ENOMEM;
        yaml_parser_set_input_string(&parser, (const unsigned char *) data, size);
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);

        for (bool done = false; !done && !e->fatal && r >= 0;) {
                _cleanup_(yaml_event_deletep) yaml_event_t ev = {};

                if (!yaml_parser_parse(&parser, &ev)) {
                        builder_yaml_error(&b, &parser);
                        e->fatal = true;
                        break;
                }

                builder_check_key(&b, &ev);
                switch (ev.type) {
                case YAML_DOCUMENT_START_EVENT:
                        if (++b.documents > 1) {
                                profile_errors_add(
                                        e,
                                        (unsigned) ev.start_mark.line + 1,
                                        (unsigned) ev.start_mark.column + 1,
                                        NULL,
                                        "a second YAML document starts here (expected one profile per file, without further '---' documents)");
                                e->fatal = true;
                        }
                        break;
                case YAML_ALIAS_EVENT: {
                        char buf[MESSAGE_TEXT_BUF];
                        YNode n = {
                                .type = YNODE_INVALID,
                                .line = (unsigned) ev.start_mark.line + 1,
                                .column = (unsigned) ev.start_mark.column + 1,
                        };

                        builder_error(
                                &b,
                                &ev.start_mark,
                                NULL,
                                "alias '*%s' is not supported (expected every value written out, without anchors or aliases)",
                                text_for_message((const char *) ev.data.alias.anchor, buf));
                        r = builder_add(&b, &n);
                        break;
                }
                case YAML_SCALAR_EVENT:
                        r = builder_scalar(&b, &ev);
                        break;
                case YAML_SEQUENCE_START_EVENT:
                        r = builder_start(&b, &ev, YNODE_SEQUENCE);
                        break;
                case YAML_MAPPING_START_EVENT:
                        r = builder_start(&b, &ev, YNODE_MAPPING);
                        break;
                case YAML_SEQUENCE_END_EVENT:
                case YAML_MAPPING_END_EVENT:
                        r = builder_end(&b);
                        break;
                case YAML_STREAM_END_EVENT:
                        done = true;
                        break;
                default:
                        break;
                }
        }

        while (b.depth > 0) {
                b.depth--;
                ynode_done(&b.stack[b.depth]);
        }
        if (r < 0) {
                ynode_done(&b.root);
                return r;
        }
        *ret_root = b.root;
        return 0;
}
