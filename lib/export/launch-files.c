/* SPDX-License-Identifier: MIT */
/* Renders the MPI hostfile, the llama.cpp --rpc list and Ray's addresses from the profile's nodes. */
#include <arpa/inet.h>
#include <stdio.h>

#include "export/launch-files.h"

static const char *const launch_format_table[_LAUNCH_FORMAT_MAX] = {
        [LAUNCH_FORMAT_HOSTFILE] = "hostfile",
        [LAUNCH_FORMAT_LLAMA_RPC] = "llama-rpc",
        [LAUNCH_FORMAT_RAY] = "ray",
};

DEFINE_STRING_TABLE_LOOKUP(launch_format, LaunchFormat);

int launch_node_address(const ProfileNode *n, char ret[static INET_ADDRSTRLEN]) {
        if (n->n_links == 0)
                return -ENOENT;
        return inet_ntop(AF_INET, &n->links[0].address.address, ret, INET_ADDRSTRLEN) ? 0 : -errno;
}

/* The head of a Ray cluster: the profile's first node. */
static const ProfileNode *launch_head(const Profile *p) {
        return p->n_nodes > 0 ? &p->nodes[0] : NULL;
}

static void render_hostfile(const Profile *p, const LaunchOptions *o, FILE *f) {
        char addr[INET_ADDRSTRLEN];

        fprintf(f,
                "# MPI hostfile of cluster %s from halod's profile: one fabric address per node\n",
                p->cluster);
        for (size_t i = 0; i < p->n_nodes; i++)
                if (launch_node_address(&p->nodes[i], addr) >= 0)
                        fprintf(f, "%s slots=%u\n", addr, o->slots);
}

/* The local node's GPU is llama.cpp's own: only the other nodes run rpc-server. */
static void render_llama_rpc(const Profile *p, const ProfileNode *self, const LaunchOptions *o, FILE *f) {
        const char *sep = "";
        char addr[INET_ADDRSTRLEN];

        for (size_t i = 0; i < p->n_nodes; i++) {
                if (&p->nodes[i] == self || launch_node_address(&p->nodes[i], addr) < 0)
                        continue;
                fprintf(f, "%s%s:%u", sep, addr, o->port);
                sep = ",";
        }
        fputc('\n', f);
}

static void render_ray(const Profile *p, const ProfileNode *self, const LaunchOptions *o, FILE *f) {
        const ProfileNode *head = launch_head(p);
        char addr[INET_ADDRSTRLEN];

        if (head && launch_node_address(head, addr) >= 0)
                fprintf(f, "export RAY_ADDRESS=%s:%u\n", addr, o->port);
        if (launch_node_address(self, addr) >= 0)
                fprintf(f, "export RAY_NODE_IP_ADDRESS=%s\n", addr);
}

int launch_file_render(const Profile *p, const ProfileNode *self, const LaunchOptions *o, char **ret) {
        _cleanup_(freep) char *text = NULL;
        size_t size = 0;
        FILE *f;

        if (o->format < 0 || o->format >= _LAUNCH_FORMAT_MAX)
                return -EINVAL;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        switch (o->format) {
        case LAUNCH_FORMAT_HOSTFILE:
                render_hostfile(p, o, f);
                break;
        case LAUNCH_FORMAT_LLAMA_RPC:
                render_llama_rpc(p, self, o, f);
                break;
        case LAUNCH_FORMAT_RAY:
                render_ray(p, self, o, f);
                break;
        default:
                abort();
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        return 0;
}

void launch_file_dump_json(const Profile *p, const ProfileNode *self, const LaunchOptions *o, JsonWriter *w) {
        const ProfileNode *head = launch_head(p);
        _cleanup_(freep) char *text = NULL;
        char addr[INET_ADDRSTRLEN];

        if (launch_file_render(p, self, o, &text) < 0)
                text = NULL;

        json_begin_object(w);
        json_kv_string(w, "format", launch_format_to_string(o->format));
        json_kv_string(w, "cluster", p->cluster);
        json_kv_string(w, "node", self->name);
        if (o->format == LAUNCH_FORMAT_HOSTFILE)
                json_kv_uint(w, "slots", o->slots);
        else
                json_kv_uint(w, "port", o->port);
        if (o->format == LAUNCH_FORMAT_RAY && head)
                json_kv_string(w, "head", head->name);
        json_key(w, "nodes");
        json_begin_array(w);
        for (size_t i = 0; i < p->n_nodes; i++) {
                bool has = launch_node_address(&p->nodes[i], addr) >= 0;

                json_begin_object(w);
                json_kv_string(w, "node", p->nodes[i].name);
                if (has)
                        json_kv_string(w, "address", addr);
                else {
                        json_key(w, "address");
                        json_null(w);
                }
                json_end_object(w);
        }
        json_end_array(w);
        json_key(w, "text"); /* what the format prints; null when out of memory */
        if (text)
                json_string(w, text);
        else
                json_null(w);
        json_end_object(w);
}
