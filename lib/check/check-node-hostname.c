/* SPDX-License-Identifier: MIT */
/* node.hostname: this node's own hostname does not resolve to a loopback address. Debian's and Ubuntu's
 * installers write "127.0.1.1 <hostname>" into /etc/hosts (the Debian Reference, "The hostname
 * resolution": a host with a permanent address should have that address there instead); Gloo
 * (torch.distributed) and MPI launchers resolve the node's own name when no interface is pinned, and
 * then announce 127.0.1.1 to their peers, who cannot reach it. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "basic/etc-hosts.h"
#include "check/check-hosts.h"
#include "check/check-node.h"

#define NODE_HOSTNAME_ID "node.hostname"
/* The field separators of an /etc/hosts line, as glibc's files module reads it. */
#define WHITESPACE " \t\r"

static bool is_loopback(struct in_addr a) {
        return (ntohl(a.s_addr) >> 24) == 127;
}

/* Whether the cluster reaches its nodes by name: another node has a hostname in the profile, or halod
 * keeps their names in /etc/hosts. Else only a workload that resolves names itself would. */
static bool names_in_use(const NodeContext *c) {
        if (c->profile->health.hosts == HOSTS_POLICY_MANAGE)
                return true;
        for (size_t i = 0; i < c->profile->n_nodes; i++)
                if (&c->profile->nodes[i] != c->node && c->profile->nodes[i].hostname)
                        return true;
        return false;
}

/* The fix's address: this node's first fabric address. */
static void fabric_address(const ProfileNode *n, char buf[static INET_ADDRSTRLEN]) {
        if (n->n_links == 0 || !inet_ntop(AF_INET, &n->links[0].address.address, buf, INET_ADDRSTRLEN))
                snprintf(buf, INET_ADDRSTRLEN, "FABRIC-ADDRESS");
}

/* The length of name up to its first dot: its host label. */
static size_t host_label_length(const char *name) {
        return strcspn(name, ".");
}

/* Whether an /etc/hosts line names anything other than this host (its name, or a name of the same host
 * label: halo-1 and halo-1.lab.example), such as localhost: then the fix is not to rewrite the line,
 * which would take that name off the loopback address too. 1, 0 or -ENOMEM. */
static int line_has_other_names(const char *line, const char *name) {
        _cleanup_(freep) char *copy = strdup(line);
        size_t label = host_label_length(name);
        char *save = NULL, *field, *hash;

        if (!copy)
                return -ENOMEM;
        hash = strchr(copy, '#');
        if (hash)
                *hash = '\0';
        if (!strtok_r(copy, WHITESPACE, &save)) /* the address */
                return 0;
        while ((field = strtok_r(NULL, WHITESPACE, &save)))
                if (host_label_length(field) != label || strncasecmp(field, name, label) != 0)
                        return 1;
        return 0;
}

/* The fix for a loopback line: rewrite it when it names only this host, else take the name off it. */
static int loopback_fix(const char *name, const char *line, const char *lo, const char *fabric, char **ret) {
        int r = line_has_other_names(line, name);

        if (r < 0)
                return r;
        if (r > 0)
                return asprintf(
                               ret,
                               "take %s off that line (its other names stay) and add \"%s %s\" to " ETC_HOSTS_PATH
                               ", this node's fabric address instead of %s",
                               name,
                               fabric,
                               name,
                               lo) < 0
                        ? -ENOMEM
                        : 0;
        return asprintf(
                       ret,
                       "make that line \"%s %s\" in " ETC_HOSTS_PATH
                       ", this node's fabric address instead of %s%s",
                       fabric,
                       name,
                       streq(lo, "127.0.1.1") ? "Debian's " : "",
                       lo) < 0
                ? -ENOMEM
                : 0;
}

/* The name resolves to loopback (first): fails where the cluster uses names, else warns; names the
 * /etc/hosts line that says so (number 0: no line does, another NSS module answered). */
