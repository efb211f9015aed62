/* SPDX-License-Identifier: MIT */
/* Tests for planning and link checks from hand-built kernel and firewalld state: the plan of one
 * link, the stray-address rule, plan_describe()'s lines, the change records and the link.* checks,
 * which report from the plan. */
#include <arpa/inet.h>
#include <net/if.h>

#include <linux/if.h>
#include <linux/if_addr.h>

#include "basic/strv.h"
#include "check/check-link.h"
#include "plan/plan.h"
#include "tests.h"

static Ipv4Prefix prefix(const char *s) {
        Ipv4Prefix p;

        ASSERT_OK(ipv4_prefix_from_string(s, &p));
        return p;
}

static RtnlAddress addr(int ifindex, const char *s, uint8_t proto, uint32_t flags) {
        Ipv4Prefix p = prefix(s);

        return (RtnlAddress){
                .ifindex = ifindex, .address = p.address, .prefixlen = p.prefixlen, .proto = proto, .flags = flags
        };
}

#define HALOD RTNL_ADDRESS_PROTO_HALOD

static void test_stray(void) {
        static const struct {
                const char *address;
                uint8_t proto;
                bool stray;
        } cases[] = {
                { "192.168.100.1/30", 0, false },     /* the wanted address itself */
                { "192.168.100.1/30", HALOD, false }, /* ... also when halod put it there */
                { "192.168.100.1/24", 0, true },      /* the wanted address, wrong prefix */
                { "192.168.100.2/30", 0, true },      /* inside the wanted subnet */
                { "192.168.100.2/24", 0, true },      /* ... whatever its own prefix */
                { "192.168.100.5/30", 0, false },     /* somebody else's, next subnet */
                { "192.168.100.5/30", HALOD, true },  /* halod's, from an older profile */
                { "10.0.0.1/8", 0, false },           { "10.0.0.1/8", HALOD, true },
                { "192.168.0.1/16", 0, false }, /* a wider subnet that contains ours: not ours */
        };
        Ipv4Prefix want = prefix("192.168.100.1/30");

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                RtnlAddress a = addr(2, cases[i].address, cases[i].proto, 0);

                if (address_is_stray(&a, &want) != cases[i].stray) {
                        fprintf(stderr,
                                "%s proto %u: expected stray=%d\n",
                                cases[i].address,
                                cases[i].proto,
                                cases[i].stray);
                        abort();
                }
        }
}

static void test_removed_with_secondaries(void) {
        RtnlAddress a[] = {
                addr(2, "192.168.100.5/30", HALOD, 0),
                addr(2, "192.168.100.6/30", 0, IFA_F_SECONDARY), /* goes with .5 */
                addr(2, "192.168.100.9/30", 0, 0),
                addr(2, "192.168.100.10/30", 0, IFA_F_SECONDARY), /* its primary stays */
        };
        RtnlLink l = { .ifindex = 2, .addresses = a, .n_addresses = ELEMENTSOF(a) };
        Ipv4Prefix want = prefix("192.168.100.1/30");

        ASSERT_TRUE(address_is_removed(&l, 0, &want));
        ASSERT_TRUE(address_is_removed(&l, 1, &want));
        ASSERT_TRUE(!address_is_removed(&l, 2, &want));
        ASSERT_TRUE(!address_is_removed(&l, 3, &want));
}

/* The host: eno1 with the management address, and the fabric port in whatever state a case gives. */
typedef struct Host2 {
        RtnlAddress eno1_addresses[1];
        RtnlAddress port_addresses[4];
        RtnlLink links[2];
        RtnlState state;
} Host2;

static void host_init(
        Host2 *h, uint32_t mtu, bool up, const RtnlAddress *port, size_t n_port, const char *eno1_address) {
        *h = (Host2){};
        h->eno1_addresses[0] = addr(1, eno1_address, 0, 0);
        for (size_t i = 0; i < n_port; i++)
                h->port_addresses[i] = port[i];
        h->links[0] = (RtnlLink){ .ifindex = 1,
                                  .name = "eno1",
                                  .mtu = 1500,
                                  .flags = IFF_UP | IFF_LOWER_UP,
                                  .addresses = h->eno1_addresses,
                                  .n_addresses = 1 };
        h->links[1] = (RtnlLink){ .ifindex = 2,
                                  .name = "enp194s0f0np0",
                                  .mtu = mtu,
                                  .max_mtu = 9702,
                                  .flags = up ? IFF_UP | IFF_LOWER_UP : 0,
                                  .operstate = up ? IF_OPER_UP : IF_OPER_DOWN,
                                  .addresses = h->port_addresses,
                                  .n_addresses = n_port };
        h->state = (RtnlState){ .links = h->links, .n_links = 2 };
}

