/* SPDX-License-Identifier: MIT */
/* netplan's ethernets against one netdev, read with libyaml's document API (netplan files are small). */
#include <fnmatch.h>
#include <strings.h>
#include <yaml.h>

#include "basic/macro.h"
#include "basic/strv.h"
#include "net/netplan-match.h"

static void yaml_document_deletep(yaml_document_t *d) {
        yaml_document_delete(d);
}

static const char *scalar(yaml_document_t *d, yaml_node_t *n) {
        return n && n->type == YAML_SCALAR_NODE ? (const char *) n->data.scalar.value : NULL;
}

/* The value of key in the mapping n; NULL when n is no mapping or lacks it. */
static yaml_node_t *mapping_get(yaml_document_t *d, yaml_node_t *n, const char *key) {
        if (!n || n->type != YAML_MAPPING_NODE)
                return NULL;
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
                const char *k = scalar(d, yaml_document_get_node(d, p->key));

                if (k && streq(k, key))
                        return yaml_document_get_node(d, p->value);
        }
        return NULL;
}

/* A glob given as a scalar, or (netplan 1.0's driver:) a list of them: one must match. Unknown fields
 * of the netdev match. */
static bool glob_matches(yaml_document_t *d, yaml_node_t *n, const char *value) {
        if (!value)
                return true;
        if (n->type == YAML_SEQUENCE_NODE) {
                for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
                        const char *g = scalar(d, yaml_document_get_node(d, *i));

                        if (g && fnmatch(g, value, 0) == 0)
                                return true;
                }
                return false;
        }
        return scalar(d, n) && fnmatch(scalar(d, n), value, 0) == 0;
}

static bool ethernet_matches(yaml_document_t *d, const char *name, yaml_node_t *def, const NetdevIdentity *id) {
        yaml_node_t *match = mapping_get(d, def, "match"), *n;
        const char *mac;

        if (!match)
                return !id->ifname || streq(name, id->ifname);
        if ((n = mapping_get(d, match, "name")) && !glob_matches(d, n, id->ifname))
                return false;
        if ((n = mapping_get(d, match, "driver")) && !glob_matches(d, n, id->driver))
                return false;
        if ((n = mapping_get(d, match, "macaddress"))) {
                mac = scalar(d, n);
                /* netplan matches the permanent address when the device has one (netplan.io, match). */
                if (mac && id->mac && strcasecmp(mac, id->mac) != 0 &&
                    !(id->permanent_mac && strcasecmp(mac, id->permanent_mac) == 0))
                        return false;
        }
        return true;
}

int netplan_file_matches(const char *text, size_t size, const NetdevIdentity *id, char ***ret_ids) {
        _cleanup_(strv_freep) char **ids = NULL;
        _cleanup_(yaml_parser_delete) yaml_parser_t parser = {};
        _cleanup_(yaml_document_deletep) yaml_document_t doc = {};
        yaml_node_t *ethernets;

        if (!yaml_parser_initialize(&parser))
                return -ENOMEM;
        yaml_parser_set_input_string(&parser, (const unsigned char *) text, size);
        if (!yaml_parser_load(&parser, &doc)) {
                /* A failed load leaves doc zeroed: deleting it is harmless. */
                return -EBADMSG;
        }

        ethernets = mapping_get(
                &doc, mapping_get(&doc, yaml_document_get_root_node(&doc), "network"), "ethernets");
        if (ethernets && ethernets->type == YAML_MAPPING_NODE)
                for (yaml_node_pair_t *p = ethernets->data.mapping.pairs.start;
                     p < ethernets->data.mapping.pairs.top;
                     p++) {
                        const char *name = scalar(&doc, yaml_document_get_node(&doc, p->key));

                        if (name && ethernet_matches(&doc, name, yaml_document_get_node(&doc, p->value), id) &&
                            strv_extend(&ids, name) < 0)
                                return -ENOMEM;
                }
        *ret_ids = TAKE_PTR(ids);
        return 0;
}