static int judge_loopback(
        const NodeContext *c,
        const char *name,
        const char *actual,
        const char *source,
        struct in_addr loopback,
        unsigned number,
        const char *line,
        CheckList *out) {
        _cleanup_(freep) char *where = NULL, *fix = NULL;
        char lo[INET_ADDRSTRLEN], fabric[INET_ADDRSTRLEN];
        bool used = names_in_use(c);

        (void) inet_ntop(AF_INET, &loopback, lo, sizeof(lo));
        fabric_address(c->node, fabric);
        if (number > 0 ? asprintf(&where, "line %u of " ETC_HOSTS_PATH ", \"%s\"", number, line) < 0
                       : asprintf(&where, "no line of " ETC_HOSTS_PATH " (another NSS module answered)") < 0)
                return -ENOMEM;
        if (number > 0
                    ? loopback_fix(name, line, lo, fabric, &fix) < 0
                    : asprintf(&fix, "add \"%s %s\" in " ETC_HOSTS_PATH " before other lines", fabric, name) <
                            0)
                return -ENOMEM;
        return check_list_add(
                out,
                NODE_HOSTNAME_ID,
                used ? CHECK_FAIL : CHECK_WARN,
                "not loopback",
                actual,
                "this node's hostname %s resolves to the loopback address %s (looked up through %s; %s): "
                "Gloo (torch.distributed) and MPI launchers that resolve their own name announce %s to the "
                "%s, who cannot reach it; %s",
                name,
                lo,
                source,
                where,
                lo,
                used ? "other nodes" : "other nodes (this profile names none, but a workload may)",
                fix);
}

static int judge(const NodeContext *c, const SnapshotHost *facts, const char *name, CheckList *out) {
        _cleanup_(freep) struct in_addr *addresses = NULL;
        _cleanup_(freep) char *source = NULL, *actual = NULL, *line = NULL;
        char fabric[INET_ADDRSTRLEN];
        size_t n = 0;
        int r, gai_error = 0;

        r = hosts_resolve(c->host, facts, name, &addresses, &n, &source, &gai_error);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return check_list_skip(
                        out,
                        NODE_HOSTNAME_ID,
                        "could not look up this node's hostname %s: %s",
                        name,
                        gai_error != 0 ? gai_error_name(gai_error) : strerror(-r));
        if (hosts_addresses_to_string(addresses, n, &actual) < 0)
                return -ENOMEM;
        if (n == 0)
                return check_list_add(
                        out,
                        NODE_HOSTNAME_ID,
                        CHECK_WARN,
                        "not loopback",
                        actual,
                        "this node's hostname %s does not resolve (looked up through %s): Gloo and MPI launchers "
                        "that resolve their own name fail; add \"%s %s\" to " ETC_HOSTS_PATH,
                        name,
                        source,
                        (fabric_address(c->node, fabric), fabric),
                        name);

        for (size_t i = 0; i < n; i++) {
                unsigned number = 0;

                if (!is_loopback(addresses[i]))
                        continue;
                if (facts->etc_hosts) {
                        r = etc_hosts_find_line(facts->etc_hosts, name, addresses[i], &number, &line);
                        if (r < 0)
                                return r;
                }
                return judge_loopback(c, name, actual, source, addresses[i], number, line, out);
        }
        return check_list_add(
                out,
                NODE_HOSTNAME_ID,
                CHECK_PASS,
                "not loopback",
                actual,
                "this node's hostname %s resolves to %s%s (looked up through %s), not to loopback",
                name,
                actual,
                profile_node_has_address(c->node, addresses[0]) ? ", its fabric address" : "",
                source);
}

int check_node_hostname(const NodeContext *c, const Snapshot *s, CheckList *out) {
        const SnapshotHost *facts = &s->host;

        if (!c->profile || !c->node)
                return 0;
        if (!snapshot_has(s, SNAPSHOT_ETC_HOSTS))
                return 0; /* not selected: its caller did not read it */
        if (facts->hostname)
                return judge(c, facts, facts->hostname, out);
        /* Below --root a tree may carry no /etc/hostname: the profile says what the node is called. */
        if (c->node->hostname)
                return judge(c, facts, c->node->hostname, out);
        return check_list_skip(
                out,
                NODE_HOSTNAME_ID,
                "could not look: this node's hostname is unknown (%s: %s) and node %s has no hostname in the "
                "profile",
                ETC_HOSTNAME_PATH,
                strerror(-facts->hostname_error),
                c->node->name);
}