static ProfileLink profile_link = { .name = (char *) "rdma0",
                                    .match = { .driver = (char *) "ice" },
                                    .mtu = 9000,
                                    .firewall_zone = (char *) "trusted" };

static void expect_lines(const LinkPlan *lp, const char *const *want) {
        _cleanup_(strv_freep) char **lines = NULL;
        Plan p = { .links = (LinkPlan *) lp, .n_links = 1 };
        size_t n = 0;

        ASSERT_OK(plan_describe(&p, &lines));
        for (; want[n]; n++) {
                ASSERT_TRUE(n < strv_length(lines));
                ASSERT_STR_EQ(lines[n], want[n]);
        }
        ASSERT_INT_EQ(strv_length(lines), n);
}

static void test_plans(void) {
        char *zones_both[] = { (char *) "public", (char *) "trusted", NULL };
        char *zones_public[] = { (char *) "public", NULL };
        NodeLink nl = { .link = (char *) "rdma0", .address = prefix("192.168.100.1/30") };
        RtnlAddress applied[] = { addr(2, "192.168.100.1/30", HALOD, 0) };
        RtnlAddress old[] = { addr(2, "192.168.100.5/30", HALOD, 0), addr(2, "10.1.1.1/24", 0, 0) };
        FirewallView no_fw = {};
        FirewallView fw_trusted = { .running = true, .zone = "trusted" };
        FirewallView fw_public = { .running = true, .zone = "public", .zones = zones_both };
        FirewallView fw_none = { .running = true, .zone = "", .zones = zones_both };
        FirewallView fw_missing = { .running = true, .zone = "public", .zones = zones_public };
        Host2 h;
        LinkPlan lp;

        /* A fresh port: everything to do; no firewalld, so nothing about the zone. */
        host_init(&h, 1500, false, NULL, 0, "10.0.0.5/24");
        ASSERT_OK(link_plan_compute(&profile_link, &nl, "enp194s0f0np0", NULL, &h.state, &no_fw, NULL, &lp));
        ASSERT_TRUE(!lp.error && !link_plan_is_empty(&lp));
        ASSERT_INT_EQ(lp.mtu_from, 1500);
        ASSERT_INT_EQ(lp.mtu_to, 9000);
        expect_lines(
                &lp,
                (const char *const[]){ "rdma0 (enp194s0f0np0): mtu 1500 → 9000",
                                       "rdma0 (enp194s0f0np0): link down → up",
                                       "rdma0 (enp194s0f0np0): + 192.168.100.1/30",
                                       NULL });
        link_plan_done(&lp);

        /* Applied: nothing to do, nothing to say. */
        host_init(&h, 9000, true, applied, 1, "10.0.0.5/24");
        ASSERT_OK(link_plan_compute(
                &profile_link, &nl, "enp194s0f0np0", NULL, &h.state, &fw_trusted, NULL, &lp));
        ASSERT_TRUE(!lp.error && link_plan_is_empty(&lp));
        expect_lines(&lp, (const char *const[]){ NULL });
        link_plan_done(&lp);

        /* Only the zone differs. */
        ASSERT_OK(link_plan_compute(
                &profile_link, &nl, "enp194s0f0np0", NULL, &h.state, &fw_public, NULL, &lp));
        expect_lines(&lp, (const char *const[]){ "rdma0 (enp194s0f0np0): zone public → trusted", NULL });
        link_plan_done(&lp);
        ASSERT_OK(link_plan_compute(&profile_link, &nl, "enp194s0f0np0", NULL, &h.state, &fw_none, NULL, &lp));
        expect_lines(&lp, (const char *const[]){ "rdma0 (enp194s0f0np0): zone (none) → trusted", NULL });
        link_plan_done(&lp);

        /* A zone firewalld does not have. */
        ASSERT_OK(link_plan_compute(
                &profile_link, &nl, "enp194s0f0np0", NULL, &h.state, &fw_missing, NULL, &lp));
        ASSERT_STR_EQ(
                lp.error,
                "firewalld has no zone 'trusted' (zones: public); fix firewall-zone in the profile or create "
                "the zone with firewall-cmd --permanent --new-zone=trusted");
        ASSERT_TRUE(plan_has_errors(&(Plan){ .links = &lp, .n_links = 1 }));
        ASSERT_TRUE(!plan_is_empty(&(Plan){ .links = &lp, .n_links = 1 }));
        link_plan_done(&lp);

        /* An older profile's address goes, somebody else's stays. */
        host_init(&h, 9000, true, old, 2, "10.0.0.5/24");
        ASSERT_OK(link_plan_compute(&profile_link, &nl, "enp194s0f0np0", NULL, &h.state, &no_fw, NULL, &lp));
        expect_lines(
                &lp,
                (const char *const[]){ "rdma0 (enp194s0f0np0): - 192.168.100.5/30",
                                       "rdma0 (enp194s0f0np0): + 192.168.100.1/30",
                                       NULL });
        link_plan_done(&lp);

        /* The address is already another interface's. */
        host_init(&h, 1500, true, NULL, 0, "192.168.100.1/24");
        ASSERT_OK(link_plan_compute(&profile_link, &nl, "enp194s0f0np0", NULL, &h.state, &no_fw, NULL, &lp));
        ASSERT_STR_EQ(
                lp.error,
                "address 192.168.100.1/30 is already used by eno1; remove it there (ip addr del "
                "192.168.100.1/30 dev eno1) or give this node another address in the profile");
        expect_lines(
                &lp,
                (const char *const[]){ "rdma0 (enp194s0f0np0): cannot apply: address 192.168.100.1/30 is "
                                       "already used by eno1; remove it there (ip addr del 192.168.100.1/30 "
                                       "dev eno1) or give this node another address in the profile",
                                       NULL });
        link_plan_done(&lp);

        /* Not resolved, or resolved but not in the kernel. */
        ASSERT_OK(link_plan_compute(
                &profile_link, &nl, NULL, "no network interface matches driver ice", &h.state, &no_fw, NULL, &lp));
        expect_lines(
                &lp,
                (const char *const[]){ "rdma0: cannot apply: no network interface matches driver ice", NULL });
        link_plan_done(&lp);
        ASSERT_OK(link_plan_compute(&profile_link, &nl, "enp1s0", NULL, &h.state, &no_fw, NULL, &lp));
        ASSERT_TRUE(
                lp.error && strstr(lp.error, "enp1s0 is listed in /sys/class/net but the kernel's link table"));
        link_plan_done(&lp);

        /* A profile that leaves the MTU alone. */
        ProfileLink keep_mtu = profile_link;
        keep_mtu.mtu = 0;
        host_init(&h, 1500, true, applied, 1, "10.0.0.5/24");
        ASSERT_OK(link_plan_compute(&keep_mtu, &nl, "enp194s0f0np0", NULL, &h.state, &no_fw, NULL, &lp));
        ASSERT_TRUE(link_plan_is_empty(&lp));
        link_plan_done(&lp);
}

