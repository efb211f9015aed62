/* SPDX-License-Identifier: MIT */
/* Which node of the profile this machine is: by --node, else by hostname, else by a local address. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <strings.h>

#include "profile/profile-internal.h"

/* The name a node answers to: its hostname, else its node name. */
static const char *node_hostname(const ProfileNode *n) {
        return n->hostname ?: n->name;
}

static size_t short_length(const char *h) {
        return strcspn(h, ".");
}

/* "halo-1" matches "halo-1.lab.example" and the other way round; two different FQDNs do not. */
static bool hostname_matches_short(const char *a, const char *b) {
        size_t la = short_length(a), lb = short_length(b);

        if (a[la] != '\0' && b[lb] != '\0')
                return false;
        return la == lb && strncasecmp(a, b, la) == 0;
}

static bool node_has_address(const ProfileNode *n, const struct in_addr *addresses, size_t n_addresses) {
        for (size_t j = 0; j < n_addresses; j++)
                if (profile_node_has_address(n, addresses[j]))
                        return true;
        return false;
}

static void fputs_node(FILE *f, const ProfileNode *n) {
        fprintf(f, "%s (%s", n->name, n->hostname ?: "no hostname");
        for (size_t i = 0; i < n->n_links; i++) {
                char a[INET_ADDRSTRLEN];

                fprintf(f, ", %s", inet_ntop(AF_INET, &n->links[i].address.address, a, sizeof(a)) ?: "?");
        }
        fputc(')', f);
}

/* Lists the given nodes (all when which is NULL) for an error message. */
static void fputs_nodes(FILE *f, const Profile *p, const bool *which) {
        bool first = true;

        for (size_t i = 0; i < p->n_nodes; i++) {
                if (which && !which[i])
                        continue;
                if (!first)
                        fputs(", ", f);
                fputs_node(f, &p->nodes[i]);
                first = false;
        }
}

static void fputs_machine(FILE *f, const char *hostname, const struct in_addr *addresses, size_t n_addresses) {
        char buf[MESSAGE_TEXT_BUF];

        if (hostname)
                fprintf(f, "this machine (hostname '%s', ", text_for_message(hostname, buf));
        else
                fputs("this machine (hostname unknown, ", f);
        if (n_addresses == 0)
                fputs("no IPv4 addresses", f);
        else
                fputs("addresses ", f);
        for (size_t i = 0; i < n_addresses && i < 8; i++) {
                char a[INET_ADDRSTRLEN];

                fprintf(f, "%s%s", i > 0 ? ", " : "", inet_ntop(AF_INET, &addresses[i], a, sizeof(a)) ?: "?");
        }
        if (n_addresses > 8)
                fputs(", …", f);
        fputc(')', f);
}

/* open_memstream() sets *buf on fclose(); a failure there means memory ran out. */
static int finish_error(FILE *f, char **buf, int r, char **ret_error) {
        if (fclose(f) != 0) {
                *buf = mfree(*buf);
                return -ENOMEM;
        }
        if (ret_error)
                *ret_error = TAKE_PTR(*buf);
        else
                *buf = mfree(*buf);
        return r;
}

/* Picks the one node for which match() holds; 0 found, -ENOENT none, -ENOTUNIQ several (listed in
 * which). */
static int
        pick(const Profile *p,
             bool *which,
             const ProfileNode **ret,
             bool (*match)(const ProfileNode *n, const void *userdata),
             const void *userdata) {
        const ProfileNode *found = NULL;
        size_t count = 0;

        for (size_t i = 0; i < p->n_nodes; i++) {
                which[i] = match(&p->nodes[i], userdata);
                if (which[i]) {
                        found = &p->nodes[i];
                        count++;
                }
        }
        if (count == 1)
                *ret = found;
        return count == 0 ? -ENOENT : count == 1 ? 0 : -ENOTUNIQ;
}

static bool match_hostname_exact(const ProfileNode *n, const void *hostname) {
        return strcasecmp(node_hostname(n), hostname) == 0;
}

static bool match_hostname_short(const ProfileNode *n, const void *hostname) {
        return hostname_matches_short(node_hostname(n), hostname);
}

typedef struct AddressSet {
        const struct in_addr *addresses;
        size_t n;
} AddressSet;

static bool match_address(const ProfileNode *n, const void *userdata) {
        const AddressSet *s = userdata;

        return node_has_address(n, s->addresses, s->n);
}

int profile_select_node(
        const Profile *p,
        const char *node_name,
        const char *hostname,
        const struct in_addr *local_addresses,
        size_t n_local_addresses,
        const ProfileNode **ret,
        char **ret_error) {
        _cleanup_(freep) bool *which = NULL;
        const ProfileNode *found = NULL;
        AddressSet set = { local_addresses, n_local_addresses };
        char *buf = NULL, b[MESSAGE_TEXT_BUF];
        size_t size = 0;
        FILE *f;
        int r = -ENOENT;

        if (node_name) {
                found = profile_find_node(p, node_name);
                if (found) {
                        *ret = found;
                        return 0;
                }
        } else {
                which = calloc(p->n_nodes + 1, sizeof(bool));
                if (!which)
                        return -ENOMEM;
                if (hostname) {
                        r = pick(p, which, &found, match_hostname_exact, hostname);
                        if (r == -ENOENT)
                                r = pick(p, which, &found, match_hostname_short, hostname);
                }
                if (r == -ENOENT)
                        r = pick(p, which, &found, match_address, &set);
                if (r == 0) {
                        *ret = found;
                        return 0;
                }
        }

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        if (node_name) {
                fprintf(f, "the profile has no node '%s'; its nodes are: ", text_for_message(node_name, b));
                fputs_nodes(f, p, NULL);
                fputs("; pass --node with one of these names", f);
        } else if (r == -ENOTUNIQ) {
                fputs_machine(f, hostname, local_addresses, n_local_addresses);
                fputs(" matches more than one of the profile's nodes: ", f);
                fputs_nodes(f, p, which);
                fputs("; pass --node NAME", f);
        } else {
                fputs_machine(f, hostname, local_addresses, n_local_addresses);
                fputs(" is none of the profile's nodes: ", f);
                fputs_nodes(f, p, NULL);
                fputs("; pass --node NAME", f);
        }
        return finish_error(f, &buf, r, ret_error);
}

int local_ipv4_addresses(struct in_addr **ret, size_t *ret_n) {
        struct ifaddrs *ifa = NULL;
        struct in_addr *a = NULL;
        size_t n = 0, allocated = 0;

        if (getifaddrs(&ifa) < 0)
                return negative_errno();
        for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
                if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
                        continue;
                if (n >= allocated) {
                        struct in_addr *b = reallocarray(
                                a, allocated ? allocated * 2 : 8, sizeof(struct in_addr));

                        if (!b) {
                                free(a);
                                freeifaddrs(ifa);
                                return -ENOMEM;
                        }
                        a = b;
                        allocated = allocated ? allocated * 2 : 8;
                }
                a[n++] = ((const struct sockaddr_in *) (const void *) i->ifa_addr)->sin_addr;
        }
        freeifaddrs(ifa);
        *ret = a;
        *ret_n = n;
        return 0;
}
