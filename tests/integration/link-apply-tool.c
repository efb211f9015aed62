/* SPDX-License-Identifier: MIT */
/* A timing harness for bench/apply.sh: runs one library call and prints how long it took, in
 * microseconds, so that process start-up and profile parsing are not counted.
 *   link-apply-tool apply-link IFNAME ADDRESS/PREFIX MTU     backend_netlink.apply_link()
 *   link-apply-tool plan PROFILE NODE                        plan_node()
 *   link-apply-tool apply PROFILE NODE                       apply_node() with the netlink backend */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "apply/apply.h"
#include "basic/strv.h"

static long long now_us(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long) ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int apply_link(char *argv[]) {
        _cleanup_(freep) char *error = NULL;
        LinkConfig cfg = { .link = "rdma0", .ifname = argv[0], .mtu = (uint32_t) atoi(argv[2]) };
        long long t;
        int r;

        if (ipv4_prefix_from_string(argv[1], &cfg.address) < 0) {
                fprintf(stderr, "Invalid address %s: expected ADDRESS/PREFIX.\n", argv[1]);
                return EXIT_FAILURE;
        }
        t = now_us();
        r = backend_netlink.apply_link(&cfg, &error);
        t = now_us() - t;
        if (r < 0) {
                fprintf(stderr, "apply_link: %s\n", error ?: strerror(-r));
                return EXIT_FAILURE;
        }
        printf("%lld\n", t);
        return EXIT_SUCCESS;
}

static int with_profile(const char *verb, char *argv[]) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL, **changes = NULL;
        _cleanup_(freep) char *error = NULL;
        _cleanup_(plan_done) Plan plan = {};
        Host h = HOST_SYSTEM;
        NodeContext c = { .host = &h };
        long long t;
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

        t = now_us();
        if (streq(verb, "plan"))
                r = plan_node(&c, &plan);
        else
                r = apply_node(&c, &backend_netlink, &changes, &error);
        t = now_us() - t;
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", verb, error ?: strerror(-r));
                return EXIT_FAILURE;
        }
        if (streq(verb, "plan") && !plan_is_empty(&plan)) {
                fprintf(stderr, "plan: the link is not applied yet\n");
                return EXIT_FAILURE;
        }
        printf("%lld\n", t);
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
