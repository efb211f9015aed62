/* SPDX-License-Identifier: MIT */
/* Tests for the routes of a node: the route parser on a dump captured from a real kernel (the
 * fuzz-rtnl-route corpus: a namespace with a halod route, a foreign one with a metric, a route in
 * table 100 and a blackhole, which the parser leaves out) and on malformed messages; the profile's
 * routes: and forwarding:; the plan's decisions (missing, replaced, present, stray halod routes,
 * forwarding) and their change records; and the link.<name>.routes/forwarding checks. */
#include <arpa/inet.h>

#include "basic/fileio.h"
#include "basic/strv.h"
#include "check/check-routes.h"
#include "plan/route-plan.h"
#include "profile/profile.h"
#include "tests.h"

#define CORPUS TEST_DATA_DIR "/../fuzz/corpus/fuzz-rtnl-route/"
#define HALOD RTNL_ROUTE_PROTO_HALOD

static void test_captured(void) {
        _cleanup_(strv_freep) char **lines = NULL;
        _cleanup_(freep) char *data = NULL, *joined = NULL;
        _cleanup_(freep) RtnlRoute *routes = NULL;
        size_t size, n = 0;

        ASSERT_OK(read_full_file(CORPUS "getroute-dump-inet-0", 1024 * 1024, &data, &size));
        ASSERT_OK(rtnl_parse_routes(data, size, &routes, &n));
        for (size_t i = 0; i < n; i++) {
                char s[RTNL_ROUTE_STRING_MAX];

                ASSERT_OK(strv_extendf(
                        &lines,
                        "%s dev %d proto %u",
                        rtnl_route_to_string(&routes[i], s),
                        routes[i].ifindex,
                        routes[i].protocol));
        }
        joined = strv_join(lines, "\n");
        ASSERT_STR_EQ(
                joined,
                "10.0.1.0/24 dev 3 proto 2\n"
                "10.0.2.0/24 via 10.0.1.2 dev 3 proto 104\n"
                "10.0.3.0/24 via 10.0.1.3 metric 50 dev 3 proto 3");
        data = mfree(data);
        ASSERT_OK(read_full_file(CORPUS "getroute-dump-inet-1", 1024 * 1024, &data, &size));
        ASSERT_OK(rtnl_parse_routes(data, size, &routes, &n));
        ASSERT_INT_EQ(n, 3); /* NLMSG_DONE: nothing more */
}

static int count_routes(const RtnlEvent *e, void *userdata) {
        size_t *n = userdata;

        ASSERT_INT_EQ(e->type, RTNL_EVENT_NEW_ROUTE);
        ASSERT_TRUE(e->route && !e->link && !e->address);
        (*n)++;
        return 0;
}

/* The monitor socket sees the same messages: the main table's three routes are events, the rest not. */
static void test_events(void) {
        _cleanup_(freep) char *data = NULL;
        size_t size, n = 0;

        ASSERT_OK(read_full_file(CORPUS "getroute-dump-inet-0", 1024 * 1024, &data, &size));
        ASSERT_OK(rtnl_parse_events(data, size, count_routes, &n));
        ASSERT_INT_EQ(n, 3);
}

static void test_malformed(void) {
        struct {
                uint32_t len;
                uint16_t type, flags;
                uint32_t seq, pid;
                uint8_t payload[12];
        } __attribute__((packed)) m = { 16 + 12, 24 /* RTM_NEWROUTE */, 0, 0, 0, { AF_INET, 24 } };
        RtnlRoute *routes = NULL;
        size_t n = 0;

        /* An rtmsg with a destination length and no RTA_DST. */
        ASSERT_INT_EQ(rtnl_parse_routes(&m, sizeof(m), &routes, &n), -EBADMSG);
        /* Cut short. */
        ASSERT_INT_EQ(rtnl_parse_routes(&m, 20, &routes, &n), -EBADMSG);
        m.payload[1] = 33;
        ASSERT_INT_EQ(rtnl_parse_routes(&m, sizeof(m), &routes, &n), -EBADMSG);
        ASSERT_INT_EQ(n, 0);
        free(routes);
}

static Profile *load(const char *yaml) {
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *joined = NULL;
        Profile *p = NULL;
        int r = profile_load_string("t.yaml", yaml, strlen(yaml), &p, &errors);

        if (r < 0) {
                joined = strv_join(errors, "\n");
                fprintf(stderr, "%s\n", strna(joined));
                abort();
        }
        return p;
}

