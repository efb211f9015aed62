/* SPDX-License-Identifier: MIT */
/* Neighbours on shared links (a daisy chain), and the peer checks over loopback: a worker that
 * answers, one that runs another profile, one that is not there. No root needed. */
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "basic/macro.h"
#include "basic/strv.h"
#include "check-test.h"
#include "check/check-peer.h"
#include "peer-round-test.h"
#include "peer/peer-profile.h"
#include "tests.h"

/* Three nodes in a chain: head -rdma0- middle -rdma1- tail. */
static const char chain[] =
        "cluster: chain\n"
        "links:\n"
        "  rdma0: { match: { driver: ice }, mtu: 9000 }\n"
        "  rdma1: { match: { driver: ice, name: enp194s0f1np1 } }\n"
        "nodes:\n"
        "  head:   { links: { rdma0: 192.168.100.1/30 } }\n"
        "  middle: { links: { rdma0: 192.168.100.2/30, rdma1: 192.168.100.5/30 } }\n"
        "  tail:   { links: { rdma1: 192.168.100.6/30 } }\n";

/* Two nodes, moved to loopback addresses after loading (the profile itself refuses 127/8), so that
 * the checks run without namespaces. */
static const char loopback[] =
        "cluster: strix-halo\n"
        "links:\n"
        "  rdma0: { match: { name: lo }, mtu: 9000 }\n"
        "nodes:\n"
        "  head:   { links: { rdma0: 192.168.100.1/30 } }\n"
        "  worker: { links: { rdma0: 192.168.100.2/30 } }\n"
        "health: { peers: %s, port: %u }\n";

/* 192.168.100.x -> 127.0.0.x in every node's addresses. */
static Profile *load_on_loopback(const char *yaml) {
        Profile *p = test_profile_load(yaml);

        for (size_t i = 0; i < p->n_nodes; i++)
                for (size_t j = 0; j < p->nodes[i].n_links; j++) {
                        struct in_addr *a = &p->nodes[i].links[j].address.address;

                        a->s_addr = htonl(0x7f000000U | (ntohl(a->s_addr) & 0xffU));
                }
        return p;
}

/* node's neighbours in p as "node@link local->remote mtu [via gateway(node)]", space-separated. */
static char *neighbours_text(const Profile *p, const char *node) {
        _cleanup_(freep) PeerNeighbour *list = NULL;
        _cleanup_(strv_freep) char **got = NULL;
        size_t n;

        ASSERT_OK(peer_neighbours(p, profile_find_node(p, node), &list, &n));
        for (size_t j = 0; j < n; j++) {
                char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN], v[INET_ADDRSTRLEN];

                ASSERT_OK(strv_extendf(
                        &got,
                        "%s@%s %s->%s %u",
                        list[j].node->name,
                        list[j].link,
                        inet_ntop(AF_INET, &list[j].local, a, sizeof(a)),
                        inet_ntop(AF_INET, &list[j].remote, b, sizeof(b)),
                        list[j].mtu));
                if (list[j].routed)
                        ASSERT_OK(strv_extendf(
                                &got,
                                "via %s(%s)",
                                inet_ntop(AF_INET, &list[j].via, v, sizeof(v)),
                                list[j].gateway ? list[j].gateway->name : "-"));
        }
        return strv_join(got, " ");
}

static void test_neighbours(void) {
        static const struct {
                const char *node;
                const char *expected; /* neighbours_text() */
                bool needs_link_mtus; /* a neighbour's link leaves the MTU to the kernel */
        } table[] = {
                { "head", "middle@rdma0 192.168.100.1->192.168.100.2 9000", false },
                { "middle",
                  "head@rdma0 192.168.100.2->192.168.100.1 9000 tail@rdma1 192.168.100.5->192.168.100.6 0",
                  true },
                { "tail", "middle@rdma1 192.168.100.6->192.168.100.5 0", true },
        };
        _cleanup_(profile_freep) Profile *p = test_profile_load(chain);

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                _cleanup_(freep) struct in_addr *bind = NULL, *peers = NULL;
                _cleanup_(freep) char *joined = neighbours_text(p, table[i].node);
                size_t n_bind, n_peers;

                ASSERT_STR_EQ(joined, table[i].expected);
                ASSERT_TRUE(
                        peer_round_needs_link_mtus(p, profile_find_node(p, table[i].node)) ==
                        table[i].needs_link_mtus);

                /* The responder binds the node's own addresses and answers every other address. */
                ASSERT_OK(peer_addresses(
                        p, profile_find_node(p, table[i].node), &bind, &n_bind, &peers, &n_peers));
                ASSERT_INT_EQ(n_bind + n_peers, 4);
        }
}

