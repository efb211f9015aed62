/* SPDX-License-Identifier: MIT */
/* Tests for the rtnetlink parser on messages captured from a real kernel (the fuzz-rtnl corpus: a
 * link dump and an IPv4 address dump of a namespace with lo, lkc0 (MTU 9000, two addresses) and its
 * veth peer lkc1), and on malformed ones. */
#include <arpa/inet.h>

#include "basic/fileio.h"
#include "basic/strv.h"
#include "net/rtnl.h"
#include "tests.h"

#define CORPUS TEST_DATA_DIR "/../fuzz/corpus/fuzz-rtnl/"

static int collect(const RtnlEvent *e, void *userdata) {
        char ***lines = userdata;
        char a[INET_ADDRSTRLEN];

        if (e->link)
                return strv_extendf(
                        lines,
                        "%s %d %s mtu %u max %u up %d",
                        rtnl_event_type_to_string(e->type),
                        e->link->ifindex,
                        e->link->name,
                        e->link->mtu,
                        e->link->max_mtu,
                        !!(e->link->flags & 1));
        return strv_extendf(
                lines,
                "%s %d %s/%u",
                rtnl_event_type_to_string(e->type),
                e->address->ifindex,
                inet_ntop(AF_INET, &e->address->address, a, sizeof(a)),
                e->address->prefixlen);
}

static char **parse_file(const char *name) {
        _cleanup_(freep) char *data = NULL;
        char **lines = NULL;
        size_t size;

        ASSERT_OK(read_full_file(name, 1024 * 1024, &data, &size));
        ASSERT_OK(rtnl_parse_events(data, size, collect, &lines));
        return lines;
}

static void test_captured(void) {
        _cleanup_(strv_freep) char **links = parse_file(CORPUS "getlink-dump-0");
        _cleanup_(strv_freep) char **addresses = parse_file(CORPUS "getaddr-dump-inet-0");
        _cleanup_(strv_freep) char **done = parse_file(CORPUS "getlink-dump-1");
        _cleanup_(freep) char *l = strv_join(links, "\n"), *a = strv_join(addresses, "\n");

        ASSERT_STR_EQ(
                l,
                "new-link 1 lo mtu 65536 max 0 up 0\n"
                "new-link 2 lkc1 mtu 1500 max 65535 up 0\n"
                "new-link 3 lkc0 mtu 9000 max 65535 up 1");
        ASSERT_STR_EQ(a, "new-address 3 192.168.100.1/30\nnew-address 3 10.1.1.1/24");
        ASSERT_INT_EQ(strv_length(done), 0); /* NLMSG_DONE: no events */
}

static int keep_lkc0(const RtnlEvent *e, void *userdata) {
        if (e->link && streq(e->link->name, "lkc0"))
                *(RtnlLink *) userdata = *e->link;
        return 0;
}

/* The counters the fabric health checks read with the link: IFLA_STATS64 and the carrier's changes,
 * as the kernel put them in the captured dump (downs are among the changes). */
static void test_link_counters(void) {
        _cleanup_(freep) char *data = NULL;
        RtnlLink l = {};
        size_t size;

        ASSERT_OK(read_full_file(CORPUS "getlink-dump-0", 1024 * 1024, &data, &size));
        ASSERT_OK(rtnl_parse_events(data, size, keep_lkc0, &l));
        ASSERT_STR_EQ(l.name, "lkc0");
        ASSERT_TRUE(l.has_stats);
        ASSERT_INT_EQ(l.rx_crc_errors, 0);
        ASSERT_INT_EQ(l.rx_missed_errors, 0);
        ASSERT_TRUE(l.has_carrier_changes && l.has_carrier_down_count);
        ASSERT_TRUE(l.carrier_changes >= 1);
        ASSERT_TRUE(l.carrier_down_count <= l.carrier_changes);
}

static int fail_cb(const RtnlEvent *e, void *userdata) {
        return -ECANCELED;
}

static void test_malformed(void) {
        _cleanup_(freep) char *data = NULL;
        size_t size;
        char **lines = NULL;
        struct {
                uint32_t len;
                uint16_t type, flags;
                uint32_t seq, pid;
                uint8_t payload[8];
        } __attribute__((packed)) short_link = { 16 + 8, 16 /* RTM_NEWLINK */, 0, 0, 0, {} };

        /* An ifinfomsg cut short. */
        ASSERT_INT_EQ(rtnl_parse_events(&short_link, sizeof(short_link), collect, &lines), -EBADMSG);
        ASSERT_TRUE(!lines);

        /* IFLA_MTU with two bytes instead of four: the whole message is refused. */
        ASSERT_OK(read_full_file(CORPUS "getlink-dump-0", 1024 * 1024, &data, &size));
        for (size_t off = 16 + 16; off + 8 <= size; off += 4) {
                uint16_t *len = (uint16_t *) (data + off), *type = len + 1;

                if (*type == 4 /* IFLA_MTU */ && *len == 8) {
                        *len = 6;
                        break;
                }
        }
        ASSERT_INT_EQ(rtnl_parse_events(data, size, collect, &lines), -EBADMSG);
        strv_free(lines);

        /* The callback's error stops the parse and comes back. */
        data = mfree(data);
        ASSERT_OK(read_full_file(CORPUS "getlink-dump-0", 1024 * 1024, &data, &size));
        ASSERT_INT_EQ(rtnl_parse_events(data, size, fail_cb, NULL), -ECANCELED);
}

int main(void) {
        test_captured();
        test_link_counters();
        test_malformed();
        return 0;
}
