/* SPDX-License-Identifier: MIT */
/* A small streaming JSON writer for --json output: correct escaping, no allocation. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 32

typedef struct JsonWriter {
        FILE *f;
        bool pretty;
        unsigned depth;
        bool after_key;
        bool has_items[JSON_DEPTH_MAX];
} JsonWriter;

void json_writer_init(JsonWriter *w, FILE *f, bool pretty);
/* Ends the document with a newline. */
void json_writer_finish(JsonWriter *w);

void json_begin_object(JsonWriter *w);
void json_end_object(JsonWriter *w);
void json_begin_array(JsonWriter *w);
void json_end_array(JsonWriter *w);
void json_key(JsonWriter *w, const char *key);

/* A NULL string is written as null. */
void json_string(JsonWriter *w, const char *s);
void json_uint(JsonWriter *w, uint64_t v);
void json_bool(JsonWriter *w, bool v);
void json_null(JsonWriter *w);

void json_kv_string(JsonWriter *w, const char *key, const char *s);
void json_kv_uint(JsonWriter *w, const char *key, uint64_t v);
void json_kv_bool(JsonWriter *w, const char *key, bool v);