/* Four nodes in a chain with routes (conf/examples/daisy-chain-4.yaml's addresses): node1 reaches node3
 * and node4 through node2, node4 reaches node1 only (no route to 10.0.2.0/24), and a more specific
 * route wins over a wider one. */
static const char routed_chain[] =
        "cluster: chain\n"
        "links:\n"
        "  rdma0: { match: { driver: ice }, mtu: 9000 }\n"
        "  rdma1: { match: { driver: ice, name: enp194s0f1np1 }, mtu: 4200 }\n"
        "  rdma2: { match: { driver: ice, name: enp194s0f0np0 } }\n"
        "nodes:\n"
        "  node1:\n"
        "    links: { rdma0: 10.0.1.1/24 }\n"
        "    routes: [ { to: 10.0.0.0/16, via: 10.0.1.9 }, { to: 10.0.2.0/24, via: 10.0.1.2 } ]\n"
        "  node2:\n"
        "    links: { rdma0: 10.0.1.2/24, rdma1: 10.0.2.2/24 }\n"
        "    routes: [ { to: 10.0.3.0/24, via: 10.0.2.3 } ]\n"
        "    forwarding: true\n"
        "  node3:\n"
        "    links: { rdma1: 10.0.2.3/24, rdma2: 10.0.3.3/24 }\n"
        "    routes: [ { to: 10.0.1.0/24, via: 10.0.2.2 } ]\n"
        "    forwarding: true\n"
        "  node4:\n"
        "    links: { rdma2: 10.0.3.4/24 }\n"
        "    routes: [ { to: 10.0.1.0/24, via: 10.0.3.3 } ]\n";

static void test_routed_neighbours(void) {
        static const struct {
                const char *node;
                const char *expected; /* "node@link local->remote mtu [via gateway(node)]" */
        } table[] = {
                /* node3 through the /24 via node2 (the /16 is less specific); node4's 10.0.3.4 only
                 * through the /16, whose gateway no node holds; rdma1's 4200 is below rdma0's 9000. */
                { "node1",
                  "node2@rdma0 10.0.1.1->10.0.1.2 9000 "
                  "node3@rdma0 10.0.1.1->10.0.2.3 4200 via 10.0.1.2(node2) "
                  "node4@rdma0 10.0.1.1->10.0.3.4 9000 via 10.0.1.9(-)" },
                { "node2",
                  "node1@rdma0 10.0.1.2->10.0.1.1 9000 node3@rdma1 10.0.2.2->10.0.2.3 4200 "
                  "node4@rdma1 10.0.2.2->10.0.3.4 4200 via 10.0.2.3(node3)" },
                { "node3",
                  "node1@rdma1 10.0.2.3->10.0.1.1 4200 via 10.0.2.2(node2) node2@rdma1 10.0.2.3->10.0.2.2 4200 "
                  "node4@rdma2 10.0.3.3->10.0.3.4 0" },
                /* Its one route covers node2's first address too; none covers 10.0.2.0/24. */
                { "node4",
                  "node1@rdma2 10.0.3.4->10.0.1.1 9000 via 10.0.3.3(node3) "
                  "node2@rdma2 10.0.3.4->10.0.1.2 9000 via 10.0.3.3(node3) node3@rdma2 10.0.3.4->10.0.3.3 0" },
        };
        _cleanup_(profile_freep) Profile *p = test_profile_load(routed_chain);

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                _cleanup_(freep) char *joined = neighbours_text(p, table[i].node);

                ASSERT_STR_EQ(joined, table[i].expected);
        }
}

