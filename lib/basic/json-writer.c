/* SPDX-License-Identifier: MIT */
/* A small streaming JSON writer: commas, indentation and string escaping in one place. */
#include <inttypes.h>

#include "basic/json-writer.h"

void json_writer_init(JsonWriter *w, FILE *f, bool pretty) {
        *w = (JsonWriter){ .f = f, .pretty = pretty };
}

void json_writer_finish(JsonWriter *w) {
        fputc('\n', w->f);
}

static void newline_indent(JsonWriter *w) {
        if (!w->pretty)
                return;
        fputc('\n', w->f);
        for (unsigned i = 0; i < w->depth; i++)
                fputs("  ", w->f);
}

/* Emits the separator that must precede a value or a key at the current position. */
static void before_item(JsonWriter *w) {
        if (w->after_key) {
                w->after_key = false;
                return;
        }
        if (w->depth == 0)
                return;
        if (w->has_items[w->depth])
                fputc(',', w->f);
        w->has_items[w->depth] = true;
        newline_indent(w);
}

static void open(JsonWriter *w, char c) {
        before_item(w);
        fputc(c, w->f);
        if (w->depth + 1 < JSON_DEPTH_MAX)
                w->depth++;
        w->has_items[w->depth] = false;
}

static void close_(JsonWriter *w, char c) {
        bool had = w->has_items[w->depth];

        if (w->depth > 0)
                w->depth--;
        if (had)
                newline_indent(w);
        fputc(c, w->f);
}

void json_begin_object(JsonWriter *w) {
        open(w, '{');
}

void json_end_object(JsonWriter *w) {
        close_(w, '}');
}

void json_begin_array(JsonWriter *w) {
        open(w, '[');
}

void json_end_array(JsonWriter *w) {
        close_(w, ']');
}

static void write_escaped(FILE *f, const char *s) {
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                switch (*p) {
                case '"':
                        fputs("\\\"", f);
                        break;
                case '\\':
                        fputs("\\\\", f);
                        break;
                case '\n':
                        fputs("\\n", f);
                        break;
                case '\t':
                        fputs("\\t", f);
                        break;
                case '\r':
                        fputs("\\r", f);
                        break;
                default:
                        if (*p < 0x20 || *p == 0x7f)
                                fprintf(f, "\\u%04x", *p);
                        else
                                fputc(*p, f);
                }
        fputc('"', f);
}

void json_key(JsonWriter *w, const char *key) {
        before_item(w);
        write_escaped(w->f, key);
        fputs(w->pretty ? ": " : ":", w->f);
        w->after_key = true;
}

void json_string(JsonWriter *w, const char *s) {
        before_item(w);
        if (s)
                write_escaped(w->f, s);
        else
                fputs("null", w->f);
}

void json_uint(JsonWriter *w, uint64_t v) {
        before_item(w);
        fprintf(w->f, "%" PRIu64, v);
}

void json_bool(JsonWriter *w, bool v) {
        before_item(w);
        fputs(v ? "true" : "false", w->f);
}

void json_null(JsonWriter *w) {
        before_item(w);
        fputs("null", w->f);
}

void json_kv_string(JsonWriter *w, const char *key, const char *s) {
        json_key(w, key);
        json_string(w, s);
}

void json_kv_uint(JsonWriter *w, const char *key, uint64_t v) {
        json_key(w, key);
        json_uint(w, v);
}

void json_kv_bool(JsonWriter *w, const char *key, bool v) {
        json_key(w, key);
        json_bool(w, v);
}