typedef struct Want {
        const char *id;
        CheckOutcome outcome;
        const char *summary;
} Want;

static void expect_checks(const CheckList *l, const Want *want, size_t n) {
        ASSERT_INT_EQ(l->n_checks, n);
        for (size_t i = 0; i < n; i++) {
                const Check *c = check_list_find(l, want[i].id);

                ASSERT_TRUE(c);
                if (c->outcome != want[i].outcome || !streq(c->summary, want[i].summary)) {
                        fprintf(stderr,
                                "%s: got %s \"%s\", expected %s \"%s\"\n",
                                want[i].id,
                                check_outcome_to_string(c->outcome),
                                c->summary,
                                check_outcome_to_string(want[i].outcome),
                                want[i].summary);
                        abort();
                }
        }
}

/* The link checks as check_links() makes them: from the link's plan, and what the kernel shows. */
static void evaluate(
        const NodeLink *nl,
        const char *ifname,
        const char *resolve_error,
        const Host2 *h,
        const FirewallView *fw,
        CheckList *l) {
        _cleanup_(link_plan_done) LinkPlan lp = {};

        ASSERT_OK(link_plan_compute(&profile_link, nl, ifname, resolve_error, &h->state, fw, NULL, &lp));
        ASSERT_OK(check_link_evaluate(
                &profile_link,
                nl,
                &lp,
                ifname ? rtnl_state_find_by_name(&h->state, ifname) : NULL,
                NULL,
                fw,
                NULL,
                l));
}

