/* SPDX-License-Identifier: MIT */
/* The profile digest: profile_dump_json of a sorted shallow copy, hashed with SHA-256. */
#include <stdio.h>
#include <stdlib.h>

#include "basic/json-writer.h"
#include "profile/profile-digest.h"

static int cmp_link(const void *a, const void *b) {
        return strcmp(((const ProfileLink *) a)->name, ((const ProfileLink *) b)->name);
}

static int cmp_node(const void *a, const void *b) {
        return strcmp(((const ProfileNode *) a)->name, ((const ProfileNode *) b)->name);
}

static int cmp_node_link(const void *a, const void *b) {
        return strcmp(((const NodeLink *) a)->link, ((const NodeLink *) b)->link);
}

static int cmp_string(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static int cmp_pci_id(const void *a, const void *b) {
        const PciId *x = a, *y = b;

        if (x->vendor != y->vendor)
                return x->vendor < y->vendor ? -1 : 1;
        return x->device < y->device ? -1 : x->device > y->device;
}

/* A sorted copy of an array of n elements of the given size (NULL stays NULL). */
static int sorted_copy(
        const void *src, size_t n, size_t size, int (*cmp)(const void *, const void *), void **ret) {
        void *copy;

        if (!src || n == 0) {
                *ret = NULL;
                return 0;
        }
        copy = malloc(n * size);
        if (!copy)
                return -ENOMEM;
        memcpy(copy, src, n * size);
        qsort(copy, n, size, cmp);
        *ret = copy;
        return 0;
}

/* The owner of the arrays of a normalized shallow copy; the strings still belong to the original. */
typedef struct Normalized {
        Profile profile;
        char **cmdline;
        NodeLink **node_links; /* one per node */
        PciId **node_pci_ids;  /* one per node: its own nic:'s ids */
} Normalized;

static void normalized_done(Normalized *n) {
        for (size_t i = 0; n->node_links && i < n->profile.n_nodes; i++)
                free(n->node_links[i]);
        free(n->node_links);
        for (size_t i = 0; n->node_pci_ids && i < n->profile.n_nodes; i++)
                free(n->node_pci_ids[i]);
        free(n->node_pci_ids);
        free(n->cmdline);
        free(n->profile.links);
        free(n->profile.nodes);
        free(n->profile.nic.pci_ids);
}

static int normalize(const Profile *p, Normalized *n) {
        size_t n_cmdline = 0;
        int r;

        n->profile = *p;
        n->profile.path = NULL;
        n->profile.links = NULL;
        n->profile.nodes = NULL;
        n->profile.nic.pci_ids = NULL;
        n->profile.kernel_cmdline = NULL;

        r = sorted_copy(p->links, p->n_links, sizeof(ProfileLink), cmp_link, (void **) &n->profile.links);
        if (r < 0)
                return r;
        r = sorted_copy(p->nodes, p->n_nodes, sizeof(ProfileNode), cmp_node, (void **) &n->profile.nodes);
        if (r < 0)
                return r;
        r = sorted_copy(
                p->nic.pci_ids, p->nic.n_pci_ids, sizeof(PciId), cmp_pci_id, (void **) &n->profile.nic.pci_ids);
        if (r < 0)
                return r;

        n->node_links = calloc(p->n_nodes > 0 ? p->n_nodes : 1, sizeof(NodeLink *));
        n->node_pci_ids = calloc(p->n_nodes > 0 ? p->n_nodes : 1, sizeof(PciId *));
        if (!n->node_links || !n->node_pci_ids)
                return -ENOMEM;
        for (size_t i = 0; i < n->profile.n_nodes; i++) {
                ProfileNode *node = &n->profile.nodes[i];

                r = sorted_copy(
                        node->links, node->n_links, sizeof(NodeLink), cmp_node_link, (void **) &n->node_links[i]);
                if (r < 0)
                        return r;
                node->links = n->node_links[i];

                r = sorted_copy(
                        node->nic.pci_ids,
                        node->nic.n_pci_ids,
                        sizeof(PciId),
                        cmp_pci_id,
                        (void **) &n->node_pci_ids[i]);
                if (r < 0)
                        return r;
                node->nic.pci_ids = n->node_pci_ids[i];
        }

        for (char **s = p->kernel_cmdline; s && *s; s++)
                n_cmdline++;
        n->cmdline = calloc(n_cmdline + 1, sizeof(char *));
        if (!n->cmdline)
                return -ENOMEM;
        if (n_cmdline > 0) {
                memcpy(n->cmdline, p->kernel_cmdline, n_cmdline * sizeof(char *));
                qsort(n->cmdline, n_cmdline, sizeof(char *), cmp_string);
        }
        n->profile.kernel_cmdline = p->kernel_cmdline ? n->cmdline : NULL;
        return 0;
}

int profile_digest(const Profile *p, uint8_t ret[PROFILE_DIGEST_SIZE]) {
        _cleanup_(freep) char *json = NULL;
        Normalized n = {};
        JsonWriter w;
        size_t size = 0;
        FILE *f;
        int r;

        r = normalize(p, &n);
        if (r < 0) {
                normalized_done(&n);
                return r;
        }

        f = open_memstream(&json, &size);
        if (!f) {
                normalized_done(&n);
                return -ENOMEM;
        }
        json_writer_init(&w, f, /* pretty= */ false);
        profile_dump_json(&n.profile, &w);
        json_writer_finish(&w);
        r = fclose(f) == 0 ? 0 : -ENOMEM;
        normalized_done(&n);
        if (r < 0)
                return r;

        sha256(json, size, ret);
        return 0;
}