#define CHAIN                                                                        \
        "cluster: t\n"                                                               \
        "links: { left: { match: { name: l0 } }, right: { match: { name: r0 } } }\n" \
        "nodes:\n"                                                                   \
        "  n1:\n"                                                                    \
        "    links: { left: 10.0.1.1/24 }\n"                                         \
        "    routes:\n"                                                              \
        "      - { to: 10.0.3.0/24, via: 10.0.1.2, metric: 20 }\n"                   \
        "      - { to: 10.0.2.0/24, via: 10.0.1.2 }\n"                               \
        "  n2:\n"                                                                    \
        "    links: { left: 10.0.1.2/24, right: 10.0.2.2/24 }\n"                     \
        "    forwarding: true\n"

static void test_profile(void) {
        _cleanup_(profile_freep) Profile *p = load(CHAIN);
        const ProfileNode *n1 = profile_find_node(p, "n1"), *n2 = profile_find_node(p, "n2");
        char a[IPV4_PREFIX_STRING_MAX];

        ASSERT_INT_EQ(n1->n_routes, 2);
        /* Sorted by destination, each tied to the link whose subnet holds its gateway. */
        ASSERT_STR_EQ(ipv4_prefix_to_string(&n1->routes[0].to, a), "10.0.2.0/24");
        ASSERT_TRUE(!n1->routes[0].has_metric);
        ASSERT_STR_EQ(n1->routes[1].link, "left");
        ASSERT_TRUE(n1->routes[1].has_metric && n1->routes[1].metric == 20);
        ASSERT_TRUE(!n1->forwarding);
        ASSERT_TRUE(n2->forwarding);
        ASSERT_INT_EQ(n2->n_routes, 0);
}

static RtnlRoute route(const char *to, const char *via, int ifindex, uint32_t metric, uint8_t proto) {
        Ipv4Prefix p;
        RtnlRoute r = { .ifindex = ifindex, .metric = metric, .protocol = proto };

        ASSERT_OK(ipv4_prefix_from_string(to, &p));
        r.dst = p.address;
        r.dst_len = p.prefixlen;
        if (via)
                ASSERT_TRUE(inet_pton(AF_INET, via, &r.gateway) == 1);
        return r;
}

/* The change lines of the link left (ifindex 3) of n1 against the kernel's routes. */
static char *plan_lines(const ProfileNode *node, const RtnlRoute *routes, size_t n, int forwarding) {
        _cleanup_(plan_changes_done) PlanChanges c = {};
        _cleanup_(strv_freep) char **l = NULL;
        LinkPlan lp = { .link = (char *) "left", .ifname = (char *) "l0", .ifindex = 3 };
        char *joined;

        ASSERT_OK(link_plan_routes_compute(node, "left", routes, n, forwarding, &lp));
        ASSERT_OK(link_plan_routes_changes(&lp, &c));
        for (size_t i = 0; i < c.n_changes; i++) {
                _cleanup_(freep) char *s = plan_change_describe(&c.changes[i]);

                ASSERT_TRUE(s);
                ASSERT_OK(strv_extend(&l, s));
        }
        link_plan_routes_free(lp.routes);
        joined = l ? strv_join(l, "\n") : strdup("");
        ASSERT_TRUE(joined);
        return joined;
}

