/* SPDX-License-Identifier: MIT */
/* haloctl check --list: every check id of the registry, one a line, with what it judges. */
#include <stdio.h>

#include "check/check-registry.h"
#include "haloctl.h"

static void print_list_json(void) {
        JsonWriter w;

        json_writer_init(&w, stdout, true);
        json_begin_object(&w);
        json_key(&w, "checks");
        json_begin_array(&w);
        for (size_t i = 0; i < check_registry_size; i++) {
                const CheckRegistryEntry *e = &check_registry[i];

                json_begin_object(&w);
                json_kv_string(&w, "id", e->id);
                json_kv_string(&w, "group", e->group);
                json_kv_string(&w, "section", e->section);
                json_key(&w, "parts");
                json_begin_array(&w);
                for (unsigned bit = 0; bit < 8 * sizeof(e->parts); bit++)
                        if (e->parts & (1u << bit))
                                json_string(&w, snapshot_part_name((SnapshotPart) (1u << bit)));
                json_end_array(&w);
                json_kv_string(&w, "judges", e->judges);
                /* Whether haloctl check runs it also with --root: the peer round and halod's own do not. */
                json_kv_bool(&w, "host", e->run);
                json_end_object(&w);
        }
        json_end_array(&w);
        json_end_object(&w);
        json_writer_finish(&w);
}

int check_list_ids(void) {
        int width = 0;

        if (arg_json) {
                print_list_json();
                return EXIT_SUCCESS;
        }
        for (size_t i = 0; i < check_registry_size; i++)
                if ((int) strlen(check_registry[i].id) > width)
                        width = (int) strlen(check_registry[i].id);
        for (size_t i = 0; i < check_registry_size; i++)
                printf("%-*s  %s\n", width, check_registry[i].id, check_registry[i].judges);
        return EXIT_SUCCESS;
}