/* The responder of node, bound before the fork so that it answers from the first probe on. */
static pid_t serve(const char *yaml, const char *node) {
        _cleanup_(profile_freep) Profile *p = load_on_loopback(yaml);
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        pid_t pid;

        ASSERT_OK(peer_server_open_for_profile(
                p, profile_find_node(p, node), HEALTH_DEGRADED, /* fd= */ -EBADF, &s));
        pid = fork_server();
        if (pid == 0)
                for (;;) {
                        struct pollfd pfd = { .fd = peer_server_fd(s), .events = POLLIN };

                        (void) poll(&pfd, 1, -1);
                        while (peer_server_handle(s) > 0)
                                ;
                }
        return pid;
}

static void stop(pid_t pid) {
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
}

/* Runs the checks as head with o (NULL: 5 probes, see quick) and returns "outcome id" lines, with
 * "=actual" after the id when the actual value is "pending". */
static char *run_checks_with(const char *yaml, const PeerTestOptions *o, PeerStatusList *status) {
        /* Answers come at once over loopback, or an ICMP error does: a probe's timeout and the latency
         * bounds are set far above what a busy machine can take, so that none of them decides. */
        static const PeerTestOptions quick = {
                .round = { .probes = 5, .timeout_usec = 5000000 },
                .check = { .latency_warn_median_usec = 10000000, .latency_warn_p99_usec = 10000000 },
        };
        _cleanup_(profile_freep) Profile *p = load_on_loopback(yaml);
        _cleanup_(strv_freep) char **lines = NULL;
        NodeContext c = { .host = &HOST_SYSTEM, .profile = p };
        CheckList l = {};

        c.node = profile_find_node(p, "head");
        ASSERT_OK(peer_round_and_check(&c, o ?: &quick, &l, status));
        for (size_t i = 0; i < l.n_checks; i++)
                ASSERT_OK(strv_extendf(
                        &lines,
                        "%s %s%s",
                        check_outcome_to_string(l.checks[i].outcome),
                        l.checks[i].id,
                        streq(l.checks[i].actual, "pending") ? "=pending" : ""));
        check_list_done(&l);
        return strv_join(lines, ", ");
}

static char *run_checks(const char *yaml, PeerStatusList *status) {
        return run_checks_with(yaml, NULL, status);
}