static void test_checks(void) {
        NodeLink nl = { .link = (char *) "rdma0", .address = prefix("192.168.100.1/30") };
        RtnlAddress applied[] = { addr(2, "192.168.100.1/30", HALOD, 0) };
        FirewallView no_fw = {}, fw_trusted = { .running = true, .zone = "trusted" },
                     fw_none = { .running = true, .zone = "" };
        CheckList l = {};
        Host2 h;

        host_init(&h, 9000, true, applied, 1, "10.0.0.5/24");
        evaluate(&nl, "enp194s0f0np0", NULL, &h, &fw_trusted, &l);
        expect_checks(
                &l,
                (const Want[]){
                        { "link.rdma0.present", CHECK_PASS, "rdma0 is enp194s0f0np0" },
                        { "link.rdma0.up", CHECK_PASS, "rdma0 (enp194s0f0np0) is up" },
                        { "link.rdma0.mtu", CHECK_PASS, "rdma0 (enp194s0f0np0) has MTU 9000" },
                        { "link.rdma0.address", CHECK_PASS, "rdma0 (enp194s0f0np0) has 192.168.100.1/30" },
                        { "link.rdma0.zone", CHECK_PASS, "rdma0 (enp194s0f0np0) is in firewall zone trusted" },
                },
                5);
        ASSERT_STR_EQ(check_list_find(&l, "link.rdma0.present")->expected, "driver ice");
        check_list_done(&l);

        host_init(&h, 1500, false, NULL, 0, "10.0.0.5/24");
        evaluate(&nl, "enp194s0f0np0", NULL, &h, &no_fw, &l);
        expect_checks(
                &l,
                (const Want[]){
                        { "link.rdma0.present", CHECK_PASS, "rdma0 is enp194s0f0np0" },
                        { "link.rdma0.up",
                          CHECK_FAIL,
                          "rdma0 (enp194s0f0np0) is down; haloctl apply brings it up" },
                        { "link.rdma0.mtu",
                          CHECK_FAIL,
                          "rdma0 (enp194s0f0np0) has MTU 1500, the profile wants 9000; haloctl apply sets it" },
                        { "link.rdma0.address",
                          CHECK_FAIL,
                          "rdma0 (enp194s0f0np0) lacks 192.168.100.1/30 (it has none); haloctl apply adds it" },
                        { "link.rdma0.zone", CHECK_SKIP, "skip: firewalld not running" },
                },
                5);
        check_list_done(&l);

        /* Up, but no carrier: the cable or the peer. */
        host_init(&h, 9000, true, applied, 1, "10.0.0.5/24");
        h.links[1].flags = IFF_UP;
        h.links[1].operstate = IF_OPER_LOWERLAYERDOWN;
        evaluate(&nl, "enp194s0f0np0", NULL, &h, &fw_none, &l);
        ASSERT_STR_EQ(
                check_list_find(&l, "link.rdma0.up")->summary,
                "rdma0 (enp194s0f0np0) is up but has no carrier (operstate lowerlayerdown); check the cable "
                "and the peer's port");
        ASSERT_INT_EQ(check_list_find(&l, "link.rdma0.zone")->outcome, CHECK_FAIL);
        ASSERT_STR_EQ(check_list_find(&l, "link.rdma0.zone")->actual, "(none)");
        check_list_done(&l);

        /* Not found: present fails, the rest cannot be judged. */
        evaluate(&nl, NULL, "no network interface matches driver ice", &h, &no_fw, &l);
        expect_checks(
                &l,
                (const Want[]){
                        { "link.rdma0.present", CHECK_FAIL, "rdma0: no network interface matches driver ice" },
                        { "link.rdma0.up", CHECK_SKIP, "rdma0 not present" },
                        { "link.rdma0.mtu", CHECK_SKIP, "rdma0 not present" },
                        { "link.rdma0.address", CHECK_SKIP, "rdma0 not present" },
                        { "link.rdma0.zone", CHECK_SKIP, "rdma0 not present" },
                },
                5);
        check_list_done(&l);
}

