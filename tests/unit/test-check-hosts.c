/* SPDX-License-Identifier: MIT */
/* hosts.<node>: the names read from a fixture tree's etc/hosts (--root), and for real through NSS in a
 * private mount namespace with a test /etc/hosts (and an nsswitch.conf of "hosts: files", so that no
 * DNS server is asked) bind-mounted over the real ones: a name that resolves right, one that resolves
 * to the management network, one that does not resolve, a node without a hostname; then a DNS server
 * that does not answer. */
#include <fcntl.h>
#include <net/if.h>
#include <netdb.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "check-read.h"
#include "check/check-hosts.h"
#include "tests.h"

static const char profile_text[] =
        "cluster: strix-halo\n"
        "links: { rdma0: { match: { driver: ice } } }\n"
        "nodes:\n"
        "  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/24 } }\n"
        "  worker: { hostname: halo-2, links: { rdma0: 192.168.100.2/24 } }\n"
        "  third: { hostname: halo-3, links: { rdma0: 192.168.100.3/24 } }\n"
        "  fourth: { hostname: halo-4, links: { rdma0: 192.168.100.4/24 } }\n"
        "  fifth: { links: { rdma0: 192.168.100.5/24 } }\n";

static void assert_check(
        const CheckList *l, const char *id, CheckOutcome outcome, const char *actual, const char *summary) {
        const Check *c = check_list_find(l, id);

        ASSERT_TRUE(c);
        if (c->outcome != outcome || !streq(c->summary, summary))
                fprintf(stderr, "%s: %s: %s\n", id, check_outcome_to_string(c->outcome), c->summary);
        ASSERT_INT_EQ(c->outcome, outcome);
        ASSERT_STR_EQ(c->actual, actual);
        ASSERT_STR_EQ(c->summary, summary);
}

static void run(const Host *host, CheckList *out) {
        _cleanup_(profile_freep) Profile *p = NULL;
        NodeContext c;

        ASSERT_OK(profile_load_string("h.yaml", profile_text, strlen(profile_text), &p, NULL));
        c = (NodeContext){ .host = host, .profile = p, .node = profile_find_node(p, "head") };
        ASSERT_OK(test_check_group(&c, NULL, check_hosts, out));
}

static void assert_cases(const CheckList *l, const char *source) {
        char want[1024];

        /* Never this node itself. */
        ASSERT_TRUE(!check_list_find(l, "hosts.head"));
        ASSERT_INT_EQ(l->n_checks, 4);
        (void) snprintf(
                want,
                sizeof(want),
                "halo-2 (node worker) resolves to its fabric address 192.168.100.2 (looked up through %s)",
                source);
        assert_check(l, "hosts.worker", CHECK_PASS, "192.168.100.2", want);
        (void) snprintf(
                want,
                sizeof(want),
                "halo-3 resolves to 10.0.0.13 (the management network?), not 192.168.100.3 (looked up "
                "through %s): Ray, vLLM and RCCL would reach it over the slow path; put \"192.168.100.3 "
                "halo-3\" in /etc/hosts before other entries of the name, or set health.hosts: manage",
                source);
        assert_check(l, "hosts.third", CHECK_FAIL, "10.0.0.13", want);
        (void) snprintf(
                want,
                sizeof(want),
                "halo-4 (node fourth) does not resolve here (looked up through %s): Ray, vLLM and RCCL "
                "cannot reach it by name; add \"192.168.100.4 halo-4\" to /etc/hosts, or set "
                "health.hosts: manage",
                source);
        assert_check(l, "hosts.fourth", CHECK_FAIL, "", want);
        assert_check(
                l,
                "hosts.fifth",
                CHECK_SKIP,
                "",
                "node fifth has no hostname in the profile: nothing to resolve (add hostname: to check the "
                "name the workload uses)");
}

static void test_root(void) {
        _cleanup_(check_list_done) CheckList l = {};
        Host host = { .root = TEST_DATA_DIR "/hosts/hosts-names" };

        run(&host, &l);
        assert_cases(&l, TEST_DATA_DIR "/hosts/hosts-names/etc/hosts");
}

/* --root with an etc/hosts that cannot be read (a directory: the test may run as root, for whom no
 * mode bits refuse): a read error of halod's, not the workload's lookup. */
/* The codes glibc's getaddrinfo() returns besides EAI_AGAIN keep their own names (SERVFAIL and REFUSED
 * come back as EAI_AGAIN, which test_nss_dns_down() sees for real). */
static void test_gai_error_name(void) {
        ASSERT_STR_EQ(gai_error_name(EAI_AGAIN), "EAI_AGAIN");
        ASSERT_STR_EQ(gai_error_name(EAI_FAIL), "EAI_FAIL");
        ASSERT_STR_EQ(gai_error_name(EAI_SERVICE), "EAI_SERVICE");
        ASSERT_STR_EQ(gai_error_name(12345), "EAI_?");
}

