/* SPDX-License-Identifier: MIT */
/* A timing harness for bench/apply.sh: runs one library call and prints how long it took, in
 * microseconds, so that process start-up and profile parsing are not counted.
 *   link-apply-tool apply-link IFNAME ADDRESS/PREFIX MTU     backend_netlink.apply_link() carrying out
 *                                                            the link's plan (planned untimed)
 *   link-apply-tool plan PROFILE NODE                        plan_node()
 *   link-apply-tool apply PROFILE NODE                       apply_node() with the netlink backend */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "apply/apply.h"
#include "basic/strv.h"
#include "basic/time-util.h"

static int apply_link(char *argv[]) {
        _cleanup_(freep) char *error = NULL;
        _cleanup_(plan_done) Plan plan = {};
        ProfileLink pl = { .name = (char *) "rdma0",
                           .match = { .name = argv[0] },
                           .mtu = (uint32_t) atoi(argv[2]) };
        NodeLink nl = { .link = (char *) "rdma0" };
        ProfileNode node = { .name = (char *) "bench", .links = &nl, .n_links = 1 };
        Profile p = { .mode = PROFILE_MODE_ENFORCE, .links = &pl, .n_links = 1, .nodes = &node, .n_nodes = 1 };
        Host h = HOST_SYSTEM;
        NodeContext c = { .host = &h, .profile = &p, .node = &node };
        usec_t t;
        int r;

        if (ipv4_prefix_from_string(argv[1], &nl.address) < 0) {
                fprintf(stderr, "Invalid address %s: expected ADDRESS/PREFIX.\n", argv[1]);
                return EXIT_FAILURE;
        }
        r = plan_node(&c, &plan);
        if (r < 0 || plan_has_errors(&plan)) {
                fprintf(stderr, "plan: %s\n", r < 0 ? strerror(-r) : plan.links[0].error);
                return EXIT_FAILURE;
        }
        t = now(CLOCK_MONOTONIC);
        r = backend_netlink.apply_link(&plan.links[0], &error);
        t = now(CLOCK_MONOTONIC) - t;
        if (r < 0) {
                fprintf(stderr, "apply_link: %s\n", error ?: strerror(-r));
                return EXIT_FAILURE;
        }
        printf("%" PRIu64 "\n", t);
        return EXIT_SUCCESS;
}

static int with_profile(const char *verb, char *argv[]) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(plan_changes_done) PlanChanges changes = {};
        _cleanup_(freep) char *error = NULL;
        _cleanup_(plan_done) Plan plan = {};
        Host h = HOST_SYSTEM;
        NodeContext c = { .host = &h };
        usec_t t;
        int r;

        r = profile_load_file(argv[0], &p, &errors);
        if (r < 0) {
                fprintf(stderr, "%s: cannot load: %s\n", argv[0], errors ? errors[0] : strerror(-r));
                return EXIT_FAILURE;
        }
        c.profile = p;
        c.node = profile_find_node(p, argv[1]);
        if (!c.node) {
                fprintf(stderr, "%s: no node %s\n", argv[0], argv[1]);
                return EXIT_FAILURE;
        }

        t = now(CLOCK_MONOTONIC);
        if (streq(verb, "plan"))
                r = plan_node(&c, &plan);
        else
                r = apply_node(&c, &backend_netlink, 0, /* snapshot= */ NULL, &changes, &error);
        t = now(CLOCK_MONOTONIC) - t;
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", verb, error ?: strerror(-r));
                return EXIT_FAILURE;
        }
        if (streq(verb, "plan") && !plan_is_empty(&plan)) {
                fprintf(stderr, "plan: the link is not applied yet\n");
                return EXIT_FAILURE;
        }
        printf("%" PRIu64 "\n", t);
        return EXIT_SUCCESS;
}

int main(int argc, char *argv[]) {
        if (argc == 5 && streq(argv[1], "apply-link"))
                return apply_link(argv + 2);
        if (argc == 4 && (streq(argv[1], "plan") || streq(argv[1], "apply")))
                return with_profile(argv[1], argv + 2);
        fprintf(stderr,
                "Usage: %s apply-link IFNAME ADDRESS/PREFIX MTU | plan PROFILE NODE | apply PROFILE NODE\n",
                argv[0]);
        return EXIT_FAILURE;
}