/* The change records the journal gets, and the lines haloctl prints from them. */
static void test_changes(void) {
        char *zones_both[] = { (char *) "public", (char *) "trusted", NULL };
        NodeLink nl = { .link = (char *) "rdma0", .address = prefix("192.168.100.1/30") };
        RtnlAddress old[] = { addr(2, "192.168.100.5/30", HALOD, 0), addr(2, "10.1.1.1/24", 0, 0) };
        FirewallView fw_public = { .running = true, .zone = "public", .zones = zones_both };
        static const struct {
                LinkField field;
                const char *from, *to, *line;
        } want[] = {
                { LINK_FIELD_MTU, "1500", "9000", "rdma0 (enp194s0f0np0): mtu 1500 → 9000" },
                { LINK_FIELD_UP, "down", "up", "rdma0 (enp194s0f0np0): link down → up" },
                { LINK_FIELD_ADDRESS, "192.168.100.5/30", "", "rdma0 (enp194s0f0np0): - 192.168.100.5/30" },
                { LINK_FIELD_ADDRESS, "", "192.168.100.1/30", "rdma0 (enp194s0f0np0): + 192.168.100.1/30" },
                { LINK_FIELD_ZONE, "public", "trusted", "rdma0 (enp194s0f0np0): zone public → trusted" },
        };
        _cleanup_(plan_changes_done) PlanChanges changes = {};
        _cleanup_(strv_freep) char **lines = NULL;
        LinkPlan lp;
        Plan p = { .links = &lp, .n_links = 1 };
        Host2 h;

        host_init(&h, 1500, false, old, 2, "10.0.0.5/24");
        ASSERT_OK(link_plan_compute(
                &profile_link, &nl, "enp194s0f0np0", NULL, &h.state, &fw_public, NULL, &lp));
        ASSERT_TRUE(!lp.error);
        ASSERT_INT_EQ(lp.ifindex, 2);
        ASSERT_INT_EQ(lp.n_remove_addresses, 1);
        ASSERT_OK(plan_changes(&p, &changes));
        ASSERT_OK(plan_describe(&p, &lines));
        ASSERT_INT_EQ(changes.n_changes, ELEMENTSOF(want));
        ASSERT_INT_EQ(strv_length(lines), ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                const PlanChange *c = &changes.changes[i];
                _cleanup_(freep) char *line = plan_change_describe(c);

                ASSERT_STR_EQ(c->link, "rdma0");
                ASSERT_STR_EQ(c->ifname, "enp194s0f0np0");
                ASSERT_STR_EQ(link_field_to_string(c->field), link_field_to_string(want[i].field));
                ASSERT_STR_EQ(c->from, want[i].from);
                ASSERT_STR_EQ(c->to, want[i].to);
                ASSERT_STR_EQ(line, want[i].line);
                ASSERT_STR_EQ(lines[i], want[i].line);
        }
        link_plan_done(&lp);
        plan_changes_done(&changes);

        /* A link that cannot be applied changes nothing, but its comparison stays for the checks. */
        host_init(&h, 1500, true, NULL, 0, "192.168.100.1/24");
        ASSERT_OK(link_plan_compute(
                &profile_link, &nl, "enp194s0f0np0", NULL, &h.state, &fw_public, NULL, &lp));
        ASSERT_TRUE(lp.error && strstr(lp.error, "already used by eno1"));
        ASSERT_TRUE(lp.mtu_from == 1500 && lp.mtu_to == 9000 && lp.add_address && lp.zone_to);
        ASSERT_OK(plan_changes(&p, &changes));
        ASSERT_INT_EQ(changes.n_changes, 0);
        link_plan_done(&lp);
}

/* The link checks of a link that cannot be applied still say what differs. */
static void test_checks_of_unappliable_link(void) {
        NodeLink nl = { .link = (char *) "rdma0", .address = prefix("192.168.100.1/30") };
        FirewallView no_fw = {};
        CheckList l = {};
        Host2 h;

        host_init(&h, 1500, true, NULL, 0, "192.168.100.1/24");
        evaluate(&nl, "enp194s0f0np0", NULL, &h, &no_fw, &l);
        expect_checks(
                &l,
                (const Want[]){
                        { "link.rdma0.present", CHECK_PASS, "rdma0 is enp194s0f0np0" },
                        { "link.rdma0.up", CHECK_PASS, "rdma0 (enp194s0f0np0) is up" },
                        { "link.rdma0.mtu",
                          CHECK_FAIL,
                          "rdma0 (enp194s0f0np0) has MTU 1500, the profile wants 9000; haloctl apply sets it" },
                        { "link.rdma0.address",
                          CHECK_FAIL,
                          "rdma0 (enp194s0f0np0) lacks 192.168.100.1/30 (it has none); haloctl apply adds it" },
                        { "link.rdma0.zone", CHECK_SKIP, "skip: firewalld not running" },
                },
                5);
        /* The journal takes the link from the check, not from its id. */
        for (size_t i = 0; i < l.n_checks; i++)
                ASSERT_STR_EQ(l.checks[i].link, "rdma0");
        check_list_done(&l);
}

int main(void) {
        test_stray();
        test_removed_with_secondaries();
        test_plans();
        test_checks();
        test_changes();
        test_checks_of_unappliable_link();
        return 0;
}
