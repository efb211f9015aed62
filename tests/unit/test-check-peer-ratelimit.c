/* SPDX-License-Identifier: MIT */
/* peer.<node>.reachable against a responder over loopback whose budget for this node's other
 * programs a flood used up: "rate-limited" (the responder said so), never "is halod running there?";
 * and from the probe port, held as halod holds it, answered in full. Against an older responder,
 * which drops what comes from the probe port: probed again from an ephemeral port, and said so. As
 * root (the probe port is privileged), as the unit tests run. */
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "basic/macro.h"
#include "check-test.h"
#include "check/check-peer.h"
#include "netns-test.h"
#include "peer-round-test.h"
#include "peer/peer-profile.h"
#include "peer/peer-ratelimit.h"
#include "tests.h"

/* Two nodes, moved to 127.0.0.1 and 127.0.0.2 after loading (the profile itself refuses 127/8). */
static const char loopback[] =
        "cluster: strix-halo\n"
        "links:\n"
        "  rdma0: { match: { name: lo }, mtu: 9000 }\n"
        "nodes:\n"
        "  head:   { links: { rdma0: 192.168.100.1/30 } }\n"
        "  worker: { links: { rdma0: 192.168.100.2/30 } }\n"
        "health: { port: %u }\n";

static Profile *load_on_loopback(const char *yaml) {
        Profile *p = test_profile_load(yaml);

        for (size_t i = 0; i < p->n_nodes; i++)
                for (size_t j = 0; j < p->nodes[i].n_links; j++) {
                        struct in_addr *a = &p->nodes[i].links[j].address.address;

                        a->s_addr = htonl(0x7f000000U | (ntohl(a->s_addr) & 0xffU));
                }
        return p;
}

static usec_t frozen_clock(clockid_t clock) {
        return 42;
}

/* Sends worker's responder a burst of echo requests from 127.0.0.1 (an ephemeral port, as any
 * program of the head would) and has it answer them all: its budget for them is then empty, and
 * with the clock frozen it stays so. */
static void flood(PeerServer *s, uint16_t port) {
        struct sockaddr_in to = { .sin_family = AF_INET,
                                  .sin_addr.s_addr = htonl(0x7f000002U),
                                  .sin_port = htons(port) };
        _cleanup_(closep) int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        PeerMessage m = { .type = PEER_ECHO_REQUEST };
        uint8_t buf[PEER_REQUEST_SIZE_MIN];
        size_t n;

        ASSERT_TRUE(fd >= 0);
        ASSERT_OK(peer_identity_init(&m.sender, "strix-halo", "head", HEALTH_HEALTHY, NULL));
        m.padding = PEER_REQUEST_SIZE_MIN - peer_message_size(&m);
        ASSERT_OK(peer_message_encode(&m, buf, sizeof(buf), &n));
        ASSERT_TRUE(connect(fd, (struct sockaddr *) &to, sizeof(to)) == 0);
        for (unsigned i = 0; i < PEER_RATE_BURST; i++) {
                ASSERT_TRUE(send(fd, buf, n, 0) == (ssize_t) n);
                ASSERT_TRUE(poll(&(struct pollfd){ .fd = peer_server_fd(s), .events = POLLIN }, 1, -1) == 1);
                ASSERT_INT_EQ(peer_server_handle(s), 1);
        }
        ASSERT_INT_EQ(peer_server_stats(s)->answered, PEER_RATE_BURST);
}

/* Answers with s in a child process, until killed. */
static pid_t serve_in_child(PeerServer *s) {
        pid_t pid = fork_server();

        if (pid == 0)
                for (;;) {
                        (void) poll(&(struct pollfd){ .fd = peer_server_fd(s), .events = POLLIN }, 1, -1);
                        while (peer_server_handle(s) > 0)
                                ;
                }
        return pid;
}

static const Check *find_check(const CheckList *l, const char *id) {
        for (size_t i = 0; i < l->n_checks; i++)
                if (streq(l->checks[i].id, id))
                        return &l->checks[i];
        return NULL;
}

