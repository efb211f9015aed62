/* SPDX-License-Identifier: MIT */
/* Tests the inet_diag bytecode that keeps the sockets on the node's addresses (sock_diag_filter_build())
 * against a reading of it done as the kernel does, net/ipv4/inet_diag.c's inet_diag_bc_audit() (every
 * yes offset followed from the start, each no offset landing on an op met so, or just past the end)
 * and inet_diag_bc_run() (S_COND: the address, IPv4-mapped ones too; JMP: always its no offset): a
 * double of those two for the ops the program uses. That the real kernel accepts it and keeps what it
 * should: tests/integration/test-sock-diag.sh. And the compat dump's records as the kernel sent them
 * (the fuzz corpus' tcp-dump-compat*). */
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <string.h>
#include <sys/socket.h>

#include "../fuzz/netlink-walk.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "net/sock-diag.h"
#include "tests.h"

static struct in_addr ip(const char *s) {
        struct in_addr a;

        ASSERT_TRUE(inet_pton(AF_INET, s, &a) == 1);
        return a;
}

/* valid_cc(): whether offset cc from the end is an op met following the yes offsets from the start */
static bool reached(const uint8_t *bc, int len, int cc) {
        while (len >= 0) {
                const struct inet_diag_bc_op *op = (const void *) bc;

                if (cc > len)
                        return false;
                if (cc == len)
                        return true;
                if (op->yes < 4 || op->yes & 3)
                        return false;
                len -= op->yes;
                bc += op->yes;
        }
        return false;
}

static bool audit(const uint8_t *bytecode, int total) {
        const uint8_t *bc = bytecode;
        int len = total;

        while (len > 0) {
                const struct inet_diag_bc_op *op = (const void *) bc;
                int min_len = sizeof(*op);

                if (op->code == INET_DIAG_BC_S_COND) {
                        const struct inet_diag_hostcond *c = (const void *) (op + 1);

                        min_len += sizeof(*c);
                        if (len < min_len || c->family != AF_INET || c->prefix_len > 32)
                                return false;
                        min_len += sizeof(struct in_addr);
                        if (len < min_len)
                                return false;
                } else if (op->code != INET_DIAG_BC_JMP)
                        return false;
                if (op->no < min_len || op->no > len + 4 || op->no & 3)
                        return false;
                if (op->no < len && !reached(bytecode, total, len - op->no))
                        return false;
                if (op->yes < min_len || op->yes > len + 4 || op->yes & 3)
                        return false;
                bc += op->yes;
                len -= op->yes;
        }
        return len == 0;
}

/* Whether the program keeps a socket whose local address is the four words saddr (AF_INET: saddr[0]). */
static bool run(const uint8_t *bc, int len, int family, const uint32_t saddr[4]) {
        while (len > 0) {
                const struct inet_diag_bc_op *op = (const void *) bc;
                bool yes = false;

                if (op->code == INET_DIAG_BC_S_COND) {
                        const struct inet_diag_hostcond *c = (const void *) (op + 1);
                        uint32_t want;

                        memcpy(&want, c + 1, sizeof(want));
                        if (family == AF_INET)
                                yes = saddr[0] == want;
                        else /* an AF_INET condition matches an IPv4-mapped address */
                                yes = saddr[0] == 0 && saddr[1] == 0 && saddr[2] == htonl(0xffff) &&
                                        saddr[3] == want;
                }
                bc += yes ? op->yes : op->no;
                len -= yes ? op->yes : op->no;
        }
        return len == 0;
}