static void test_checks(void) {
        _cleanup_(freep) char *yaml = NULL, *other = NULL, *off = NULL;
        PeerStatusList status = {};
        unsigned port = 20000 + (unsigned) getpid() % 30000;
        pid_t pid;

        ASSERT_TRUE(asprintf(&yaml, loopback, "true", port) > 0);
        /* The same nodes with another MTU: another digest. */
        ASSERT_TRUE(asprintf(&other, loopback, "true", port) > 0);
        *strstr(other, "9000") = '8';
        ASSERT_TRUE(asprintf(&off, loopback, "false", port) > 0);

        pid = serve(yaml, "worker");
        {
                _cleanup_(freep) char *got = run_checks(yaml, &status);
                ASSERT_STR_EQ(
                        got,
                        "pass peer.worker.reachable, pass peer.worker.mtu, pass peer.worker.latency, pass peer.worker.profile, "
                        "skip peer.worker.rdma");
        }
        ASSERT_INT_EQ(status.n_peers, 1);
        ASSERT_STR_EQ(status.peers[0].node, "worker");
        ASSERT_STR_EQ(status.peers[0].address, "127.0.0.2");
        ASSERT_TRUE(status.peers[0].reachable);
        ASSERT_TRUE(status.peers[0].rtt_median_usec <= status.peers[0].rtt_p99_usec);
        stop(pid);

        pid = serve(other, "worker");
        {
                _cleanup_(freep) char *got = run_checks(yaml, &status);
                ASSERT_STR_EQ(
                        got,
                        "pass peer.worker.reachable, pass peer.worker.mtu, pass peer.worker.latency, warn peer.worker.profile, "
                        "skip peer.worker.rdma");
        }
        stop(pid);

        {
                _cleanup_(freep) char *got = run_checks(yaml, &status);
                ASSERT_STR_EQ(
                        got,
                        "fail peer.worker.reachable, skip peer.worker.mtu, skip peer.worker.latency, skip peer.worker.profile, "
                        "skip peer.worker.rdma");
        }
        ASSERT_INT_EQ(status.n_peers, 1);
        ASSERT_TRUE(!status.peers[0].reachable);

        /* A worker that takes the probes and never answers, and a round that ends before its
         * probes can give up (a warm-up and 3 probes of 100 ms): every check is pending. */
        {
                struct sockaddr_in a = { .sin_family = AF_INET,
                                         .sin_addr.s_addr = htonl(0x7f000002U),
                                         .sin_port = htons(port) };
                _cleanup_(closep) int silent = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                PeerTestOptions o = { .round = { .probes = 5, .timeout_usec = 100000, .round_usec = 150000 } };
                _cleanup_(freep) char *got = NULL;

                ASSERT_TRUE(silent >= 0);
                ASSERT_TRUE(bind(silent, (struct sockaddr *) &a, sizeof(a)) == 0);
                got = run_checks_with(yaml, &o, &status);
                ASSERT_STR_EQ(
                        got,
                        "skip peer.worker.reachable=pending, skip peer.worker.mtu=pending, "
                        "skip peer.worker.latency=pending, skip peer.worker.profile=pending, skip peer.worker.rdma");
                ASSERT_INT_EQ(status.n_peers, 1);
                ASSERT_TRUE(status.peers[0].pending);
                ASSERT_TRUE(!status.peers[0].reachable);
        }

        /* Cancelled: no checks, -ECANCELED. */
        {
                _cleanup_(profile_freep) Profile *p = load_on_loopback(yaml);
                _cleanup_(closep) int cancel = eventfd(1, EFD_CLOEXEC);
                NodeContext c = { .host = &HOST_SYSTEM, .profile = p, .node = profile_find_node(p, "head") };
                PeerTestOptions o = { .round = { .cancel_fd = cancel } };
                _cleanup_(check_list_done) CheckList l = {};

                ASSERT_TRUE(cancel > 0);
                ASSERT_INT_EQ(peer_round_and_check(&c, &o, &l, NULL), -ECANCELED);
                ASSERT_INT_EQ(l.n_checks, 0);
        }

        /* health.peers: false turns them off. */
        {
                _cleanup_(freep) char *got = run_checks(off, &status);
                ASSERT_STR_EQ(got, "");
        }
        ASSERT_INT_EQ(status.n_peers, 0);
        peer_status_list_done(&status);
}

/* Three nodes on loopback: head probes worker and spare. */
static const char loopback3[] =
        "cluster: strix-halo\n"
        "links:\n"
        "  rdma0: { match: { name: lo }, mtu: 9000 }\n"
        "nodes:\n"
        "  head:   { links: { rdma0: 192.168.100.1/24 } }\n"
        "  worker: { links: { rdma0: 192.168.100.2/24 } }\n"
        "  spare:  { links: { rdma0: 192.168.100.3/24 } }\n"
        "health: { port: %u }\n";

static const Check *find_check(const CheckList *l, const char *id) {
        for (size_t i = 0; i < l->n_checks; i++)
                if (streq(l->checks[i].id, id))
                        return &l->checks[i];
        return NULL;
}

/* A sampled round (one peer measured a round): the window's peer gets the echo run and the MTU probes,
 * the other one answer to a liveness probe and its latency and mtu checks and round trips repeated
 * from the round before; a peer without a measurement before is measured whatever the window; and a
 * peer outside the window that stops answering fails at once. */