static void test_rate_limited(void) {
        _cleanup_(freep) char *yaml = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        _cleanup_(check_list_done) CheckList ephemeral = {}, held = {};
        _cleanup_(closep) int guard = -EBADF;
        PeerTestOptions o = {
                .round = { .probes = 5,
                           .timeout_usec = 100000 }, /* the notices come at once; after them, silence */
                .check = { .latency_warn_median_usec = 10000000, .latency_warn_p99_usec = 10000000 },
        };
        NodeContext c = { .host = &HOST_SYSTEM };
        const Check *k;
        uint16_t port;
        pid_t pid;

        for (port = 24000 + (uint16_t) (getpid() % 20000);; port += 2) {
                yaml = mfree(yaml);
                ASSERT_TRUE(asprintf(&yaml, loopback, port) > 0);
                p = profile_free(p);
                p = load_on_loopback(yaml);
                guard = peer_probe_port_hold(port);
                if (guard == -EADDRINUSE)
                        continue;
                ASSERT_OK(guard);
                if (peer_server_open_for_profile(
                            p, profile_find_node(p, "worker"), HEALTH_HEALTHY, /* fd= */ -EBADF, &s) >= 0)
                        break;
                guard = safe_close(guard);
        }
        peer_server_set_clock(s, frozen_clock);
        flood(s, port);
        pid = serve_in_child(s);

        c.profile = p;
        c.node = profile_find_node(p, "head");
        /* From ephemeral ports, as haloctl check probes: the budget the flood used up. */
        ASSERT_OK(peer_round_and_check(&c, &o, &ephemeral, /* ret_status= */ NULL));
        k = find_check(&ephemeral, "peer.worker.reachable");
        ASSERT_INT_EQ(k->outcome, CHECK_FAIL);
        ASSERT_STR_EQ(k->actual, "rate-limited");
        ASSERT_TRUE(startswith(
                k->summary,
                "Rate-limited: worker (127.0.0.2) refused the probes from 127.0.0.1 as over the "
                "rate it answers this node's programs other than halod"));
        ASSERT_TRUE(strstr(k->summary, "halod's own probes have a budget of their own"));
        ASSERT_TRUE(!strstr(k->summary, "is halod running"));

        /* From the probe port, as halod probes: a budget of its own, answered in full. */
        o.round.source_port = peer_probe_port(port);
        o.round.timeout_usec = 5000000; /* it answers: no busy machine makes an answer this late */
        ASSERT_OK(peer_round_and_check(&c, &o, &held, /* ret_status= */ NULL));
        ASSERT_INT_EQ(find_check(&held, "peer.worker.reachable")->outcome, CHECK_PASS);
        ASSERT_TRUE(strstr(find_check(&held, "peer.worker.reachable")->summary, "(5/5 probes)"));
        ASSERT_INT_EQ(find_check(&held, "peer.worker.mtu")->outcome, CHECK_PASS);

        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
}

/* A responder of a halod from before the privileged probe port: it tells halod's probes by
 * health.port + 1 and drops those from 739 as from a privileged port. */
static void test_older_responder(void) {
        _cleanup_(freep) char *yaml = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        _cleanup_(check_list_done) CheckList l = {};
        _cleanup_(closep) int guard = -EBADF;
        PeerTestOptions o = {
                .round = { .probes = 5, .timeout_usec = 300000 },
                .check = { .latency_warn_median_usec = 10000000, .latency_warn_p99_usec = 10000000 },
        };
        NodeContext c = { .host = &HOST_SYSTEM };
        const Check *k;
        uint16_t port;
        pid_t pid;

        ASSERT_INT_EQ(geteuid(), 0);
        for (port = 26000 + (uint16_t) (getpid() % 20000);; port += 2) {
                yaml = mfree(yaml);
                ASSERT_TRUE(asprintf(&yaml, loopback, port) > 0);
                p = profile_free(p);
                p = load_on_loopback(yaml);
                if (peer_server_open_for_profile(
                            p, profile_find_node(p, "worker"), HEALTH_HEALTHY, /* fd= */ -EBADF, &s) >= 0)
                        break;
        }
        peer_server_set_probe_port(s, port + 1);
        guard = peer_probe_port_hold(port);
        ASSERT_OK(guard);
        pid = serve_in_child(s);

        c.profile = p;
        c.node = profile_find_node(p, "head");
        o.round.source_port = peer_probe_port(port);
        ASSERT_OK(peer_round_and_check(&c, &o, &l, /* ret_status= */ NULL));
        k = find_check(&l, "peer.worker.reachable");
        ASSERT_INT_EQ(k->outcome, CHECK_PASS);
        ASSERT_TRUE(strstr(k->summary, "(5/5 probes)"));
        ASSERT_TRUE(strstr(k->summary, "Its halod predates the privileged probe port"));
        ASSERT_INT_EQ(find_check(&l, "peer.worker.mtu")->outcome, CHECK_PASS);

        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
}

int main(void) {
        test_private_netns();
        test_rate_limited();
        test_older_responder();
        return 0;
}