static void test_root_unreadable(void) {
        _cleanup_(check_list_done) CheckList l = {};
        _cleanup_(freep) char *etc = NULL, *hosts = NULL, *want = NULL;
        char dir[] = "/tmp/test-check-hosts-root-XXXXXX";
        Host host = { .root = dir };

        ASSERT_TRUE(mkdtemp(dir));
        ASSERT_TRUE(asprintf(&etc, "%s/etc", dir) > 0 && asprintf(&hosts, "%s/etc/hosts", dir) > 0);
        ASSERT_OK(mkdir(etc, 0755));
        ASSERT_OK(mkdir(hosts, 0755));
        run(&host, &l);
        ASSERT_TRUE(
                asprintf(
                        &want,
                        "could not look up halo-2 (node worker): cannot read %s: Is a directory; run haloctl "
                        "check as a user who can read it",
                        hosts) > 0);
        assert_check(&l, "hosts.worker", CHECK_WARN, "", want);
        ASSERT_OK(rmdir(hosts));
        ASSERT_OK(rmdir(etc));
        ASSERT_OK(rmdir(dir));
}

static void bind_over(const char *dir, const char *name, const char *text, const char *target) {
        _cleanup_(freep) char *path = NULL;

        ASSERT_TRUE(asprintf(&path, "%s/%s", dir, name) > 0);
        ASSERT_OK(write_file_atomic(path, text, strlen(text), 0644));
        ASSERT_OK(mount(path, target, NULL, MS_BIND, NULL));
}

/* A fresh network namespace's lo is down; up, a DNS query to 127.0.0.1 meets a closed port. */
static void loopback_up(void) {
        struct ifreq ifr = { .ifr_name = "lo" };
        _cleanup_(closep) int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(ioctl(fd, SIOCGIFFLAGS, &ifr) >= 0);
        ifr.ifr_flags |= IFF_UP;
        ASSERT_TRUE(ioctl(fd, SIOCSIFFLAGS, &ifr) >= 0);
}

/* A peer's name in no hosts file, and a DNS server that does not answer: glibc's getaddrinfo() returns
 * EAI_AGAIN ("Temporary failure in name resolution"), for halod and for the workload alike. The DNS
 * server is 127.0.0.1 of a fresh network namespace, where nothing listens on port 53. */
static void test_nss_dns_down(const char *dir) {
        _cleanup_(check_list_done) CheckList l = {};
        bool have_resolv_conf;
        const Check *c;

        ASSERT_OK(unshare(CLONE_NEWNET));
        loopback_up();
        bind_over(dir, "hosts", "127.0.0.1 localhost\n", "/etc/hosts");
        bind_over(dir, "nsswitch.conf", "hosts: files dns\n", "/etc/nsswitch.conf");
        /* Without a resolv.conf glibc asks 127.0.0.1 anyway, and there is nothing to mount over. */
        have_resolv_conf = access("/etc/resolv.conf", F_OK) >= 0;
        if (have_resolv_conf)
                bind_over(
                        dir,
                        "resolv.conf",
                        "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n",
                        "/etc/resolv.conf");

        run(&HOST_SYSTEM, &l);
        c = check_list_find(&l, "hosts.worker");
        ASSERT_TRUE(c);
        fprintf(stderr, "hosts.worker: %s: %s\n", check_outcome_to_string(c->outcome), c->summary);
        ASSERT_INT_EQ(c->outcome, CHECK_WARN);
        ASSERT_STR_EQ(
                c->summary,
                "could not resolve halo-2 (node worker) through NSS: getaddrinfo() failed with EAI_AGAIN "
                "(Temporary failure in name resolution); the workload's lookup fails the same way: add "
                "\"192.168.100.2 halo-2\" to /etc/hosts, or set health.hosts: manage");

        if (have_resolv_conf)
                ASSERT_OK(umount("/etc/resolv.conf"));
        ASSERT_OK(umount("/etc/nsswitch.conf"));
        ASSERT_OK(umount("/etc/hosts"));
}

/* Changes this process's mount namespace for good: the last test. */
static int test_nss(void) {
        _cleanup_(check_list_done) CheckList l = {};
        _cleanup_(freep) char *hosts = NULL;
        char dir[] = "/tmp/test-check-hosts-XXXXXX";

        if (geteuid() != 0) {
                ASSERT_TRUE(!getenv("CI")); /* CI runs the suite as root */
                fprintf(stderr, "skipping the NSS lookup: a private mount namespace needs root\n");
                return 77;
        }
        ASSERT_OK(read_full_file(TEST_DATA_DIR "/hosts/hosts-names/etc/hosts", 64 * 1024, &hosts, NULL));
        ASSERT_TRUE(mkdtemp(dir));
        ASSERT_OK(unshare(CLONE_NEWNS));
        ASSERT_OK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
        bind_over(dir, "hosts", hosts, "/etc/hosts");
        bind_over(dir, "nsswitch.conf", "hosts: files\n", "/etc/nsswitch.conf");

        run(&HOST_SYSTEM, &l);
        assert_cases(&l, "NSS");

        ASSERT_OK(umount("/etc/nsswitch.conf"));
        ASSERT_OK(umount("/etc/hosts"));
        test_nss_dns_down(dir);
        {
                _cleanup_(freep) char *a = NULL, *b = NULL, *d = NULL;

                ASSERT_TRUE(
                        asprintf(&a, "%s/hosts", dir) > 0 && asprintf(&b, "%s/nsswitch.conf", dir) > 0 &&
                        asprintf(&d, "%s/resolv.conf", dir) > 0);
                ASSERT_OK(unlink(a));
                ASSERT_OK(unlink(b));
                (void) unlink(d);
        }
        ASSERT_OK(rmdir(dir));
        return 0;
}

int main(void) {
        test_root();
        test_root_unreadable();
        test_gai_error_name();
        return test_nss();
}