static void test_sampled_rounds(void) {
        _cleanup_(freep) char *yaml = NULL;
        unsigned port = 20000 + (unsigned) (getpid() + 7) % 30000;
        PeerTestOptions o = {
                .round = { .probes = 5, .timeout_usec = 5000000, .measure_per_round = 1 },
                .check = { .latency_warn_median_usec = 10000000, .latency_warn_p99_usec = 10000000 },
        };
        _cleanup_(check_list_done) CheckList first = {}, second = {}, third = {};
        PeerStatusList s1 = {}, s2 = {}, s3 = {};
        _cleanup_(profile_freep) Profile *p = NULL;
        NodeContext c = { .host = &HOST_SYSTEM };
        pid_t worker, spare;

        ASSERT_TRUE(asprintf(&yaml, loopback3, port) > 0);
        p = load_on_loopback(yaml);
        c.profile = p;
        c.node = profile_find_node(p, "head");
        worker = serve(yaml, "worker");
        spare = serve(yaml, "spare");

        /* Nothing measured before: both are measured, the window notwithstanding. */
        o.round.round = 0;
        ASSERT_OK(peer_round_and_check(&c, &o, &first, &s1));
        ASSERT_INT_EQ(first.n_checks, 10);
        ASSERT_TRUE(strstr(find_check(&first, "peer.worker.reachable")->summary, "(5/5 probes)"));
        ASSERT_TRUE(strstr(find_check(&first, "peer.spare.reachable")->summary, "(5/5 probes)"));
        ASSERT_INT_EQ(find_check(&first, "peer.spare.mtu")->outcome, CHECK_PASS);

        /* Round 0's window is worker: spare answers one liveness probe and repeats the rest. */
        o.round.previous_peers = &s1;
        ASSERT_OK(peer_round_and_check(&c, &o, &second, &s2));
        ASSERT_INT_EQ(second.n_checks, 10);
        ASSERT_TRUE(strstr(find_check(&second, "peer.worker.reachable")->summary, "(5/5 probes)"));
        ASSERT_INT_EQ(find_check(&second, "peer.spare.reachable")->outcome, CHECK_PASS);
        ASSERT_TRUE(strstr(find_check(&second, "peer.spare.reachable")->summary, "(1/1 probes)"));
        ASSERT_STR_EQ(
                find_check(&second, "peer.spare.latency")->summary,
                find_check(&first, "peer.spare.latency")->summary);
        ASSERT_STR_EQ(
                find_check(&second, "peer.spare.mtu")->summary, find_check(&first, "peer.spare.mtu")->summary);
        ASSERT_INT_EQ(find_check(&second, "peer.spare.profile")->outcome, CHECK_PASS);
        ASSERT_STR_EQ(s2.peers[1].node, "spare");
        ASSERT_TRUE(s2.peers[1].reachable);
        ASSERT_INT_EQ(s2.peers[1].rtt_median_usec, s1.peers[1].rtt_median_usec);
        ASSERT_INT_EQ(s2.peers[1].rtt_p99_usec, s1.peers[1].rtt_p99_usec);

        /* Round 2's window is worker again (2 peers, 1 a round: even rounds): spare, outside it, is
         * lost and seen lost in this very round. */
        stop(spare);
        o.round.round = 2;
        o.round.previous_peers = &s2;
        ASSERT_OK(peer_round_and_check(&c, &o, &third, &s3));
        ASSERT_INT_EQ(find_check(&third, "peer.spare.reachable")->outcome, CHECK_FAIL);
        ASSERT_INT_EQ(find_check(&third, "peer.spare.latency")->outcome, CHECK_SKIP);
        ASSERT_TRUE(!s3.peers[1].reachable);
        ASSERT_INT_EQ(find_check(&third, "peer.worker.reachable")->outcome, CHECK_PASS);

        stop(worker);
        peer_status_list_done(&s1);
        peer_status_list_done(&s2);
        peer_status_list_done(&s3);
}

/* The same two nodes with no MTU in the profile: the MTU probe takes the link's netdev MTU from the
 * snapshot, read below the host root (a fixture tree says 1500 for lo, the running kernel 65536,
 * which the probe cannot carry). */
static const char loopback_no_mtu[] =
        "cluster: strix-halo\n"
        "links:\n"
        "  rdma0: { match: { name: lo } }\n"
        "nodes:\n"
        "  head:   { links: { rdma0: 192.168.100.1/30 } }\n"
        "  worker: { links: { rdma0: 192.168.100.2/30 } }\n"
        "health: { peers: true, port: %u }\n";

/* copied: the round gets the MTUs as a copy of a snapshot's that is gone by then (halod's peer lane,
 * PeerRoundOptions.link_mtus), not read by the caller just before (haloctl check). */