static void test_plan(void) {
        _cleanup_(profile_freep) Profile *p = load(CHAIN);
        const ProfileNode *n1 = profile_find_node(p, "n1"), *n2 = profile_find_node(p, "n2");
        const RtnlRoute connected = route("10.0.1.0/24", NULL, 3, 0, 2);
        struct {
                RtnlRoute k[4];
                size_t n;
                const char *expected;
        } cases[] = {
                /* Nothing in the kernel: both added, in destination order. */
                { { connected },
                  1,
                  "left (l0): route + 10.0.2.0/24 via 10.0.1.2\n"
                  "left (l0): route + 10.0.3.0/24 via 10.0.1.2 metric 20" },
                /* Present, whoever added them; without a metric in the profile any metric does. */
                { { connected,
                    route("10.0.2.0/24", "10.0.1.2", 3, 100, 3),
                    route("10.0.3.0/24", "10.0.1.2", 3, 20, HALOD) },
                  3,
                  "" },
                /* Another gateway, the wrong metric, another link: replaced, added. */
                { { route("10.0.2.0/24", "10.0.1.9", 3, 0, 3), route("10.0.3.0/24", "10.0.1.2", 3, 30, 3) },
                  2,
                  "left (l0): route 10.0.2.0/24 via 10.0.1.9 → 10.0.2.0/24 via 10.0.1.2\n"
                  "left (l0): route 10.0.3.0/24 via 10.0.1.2 metric 30 → 10.0.3.0/24 via 10.0.1.2 metric 20" },
                /* halod's old routes go (on this link only); a foreign one stays; halod's old route that
                 * the replace overwrites in place is not removed as well. */
                { { route("10.0.2.0/24", "10.0.1.2", 3, 0, 3),
                    route("10.0.3.0/24", "10.0.1.8", 3, 20, HALOD),
                    route("10.0.9.0/24", "10.0.1.2", 3, 0, HALOD),
                    route("10.0.8.0/24", "10.0.1.2", 4, 0, HALOD) },
                  4,
                  "left (l0): route 10.0.3.0/24 via 10.0.1.8 metric 20 → 10.0.3.0/24 via 10.0.1.2 metric 20\n"
                  "left (l0): route - 10.0.9.0/24 via 10.0.1.2 (halod's, no longer in the profile)" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(freep) char *s = plan_lines(n1, cases[i].k, cases[i].n, -ENOMEDIUM);

                ASSERT_STR_EQ(s, cases[i].expected);
        }

        /* Forwarding: turned on when off, left alone when on, unknown, or not asked for. */
        {
                _cleanup_(freep) char *off = plan_lines(n2, NULL, 0, 0), *on = plan_lines(n2, NULL, 0, 1),
                                      *unknown = plan_lines(n2, NULL, 0, -ENOENT),
                                      *not_asked = plan_lines(n1, &connected, 0, 0);

                ASSERT_STR_EQ(off, "left (l0): forwarding off → on");
                ASSERT_STR_EQ(on, "");
                ASSERT_STR_EQ(unknown, "");
                ASSERT_STR_EQ(
                        not_asked,
                        "left (l0): route + 10.0.2.0/24 via 10.0.1.2\n"
                        "left (l0): route + 10.0.3.0/24 via 10.0.1.2 metric 20");
        }
}

static void test_checks(void) {
        _cleanup_(profile_freep) Profile *p = load(CHAIN);
        const ProfileNode *n1 = profile_find_node(p, "n1"), *n2 = profile_find_node(p, "n2");
        RtnlRoute k[] = { route("10.0.2.0/24", "10.0.1.9", 3, 0, 3),
                          route("10.0.3.0/24", "10.0.1.2", 3, 20, 3) };
        LinkPlan lp = { .link = (char *) "left", .ifname = (char *) "l0", .ifindex = 3 };
        _cleanup_(check_list_done) CheckList out = {};

        ASSERT_OK(link_plan_routes_compute(n1, "left", k, ELEMENTSOF(k), -ENOMEDIUM, &lp));
        ASSERT_OK(check_link_routes(n1, &n1->links[0], &lp, -ENOMEDIUM, NULL, &out));
        ASSERT_INT_EQ(out.n_checks, 1);
        ASSERT_STR_EQ(out.checks[0].id, "link.left.routes");
        ASSERT_INT_EQ(out.checks[0].outcome, CHECK_FAIL);
        ASSERT_STR_EQ(
                out.checks[0].summary,
                "left (l0): 10.0.2.0/24 via 10.0.1.2 is 10.0.2.0/24 via 10.0.1.9 (the kernel's main table); haloctl "
                "apply adds them");
        link_plan_routes_free(lp.routes);
        lp.routes = NULL;

        /* The right link of n2: no routes, forwarding asked: only link.right.forwarding. */
        ASSERT_OK(check_link_routes(n2, &n2->links[1], &lp, 0, NULL, &out));
        ASSERT_INT_EQ(out.n_checks, 2);
        ASSERT_STR_EQ(out.checks[1].id, "link.right.forwarding");
        ASSERT_INT_EQ(out.checks[1].outcome, CHECK_FAIL);
        ASSERT_OK(check_link_routes(n2, &n2->links[1], &lp, 1, NULL, &out));
        ASSERT_INT_EQ(out.checks[2].outcome, CHECK_PASS);
}

int main(void) {
        test_captured();
        test_events();
        test_malformed();
        test_profile();
        test_plan();
        test_checks();
        return 0;
}