static void test_program(void) {
        const struct in_addr locals[] = {
                ip("10.0.0.1"), ip("192.168.100.1"), ip("172.16.0.9"), ip("10.0.0.4")
        };
        uint8_t buf[256];

        ASSERT_INT_EQ(sock_diag_filter_size(0), 0);
        ASSERT_INT_EQ(sock_diag_filter_size(1), 16);
        ASSERT_INT_EQ(sock_diag_filter_size(4), 4 * 16 + 3 * 4);
        for (size_t n = 1; n <= ELEMENTSOF(locals); n++) {
                uint32_t other[4] = { ip("10.0.0.2").s_addr },
                         v6[4] = { htonl(0xfe800000), 0, 0, locals[0].s_addr };
                int len = sock_diag_filter_build(locals, n, buf, sizeof(buf));

                ASSERT_INT_EQ(len, (int) sock_diag_filter_size(n));
                ASSERT_TRUE(audit(buf, len));
                for (size_t i = 0; i < ELEMENTSOF(locals); i++) {
                        uint32_t v4[4] = { locals[i].s_addr },
                                 mapped[4] = { 0, 0, htonl(0xffff), locals[i].s_addr };

                        /* kept exactly when it is one of the first n */
                        ASSERT_INT_EQ(run(buf, len, AF_INET, v4), i < n);
                        ASSERT_INT_EQ(run(buf, len, AF_INET6, mapped), i < n);
                }
                /* another address; a real IPv6 one whose last word is a kept IPv4 address */
                ASSERT_TRUE(!run(buf, len, AF_INET, other));
                ASSERT_TRUE(!run(buf, len, AF_INET6, v6));
        }
        ASSERT_INT_EQ(sock_diag_filter_build(locals, 0, buf, sizeof(buf)), -EINVAL);
        ASSERT_INT_EQ(sock_diag_filter_build(locals, 2, buf, 35), -EINVAL);
        ASSERT_INT_EQ(sock_diag_filter_build(NULL, 1, buf, sizeof(buf)), -EINVAL);
}

static SockDiagTcp parsed[8];
static size_t n_parsed;

static void parse_one(const struct nlmsghdr *nlh) {
        ASSERT_INT_EQ(nlh->nlmsg_type, TCPDIAG_GETSOCK);
        if (n_parsed < ELEMENTSOF(parsed))
                ASSERT_OK(sock_diag_parse_tcp(nlh, &parsed[n_parsed++]));
}

static void parse_file(const char *name) {
        _cleanup_(freep) char *path = NULL, *data = NULL;
        size_t size;

        ASSERT_TRUE(asprintf(&path, "%s/fuzz/corpus/fuzz-sock-diag/%s", TEST_DATA_DIR "/..", name) > 0);
        ASSERT_OK(read_full_file(path, 1024 * 1024, &data, &size));
        n_parsed = 0;
        fuzz_netlink_walk((const uint8_t *) data, size, parse_one);
}

/* test-sock-diag.sh's SEED: in A, the dump for 10.77.0.1 (its two sockets, AF_INET); in B, the dump for
 * 10.77.0.2 alone (the dual-stack listener's AF_INET6 socket from 10.77.0.1; the one on 10.77.0.3 was
 * left out by the kernel). Both families came in one dump of type TCPDIAG_GETSOCK. */
static void test_compat_records(void) {
        char a[INET_ADDRSTRLEN];

        parse_file("tcp-dump-compat");
        ASSERT_INT_EQ(n_parsed, 2);
        for (size_t i = 0; i < n_parsed; i++) {
                ASSERT_STR_EQ(inet_ntop(AF_INET, &parsed[i].local, a, sizeof(a)), "10.77.0.1");
                ASSERT_TRUE(parsed[i].has_bytes);
        }
        parse_file("tcp-dump-compat-v4-mapped");
        ASSERT_INT_EQ(n_parsed, 1);
        ASSERT_STR_EQ(inet_ntop(AF_INET, &parsed[0].local, a, sizeof(a)), "10.77.0.2");
        ASSERT_STR_EQ(inet_ntop(AF_INET, &parsed[0].remote, a, sizeof(a)), "10.77.0.1");
        ASSERT_INT_EQ(parsed[0].local_port, 5001);
}

int main(void) {
        test_program();
        test_compat_records();
        return 0;
}