static const Check *mtu_check_below(const char *yaml, const char *root, bool copied, CheckList *l) {
        PeerTestOptions quick = {
                .round = { .probes = 5, .timeout_usec = 5000000 },
                .check = { .latency_warn_median_usec = 10000000, .latency_warn_p99_usec = 10000000 },
        };
        _cleanup_(profile_freep) Profile *p = load_on_loopback(yaml);
        _cleanup_(peer_link_mtus_done) PeerLinkMtus mtus = {};
        Host h = { .root = root };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };

        if (copied) {
                _cleanup_(snapshot_done) Snapshot s = {};

                snapshot_init(&s, &c);
                ASSERT_OK(snapshot_read(&s, SNAPSHOT_MTU));
                ASSERT_OK(peer_link_mtus_from_snapshot(&s, &mtus));
                ASSERT_INT_EQ(mtus.n, 1);
                quick.round.link_mtus = &mtus;
        }
        ASSERT_OK(peer_round_and_check(&c, &quick, l, /* ret_status= */ NULL));
        for (size_t i = 0; i < l->n_checks; i++)
                if (streq(l->checks[i].id, "peer.worker.mtu"))
                        return &l->checks[i];
        ASSERT_TRUE(false);
        return NULL;
}

static void test_local_mtu(void) {
        _cleanup_(freep) char *yaml = NULL, *root = strdup("/tmp/halod-peer-mtu-XXXXXX"), *cmd = NULL;
        unsigned port = 20000 + (unsigned) (getpid() + 7) % 30000;
        const Check *m;
        pid_t pid;

        ASSERT_TRUE(asprintf(&yaml, loopback_no_mtu, port) > 0);
        ASSERT_TRUE(root && mkdtemp(root));
        ASSERT_TRUE(
                asprintf(
                        &cmd,
                        "mkdir -p '%1$s/sys/class/net/lo' && echo 1500 > '%1$s/sys/class/net/lo/mtu' && "
                        "echo 1 > '%1$s/sys/class/net/lo/ifindex'",
                        root) > 0);
        ASSERT_INT_EQ(system(cmd), 0);

        pid = serve(yaml, "worker");
        {
                _cleanup_(check_list_done) CheckList l = {};

                m = mtu_check_below(yaml, root, /* copied= */ false, &l);
                ASSERT_INT_EQ(m->outcome, CHECK_PASS);
                ASSERT_TRUE(strstr(m->summary, "1500"));
        }
        {
                _cleanup_(check_list_done) CheckList l = {};

                m = mtu_check_below(yaml, root, /* copied= */ true, &l);
                ASSERT_INT_EQ(m->outcome, CHECK_PASS);
                ASSERT_TRUE(strstr(m->summary, "1500"));
        }
        {
                _cleanup_(check_list_done) CheckList l = {};

                _cleanup_(freep) char *lo = NULL, *want = NULL;

                /* The running kernel's lo: 65536 unless someone changed it. */
                ASSERT_OK(host_read_line(&HOST_SYSTEM, "/sys/class/net/lo/mtu", &lo));
                m = mtu_check_below(yaml, "", /* copied= */ false, &l);
                ASSERT_TRUE(asprintf(&want, "MTU of %s", lo) > 0);
                ASSERT_TRUE(strstr(m->summary, want));
        }
        {
                _cleanup_(check_list_done) CheckList l = {};

                cmd = mfree(cmd);
                ASSERT_TRUE(asprintf(&cmd, "rm '%s/sys/class/net/lo/mtu'", root) > 0);
                ASSERT_INT_EQ(system(cmd), 0);
                m = mtu_check_below(yaml, root, /* copied= */ false, &l);
                ASSERT_INT_EQ(m->outcome, CHECK_SKIP);
                ASSERT_TRUE(strstr(m->summary, "could not be read"));
        }
        {
                _cleanup_(check_list_done) CheckList l = {};

                m = mtu_check_below(yaml, root, /* copied= */ true, &l);
                ASSERT_INT_EQ(m->outcome, CHECK_SKIP);
                ASSERT_TRUE(strstr(m->summary, "could not be read"));
        }
        stop(pid);
        cmd = mfree(cmd);
        ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", root) > 0);
        ASSERT_INT_EQ(system(cmd), 0);
}

int main(void) {
        test_sampled_rounds();
        test_neighbours();
        test_routed_neighbours();
        test_checks();
        test_local_mtu();
        return 0;
}
