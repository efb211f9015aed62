/* SPDX-License-Identifier: MIT */
/* Fuzzes the profile loader: any input either loads, or yields one-line positioned errors; then
 * the loaded profile goes through node selection and the JSON dump. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>

#include "basic/strv.h"
#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_errors(char **errors) {
        if (strv_length(errors) < 1 || strv_length(errors) > PROFILE_ERRORS_MAX + 1)
                abort();
        STRV_FOREACH(e, errors)
                if (!startswith(*e, "fuzz.yaml:") || strchr(*e, '\n'))
                        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *json = NULL;
        struct in_addr local[2] = { { htonl(0x7f000001) }, { htonl(0xc0a86401) } };
        size_t n = 0;
        JsonWriter w;
        FILE *f;
        int r;

        r = profile_load_string("fuzz.yaml", (const char *) data, size, &p, &errors);
        if (r == -ENOMEM)
                return 0;
        if (r < 0) {
                if (r != -EINVAL || p)
                        abort();
                check_errors(errors);
                return 0;
        }
        if (!p || errors)
                abort();

        for (size_t i = 0; i < p->n_nodes; i++) {
                const ProfileNode *node = NULL;
                const ProfileNic *nic;
                _cleanup_(freep) char *error = NULL;

                if (profile_select_node(p, p->nodes[i].name, NULL, NULL, 0, &node, &error) < 0 ||
                    node != &p->nodes[i])
                        abort();
                for (size_t j = 0; j < node->n_links; j++)
                        if (!profile_node_link_match(p, &node->links[j]))
                                abort();
                /* A node's own nic: replaces the profile's whole; a speed is whole Gbit/s. */
                nic = profile_node_nic(p, node);
                if (nic != (node->nic.present ? &node->nic : &p->nic) || nic->speed_min_mbit % 1000 != 0 ||
                    nic->speed_min_mbit > PROFILE_NIC_SPEED_MIN_GBIT_MAX * 1000U)
                        abort();
        }
        /* A loaded qos: keeps RoCE on a priority with PFC on whenever it says which priority that is. */
        for (size_t i = 0; i < p->n_links; i++) {
                const ProfileQos *q = &p->links[i].qos;
                int prio = profile_qos_roce_priority(q);

                if (prio != -ENOENT && prio != -ENODATA && (prio < 0 || prio >= (int) QOS_PRIORITIES))
                        abort();
                if (prio >= 0 && q->has_pfc && q->pfc != 0 && !(q->pfc & (1U << prio)))
                        abort();
                if (q->roce_tos > 255 || (q->roce_tos >= 0 && (q->roce_tos & 3) == 3))
                        abort();
        }
        for (size_t i = 0; i < 3; i++) {
                static const char *const hostnames[] = { "halo-1", "x.example", NULL };
                const ProfileNode *node = NULL;
                _cleanup_(freep) char *error = NULL;

                r = profile_select_node(p, NULL, hostnames[i], local, ELEMENTSOF(local), &node, &error);
                if (r < 0 && (!error || strchr(error, '\n')))
                        abort();
        }

        f = open_memstream(&json, &n);
        if (!f)
                return 0;
        json_writer_init(&w, f, false);
        profile_dump_json(p, &w);
        json_writer_finish(&w);
        (void) fclose(f);
        return 0;
}
