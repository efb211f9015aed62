/* SPDX-License-Identifier: MIT */
/* hosts.<node>: every other node's hostname resolves on this node to that node's fabric address. Ray,
 * vLLM and RCCL reach their peers by name; a name that resolves to the management network's address
 * sends the tensor traffic over the slow path, and nothing reports an error. */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "basic/etc-hosts.h"
#include "basic/strv.h"
#include "check/check-hosts.h"

/* getaddrinfo()'s error codes by name, for the summary: "EAI_AGAIN". */
const char *gai_error_name(int error) {
        switch (error) {
        case EAI_AGAIN:
                return "EAI_AGAIN";
        case EAI_FAIL:
                return "EAI_FAIL";
        case EAI_BADFLAGS:
                return "EAI_BADFLAGS";
        case EAI_FAMILY:
                return "EAI_FAMILY";
        case EAI_SERVICE:
                return "EAI_SERVICE";
        case EAI_SOCKTYPE:
                return "EAI_SOCKTYPE";
        case EAI_OVERFLOW:
                return "EAI_OVERFLOW";
        default:
                return "EAI_?";
        }
}

/* The snapshot's NSS answer for name (SNAPSHOT_NAMES), copied; -ENOMEDIUM when it did not ask. */
static int names_copy(
        const SnapshotHost *facts, const char *name, struct in_addr **ret, size_t *ret_n, int *ret_gai_error) {
        for (size_t i = 0; i < facts->n_names; i++) {
                const SnapshotName *e = &facts->names[i];

                if (!streq(e->name, name))
                        continue;
                *ret_gai_error = e->gai_error;
                if (e->error < 0)
                        return e->error;
                *ret = NULL;
                *ret_n = e->n;
                if (e->n == 0)
                        return 0;
                *ret = reallocarray(NULL, e->n, sizeof(struct in_addr));
                if (!*ret)
                        return -ENOMEM;
                memcpy(*ret, e->addresses, e->n * sizeof(struct in_addr));
                return 0;
        }
        return -ENOMEDIUM;
}

int hosts_resolve(
        const Host *h,
        const SnapshotHost *facts,
        const char *name,
        struct in_addr **ret,
        size_t *ret_n,
        char **ret_source,
        int *ret_gai_error) {
        _cleanup_(freep) char *source = NULL;
        int r, gai_error = 0;

        if (host_is_running_system(h)) {
                source = strdup("NSS");
                if (!source)
                        return -ENOMEM;
                r = names_copy(facts, name, ret, ret_n, &gai_error);
                if (ret_gai_error)
                        *ret_gai_error = gai_error;
        } else {
                r = host_path(h, ETC_HOSTS_PATH, &source);
                if (r < 0)
                        return r;
                if (facts->etc_hosts_error < 0)
                        return facts->etc_hosts_error;
                r = etc_hosts_lookup(facts->etc_hosts, name, ret, ret_n);
        }
        if (r < 0)
                return r;
        *ret_source = TAKE_PTR(source);
        return 0;
}

int hosts_addresses_to_string(const struct in_addr *addresses, size_t n, char **ret) {
        _cleanup_(strv_freep) char **l = NULL;

        for (size_t i = 0; i < n; i++) {
                char buf[INET_ADDRSTRLEN];

                (void) inet_ntop(AF_INET, &addresses[i], buf, sizeof(buf));
                if (strv_extend(&l, buf) < 0)
                        return -ENOMEM;
        }
        *ret = l ? strv_join(l, ",") : strdup("");
        return *ret ? 0 : -ENOMEM;
}

/* "10.0.0.12 (the management network?)" or "192.168.100.3 (halo-3's fabric address)". */
static int describe_address(const Profile *p, struct in_addr a, char ***l) {
        const ProfileNode *owner = profile_find_node_by_address(p, a);
        char buf[INET_ADDRSTRLEN];

        (void) inet_ntop(AF_INET, &a, buf, sizeof(buf));
        if (owner)
                return strv_extendf(l, "%s (%s's fabric address)", buf, owner->name);
        return strv_extendf(l, "%s (the management network?)", buf);
}

/* Why a lookup failed, in getaddrinfo()'s words when it gave an error code, else the errno's. */
static char *lookup_failure(int r, int gai_error) {
        char *reason;

        if (gai_error == 0)
                return strdup(strerror(-r));
        if (asprintf(
                    &reason,
                    "getaddrinfo() failed with %s (%s)",
                    gai_error_name(gai_error),
                    gai_strerror(gai_error)) < 0)
                return NULL;
        return reason;
}

/* The lookup of peer's hostname failed (r, and getaddrinfo()'s gai_error): says why, and how to fix it.
 * want is the address the name should have. */
static int hosts_lookup_failed(
        const NodeContext *c,
        const ProfileNode *peer,
        const char *id,
        const char *expected,
        const char *want,
        int r,
        int gai_error,
        CheckList *out) {
        _cleanup_(freep) char *source = NULL;

        /* A lookup that fails is what Ray, vLLM and RCCL get too: their getaddrinfo() fails the same
         * way, so the name is as good as missing until a file answers for it. */
        if (gai_error != 0 || host_is_running_system(c->host)) {
                _cleanup_(freep) char *reason = NULL;

                reason = lookup_failure(r, gai_error);
                if (!reason)
                        return -ENOMEM;
                return check_list_add(
                        out,
                        id,
                        CHECK_WARN,
                        expected,
                        NULL,
                        "could not resolve %s (node %s) through NSS: %s; the workload's lookup fails the same "
                        "way: add \"%s %s\" to /etc/hosts, or set health.hosts: manage",
                        peer->hostname,
                        peer->name,
                        reason,
                        want,
                        peer->hostname);
        }
        /* --root: a file halod cannot read says nothing of what the workload gets on that system. */
        if (host_path(c->host, ETC_HOSTS_PATH, &source) < 0)
                return -ENOMEM;
        return check_list_add(
                out,
                id,
                CHECK_WARN,
                expected,
                NULL,
                "could not look up %s (node %s): cannot read %s: %s; run haloctl check as a user who "
                "can read it",
                peer->hostname,
                peer->name,
                source,
                strerror(-r));
}

/* What peer's hostname resolved to (addresses, looked up through source) against its fabric addresses
 * (expected; want the first). */
static int hosts_judge(
        const Profile *p,
        const ProfileNode *peer,
        const char *id,
        const char *expected,
        const char *want,
        const struct in_addr *addresses,
        size_t n,
        const char *source,
        CheckList *out) {
        _cleanup_(strv_freep) char **wrong = NULL;
        _cleanup_(freep) char *actual = NULL, *wrong_text = NULL;

        for (size_t i = 0; i < n; i++)
                if (!profile_node_has_address(peer, addresses[i]) &&
                    describe_address(p, addresses[i], &wrong) < 0)
                        return -ENOMEM;
        if (hosts_addresses_to_string(addresses, n, &actual) < 0)
                return -ENOMEM;

        if (n == 0)
                return check_list_add(
                        out,
                        id,
                        CHECK_FAIL,
                        expected,
                        actual,
                        "%s (node %s) does not resolve here (looked up through %s): Ray, vLLM and RCCL cannot reach it by name; add "
                        "\"%s %s\" to /etc/hosts, or set health.hosts: manage",
                        peer->hostname,
                        peer->name,
                        source,
                        want,
                        peer->hostname);
        if (wrong) {
                wrong_text = strv_join(wrong, ", ");
                if (!wrong_text)
                        return -ENOMEM;
                return check_list_add(
                        out,
                        id,
                        CHECK_FAIL,
                        expected,
                        actual,
                        "%s resolves to %s, not %s (looked up through %s): Ray, vLLM and RCCL would reach it over the slow "
                        "path; "
                        "put \"%s %s\" in /etc/hosts before other entries of the name, or set health.hosts: manage",
                        peer->hostname,
                        wrong_text,
                        expected,
                        source,
                        want,
                        peer->hostname);
        }
        return check_list_add(
                out,
                id,
                CHECK_PASS,
                expected,
                actual,
                "%s (node %s) resolves to its fabric address %s (looked up through %s)",
                peer->hostname,
                peer->name,
                actual,
                source);
}

static int check_hosts_node(
        const NodeContext *c, const SnapshotHost *facts, const ProfileNode *peer, CheckList *out) {
        _cleanup_(strv_freep) char **want = NULL;
        _cleanup_(freep) char *id = NULL, *expected = NULL, *source = NULL;
        _cleanup_(freep) struct in_addr *addresses = NULL;
        size_t n = 0;
        int r, gai_error = 0;

        if (asprintf(&id, "hosts.%s", peer->name) < 0)
                return -ENOMEM;
        if (!peer->hostname)
                return check_list_skip(
                        out,
                        id,
                        "node %s has no hostname in the profile: nothing to resolve (add hostname: to check the "
                        "name the workload uses)",
                        peer->name);
        if (peer->n_links == 0)
                return check_list_skip(out, id, "node %s has no fabric address in the profile", peer->name);
        for (size_t k = 0; k < peer->n_links; k++) {
                char buf[INET_ADDRSTRLEN];

                (void) inet_ntop(AF_INET, &peer->links[k].address.address, buf, sizeof(buf));
                if (strv_extend(&want, buf) < 0)
                        return -ENOMEM;
        }
        expected = strv_join(want, ",");
        if (!expected)
                return -ENOMEM;

        r = hosts_resolve(c->host, facts, peer->hostname, &addresses, &n, &source, &gai_error);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return hosts_lookup_failed(c, peer, id, expected, want[0], r, gai_error, out);
        return hosts_judge(c->profile, peer, id, expected, want[0], addresses, n, source, out);
}

int check_hosts(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out) {
        int r;

        if (!c->profile || !c->node)
                return 0;
        if (!snapshot_has(s, SNAPSHOT_ETC_HOSTS | SNAPSHOT_NAMES))
                return 0; /* not selected: its caller did not read it */
        for (size_t i = 0; i < c->profile->n_nodes; i++) {
                const ProfileNode *peer = &c->profile->nodes[i];

                if (peer == c->node || streq(peer->name, c->node->name))
                        continue;
                r = check_hosts_node(c, &s->host, peer, out);
                if (r < 0)
                        return r;
        }
        return 0;
}
